package rank

import (
	"unicode"
	"unicode/utf8"
)

// Options are how Words cuts a text where the searches differ.
type Options struct {
	// CamelCase cuts a word where a capital follows a small letter:
	// "readFile" is "read" and "file" (tools' names and parameters).
	CamelCase bool
	// CJK cuts each run of Chinese, Japanese or Korean letters into the
	// pairs of letters side by side in it (docs, whose questions may be
	// written so).
	CJK bool
	// Requests counts the words a request to a tool asks with ("show",
	// "get", "all") among the stop words (see IsStop).
	Requests bool
}

// Words are the words of s: runs of letters and digits, in lower case.
// With o.CamelCase a capital after a small letter starts a word. With
// o.CJK, since Chinese, Japanese and Korean are written without spaces
// between words (or, in Korean, with words that inflect), a run of their
// letters is cut into the pairs of letters side by side in it (one letter
// alone is a word of its own): a question's "索引" then finds a
// document's "建立索引时".
func Words(s string, o Options) []string {
	w := wordCutter{lower: make([]byte, 0, len(s)), bounds: make([]int, 0, len(s)/8), camel: o.CamelCase}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			i++
			w.ascii(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		w.rune(r)
	}
	if w.in {
		w.bounds = append(w.bounds, len(w.lower))
	}
	text := string(w.lower)
	words := make([]string, len(w.bounds)/2)
	for k := range words {
		words[k] = text[w.bounds[2*k]:w.bounds[2*k+1]]
	}
	if o.CJK && w.cjk {
		words = cjkBigrams(words)
	}
	return words
}

// wordCutter is Words's state: the text's words in lower case one after
// the other, each word's start and end in it, whether a word is open,
// whether the last letter was a small one, and whether a CJK letter was
// seen.
type wordCutter struct {
	lower                 []byte
	bounds                []int
	camel, in, small, cjk bool
}

// ascii takes the ASCII byte c.
func (w *wordCutter) ascii(c byte) {
	upper := 'A' <= c && c <= 'Z'
	word := upper || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
	w.step(word, upper)
	if word {
		if upper {
			c += 'a' - 'A'
		}
		w.lower = append(w.lower, c)
	}
	w.small = 'a' <= c && c <= 'z' && !upper
}

// rune takes the rune r, not ASCII.
func (w *wordCutter) rune(r rune) {
	word := unicode.IsLetter(r) || unicode.IsDigit(r)
	w.cjk = w.cjk || word && IsCJK(r)
	w.step(word, unicode.IsUpper(r))
	if word {
		w.lower = utf8.AppendRune(w.lower, unicode.ToLower(r))
	}
	w.small = unicode.IsLower(r)
}

// step opens or closes a word before a character that is part of one or
// not: a capital after a small letter, with camel, closes the word and
// opens the next.
func (w *wordCutter) step(word, upper bool) {
	if w.camel && w.in && word && upper && w.small {
		w.bounds = append(w.bounds, len(w.lower), len(w.lower))
		return
	}
	if word != w.in {
		w.bounds = append(w.bounds, len(w.lower))
		w.in = word
	}
}

// IsCJK reports whether r is a letter of the scripts written without
// spaces between words: Han, Hiragana, Katakana, and Hangul.
func IsCJK(r rune) bool {
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
			if IsCJK(r) {
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
