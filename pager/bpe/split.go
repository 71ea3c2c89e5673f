package bpe

import (
	_ "embed"
	"strings"
	"unicode/utf8"
)

// class holds what the split patterns ask of a code point.
type class uint8

const (
	// cUpper: o200k_base's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
	cUpper class = 1 << iota
	// cLower: o200k_base's [\p{Ll}\p{Lm}\p{Lo}\p{M}].
	cLower
	// cLetter: \p{L}.
	cLetter
	// cNumber: \p{N}.
	cNumber
	// cSpace: \s, Unicode's White_Space.
	cSpace
	// cNewline: \r or \n (both also cSpace).
	cNewline
)

// prefixable reports whether c is in [^\r\n\p{L}\p{N}], the optional
// character before a word.
func (c class) prefixable() bool { return c&(cNewline|cLetter|cNumber) == 0 }

// IsWordRune reports whether r is a letter or a number (\p{L} or \p{N})
// as the pre-tokenizers' regular expressions see it, by Unicode 16.0.0: a
// piece that starts with one never reaches back over a line break.
func IsWordRune(r rune) bool { return runeClass(r)&(cLetter|cNumber) != 0 }

// punct reports whether c is in [^\s\p{L}\p{N}].
func (c class) punct() bool { return c&(cSpace|cLetter|cNumber) == 0 }

// classData is the class table that testdata/tokref/generate.mjs writes
// from the Unicode Character Database, version 16.0.0 (the one tiktoken's
// regular expressions use; Go's unicode package has 15.0.0): a block number
// for each 128 code points, then the distinct blocks, one class code per
// code point.
//
//go:embed data/classes.bin
var classData string

const (
	classBlock  = 128
	classStage1 = 0x110000 / classBlock
)

// codeClasses maps the class codes of classData to classes: none, Lu, Ll,
// Lt, Lm, Lo, M, N, White_Space.
var codeClasses = [256]class{
	1: cUpper | cLetter,
	2: cLower | cLetter,
	3: cUpper | cLetter,
	4: cUpper | cLower | cLetter,
	5: cUpper | cLower | cLetter,
	6: cUpper | cLower,
	7: cNumber,
	8: cSpace,
}

// runeClass is the class of the scalar value r.
func runeClass(r rune) class {
	c := codeClasses[classData[classStage1+int(classData[r/classBlock])*classBlock+int(r%classBlock)]]
	if r == '\r' || r == '\n' {
		c |= cNewline
	}
	return c
}

// asciiClasses is the class of each ASCII code point.
var asciiClasses = func() (t [utf8.RuneSelf]class) {
	for r := range t {
		t[r] = runeClass(rune(r))
	}
	return t
}()

// classAt returns the class and the length of the code point at s[i]. A
// byte that does not start valid UTF-8 is a code point of its own, of no
// class (it matches only [^\s\p{L}\p{N}]).
func classAt(s string, i int) (class, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClasses[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return 0, 1
	}
	return runeClass(r), n
}

// runEnd returns the end of the run of code points from i whose class has
// a bit of want.
func runEnd(s string, i int, want class) int {
	for i < len(s) {
		c, n := classAt(s, i)
		if c&want == 0 {
			break
		}
		i += n
	}
	return i
}

// nextO200k returns the end of the piece that starts at s[i] under
// o200k_base's split pattern, the first of these alternatives to match,
// each with the backtracking of a regular expression:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func nextO200k(s string, i int) int {
	c0, n0 := classAt(s, i)
	// The two word alternatives, each with the prefix and then without it:
	// without it only a mark can start either, since a mark is the one
	// prefix character that they also take.
	lower, upper := -1, -1
	if c0.prefixable() && i+n0 < len(s) {
		lower, upper = wordEnds(s, i+n0)
	}
	if lower < 0 && c0&(cUpper|cLower) != 0 {
		switch l, u := wordEnds(s, i); {
		case l >= 0:
			lower = l
		case upper < 0:
			upper = u
		}
	}
	end := lower
	if end < 0 {
		end = upper
	}
	if end >= 0 {
		return end + contraction(s, end)
	}
	if c0&cNumber != 0 {
		return numberEnd(s, i+n0)
	}
	if j := punctStart(s, i, c0); j >= 0 {
		k := punctRunEnd(s, j)
		for k < len(s) && (s[k] == '\r' || s[k] == '\n' || s[k] == '/') {
			k++
		}
		return k
	}
	return spaceEnd(s, i)
}

// wordEnds matches o200k_base's two word alternatives at j in one pass over
// the letters and returns their ends, or -1:
//
//	lower: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
//	upper: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
//
// upper is only given where lower does not match: the pattern tries it only
// then.
func wordEnds(s string, j int) (lower, upper int) {
	// The first class's run, remembering the last code point in it that
	// the second class also takes: that is where the second class starts
	// when the code point after the run is not one of its own.
	k, last, lastLen := j, -1, 0
	for k < len(s) {
		c, n := classAt(s, k)
		if c&cUpper == 0 {
			if c&cLower != 0 {
				return runEnd(s, k+n, cLower), -1
			}
			break
		}
		if c&cLower != 0 {
			last, lastLen = k, n
		}
		k += n
	}
	if last >= 0 {
		return last + lastLen, -1
	}
	if k > j {
		// No code point after the run is of the second class.
		return -1, k
	}
	return -1, -1
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i],
// or 0. Case folding makes U+017F (ſ) an s.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return 3
		}
	}
	if strings.HasPrefix(s[i+1:], "ſ") {
		return 1 + len("ſ")
	}
	return 0
}

// numberEnd ends \p{N}{1,3} whose first code point ends at i.
func numberEnd(s string, i int) int {
	for k := 0; k < 2 && i < len(s); k++ {
		c, n := classAt(s, i)
		if c&cNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// punctStart matches " ?" before [^\s\p{L}\p{N}] at s[i], whose class is
// c0, and returns where the punctuation starts, or -1.
func punctStart(s string, i int, c0 class) int {
	if s[i] == ' ' && i+1 < len(s) {
		if c, _ := classAt(s, i+1); c.punct() {
			return i + 1
		}
	}
	if c0.punct() {
		return i
	}
	return -1
}

// punctRunEnd ends the run of [^\s\p{L}\p{N}] from j.
func punctRunEnd(s string, j int) int {
	for j < len(s) {
		c, n := classAt(s, j)
		if !c.punct() {
			break
		}
		j += n
	}
	return j
}

// spaceEnd ends the whitespace piece at s[i], by the last three
// alternatives of both patterns: \s*[\r\n]+ (up to the run's last line
// end), \s+(?!\S) (the run but its last code point, or all of it at the
// end of the text), \s+.
func spaceEnd(s string, i int) int {
	k, lastNewline, last, n := i, -1, i, 0
	for k < len(s) {
		c, w := classAt(s, k)
		if c&cSpace == 0 {
			break
		}
		if c&cNewline != 0 {
			lastNewline = k
		}
		last, k, n = k, k+w, n+1
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case k == len(s) || n == 1:
		return k
	}
	return last
}

// nextCl100k returns the end of the piece that starts at s[i] under
// cl100k_base's split pattern:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)
//	[^\r\n\p{L}\p{N}]?\p{L}+
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func nextCl100k(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	c0, n0 := classAt(s, i)
	if c0.prefixable() && i+n0 < len(s) {
		if c, _ := classAt(s, i+n0); c&cLetter != 0 {
			return runEnd(s, i+n0, cLetter)
		}
	}
	if c0&cLetter != 0 {
		return runEnd(s, i+n0, cLetter)
	}
	if c0&cNumber != 0 {
		return numberEnd(s, i+n0)
	}
	if j := punctStart(s, i, c0); j >= 0 {
		k := punctRunEnd(s, j)
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	}
	return spaceEnd(s, i)
}
