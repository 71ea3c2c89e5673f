// Package docsearch answers a question about a docs tree with the
// passages most likely to answer it: an Index of documents' passages
// (cut from their structure, see package outline), ranked by BM25F over
// their fields, and Answer, which packs the best of them, read fresh from
// their files, into a token budget.
package docsearch

import (
	"strings"
	"unicode"
)

// Words are the words of s as the index counts them: runs of letters and
// digits, in lower case.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Stems are Words cut to a rough stem, so that a question's "flags" finds
// a doc's "flag", "setting" "set" and "defined" "define": plurals, -ing
// and -ed go.
func Stems(s string) []string {
	words := Words(s)
	for i, w := range words {
		words[i] = stem(w)
	}
	return words
}

// stem is w without the common English endings of a plural, a gerund or a
// past tense, when what is left is a word still.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ing"):
		return strings.TrimSuffix(w[:n-3], "e")
	case n > 4 && strings.HasSuffix(w, "ed"):
		return strings.TrimSuffix(w[:n-2], "e")
	case n > 4 && strings.HasSuffix(w, "e"):
		return w[:n-1]
	}
	return w
}
