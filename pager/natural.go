package pager

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// NaturalCut is where a person would end a chunk of text that must end
// within chunk: after the last paragraph break (a blank line), else after
// the last line break, else after the last sentence's end (".", "!" or "?"
// and the space after it, or "。", "！", "？"), else after the last space
// or CJK comma, else at the end of chunk. Only a cut in the chunk's second
// half counts, so that a chunk keeps at least half of what fits; and no
// cut falls inside a code point or between "\r" and "\n".
func NaturalCut(chunk []byte) int {
	floor := len(chunk) / 2
	for _, rank := range []func(b []byte, p int) bool{paragraphEnd, lineEnd, sentenceEnd, wordEnd} {
		for p := len(chunk) - 1; p > floor; p-- {
			if rank(chunk, p) && validCut(chunk, p) {
				return p
			}
		}
	}
	return len(chunk)
}

// EndsNaturally reports whether chunk ends where NaturalCut would like a
// chunk to end: after a line break, a sentence's end or a space (or a CJK
// comma).
func EndsNaturally(chunk []byte) bool {
	p := len(chunk)
	return p > 0 && (lineEnd(chunk, p) || sentenceEnd(chunk, p) || wordEnd(chunk, p))
}

// paragraphEnd: b[:p] ends with a blank line ("\n\n" or "\n\r\n"), and
// the line breaks after it, if any, go with it.
func paragraphEnd(b []byte, p int) bool {
	if p < len(b) && (b[p] == '\n' || b[p] == '\r') {
		return false
	}
	return bytes.HasSuffix(b[:p], []byte("\n\n")) || bytes.HasSuffix(b[:p], []byte("\n\r\n"))
}

// lineEnd: b[:p] ends with a line break.
func lineEnd(b []byte, p int) bool { return b[p-1] == '\n' }

// sentenceEnd: b[:p] ends with a sentence's end and the space after it,
// or with a full-width sentence end.
func sentenceEnd(b []byte, p int) bool {
	if (b[p-1] == ' ' || b[p-1] == '\t') && p >= 2 {
		switch b[p-2] {
		case '.', '!', '?':
			return p == len(b) || (b[p] != ' ' && b[p] != '\t')
		}
		return false
	}
	r, _ := utf8.DecodeLastRune(b[:p])
	return r == '。' || r == '！' || r == '？'
}

// wordEnd: b[:p] ends with a run of spaces, or with a CJK comma or
// enumeration mark.
func wordEnd(b []byte, p int) bool {
	if b[p-1] == ' ' || b[p-1] == '\t' {
		return p == len(b) || (b[p] != ' ' && b[p] != '\t')
	}
	r, _ := utf8.DecodeLastRune(b[:p])
	return r == '，' || r == '、' || r == '；' || r == '：' || (unicode.IsSpace(r) && r != '\n' && r != '\r')
}
