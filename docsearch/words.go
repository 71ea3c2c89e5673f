// Package docsearch answers a question about a docs tree with the
// passages most likely to answer it: an Index of documents' passages
// (cut from their structure, see package outline), ranked by BM25F over
// their fields, and Answer, which packs the best of them, read fresh from
// their files, into a token budget (HTML and MDX as the text a reader
// sees); Tree keeps the index of a view's roots.
package docsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words are the words of s as the index counts them: runs of letters and
// digits, in lower case. Chinese, Japanese and Korean are written without
// spaces between words (or, in Korean, with words that inflect), so a run
// of their letters is cut into the pairs of letters side by side in it
// (one letter alone is a word of its own): a question's "索引" then finds
// a document's "建立索引时".
func Words(s string) []string {
	lower := make([]byte, 0, len(s))
	bounds := make([]int, 0, len(s)/8) // each word's start and end in lower
	in, cjk := false, false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			word := 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z'
			if word != in {
				bounds = append(bounds, len(lower))
				in = word
			}
			if word {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				lower = append(lower, c)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		cjk = cjk || word && isCJK(r)
		if word != in {
			bounds = append(bounds, len(lower))
			in = word
		}
		if word {
			lower = utf8.AppendRune(lower, unicode.ToLower(r))
		}
	}
	if in {
		bounds = append(bounds, len(lower))
	}
	text := string(lower)
	words := make([]string, len(bounds)/2)
	for k := range words {
		words[k] = text[bounds[2*k]:bounds[2*k+1]]
	}
	if cjk {
		words = cjkBigrams(words)
	}
	return words
}

// isCJK reports whether r is a letter of the scripts written without
// spaces between words: Han, Hiragana, Katakana, and Hangul.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// cjkBigrams is words with each run of CJK letters inside a word cut into
// the pairs of letters side by side in it (a run of one letter kept as it
// is), and the rest of the word, before and after the run, words of their
// own.
func cjkBigrams(words []string) []string {
	out := make([]string, 0, len(words)*2)
	for _, w := range words {
		start, runStart := 0, -1 // start of the non-CJK part; of the CJK run
		var prev int             // the last CJK letter's offset
		for i, r := range w {
			if isCJK(r) {
				if runStart < 0 {
					if i > start {
						out = append(out, w[start:i])
					}
					runStart = i
				} else {
					out = append(out, w[prev:i+utf8.RuneLen(r)])
				}
				prev = i
				continue
			}
			if runStart >= 0 {
				if prev == runStart {
					out = append(out, w[runStart:i])
				}
				runStart, start = -1, i
			}
		}
		switch {
		case runStart < 0 && start < len(w):
			out = append(out, w[start:])
		case runStart >= 0 && prev == runStart:
			out = append(out, w[runStart:])
		}
	}
	return out
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
