package bpe

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLoad(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		e := load(t, name)
		if e.Name() != name {
			t.Errorf("Name() = %q, want %q", e.Name(), name)
		}
		list, err := tokenList(e.vocab.tokens)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for _, tok := range list {
			longest = max(longest, len(tok))
		}
		if e.MaxTokenBytes() != longest || len(list) != e.vocab.size {
			t.Errorf("%s: MaxTokenBytes %d, size %d; the tokens have %d, longest %d", name, e.MaxTokenBytes(), e.vocab.size, len(list), longest)
		}
		// Every token is found with its own rank.
		for r, tok := range list {
			if got, ok := e.vocab.rank(tok); !ok || got != uint32(r) {
				t.Fatalf("%s: rank(%q) = %d, %v; want %d", name, tok, got, ok, r)
			}
		}
	}
	if _, err := Load("p50k_base"); !errors.Is(err, ErrUnknownEncoding) {
		t.Errorf("Load(p50k_base): %v, want ErrUnknownEncoding", err)
	}
}

func TestBadIndex(t *testing.T) {
	for _, index := range []string{"", "bpe1", strings.Repeat("x", headerSize+pairsSize), o200kIndex[:len(o200kIndex)-8]} {
		if _, err := newVocab(o200kTokens, index); !errors.Is(err, errBadIndex) {
			t.Errorf("newVocab with an index of %d bytes: %v, want errBadIndex", len(index), err)
		}
	}
	for _, tokens := range []string{"\x01a\x01a", "\x00", "\x05ab", "\x01a"} {
		if _, err := buildIndex(tokens); err == nil {
			t.Errorf("buildIndex(%q) accepted it", tokens)
		}
	}
}

// A lookup stops at the end of the run of entries its hash lands in: the
// longest run bounds what any text can make one lookup cost.
func TestLongestProbe(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		v := load(t, name).vocab
		longest, run := 0, 0
		for i := 0; i < 2*len(v.table)/8; i++ { // twice round, for the run that wraps
			if le64(v.table, i%(len(v.table)/8)*8) == 0 {
				run = 0
				continue
			}
			run++
			longest = max(longest, run)
		}
		t.Logf("%s: longest run of entries %d", name, longest)
		if longest > 64 {
			t.Errorf("%s: a run of %d entries in the index", name, longest)
		}
	}
}

// The examples of tiktoken's own tests and of the bug that started this
// package: DEL counts.
func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []uint32
	}{
		{Cl100kBase, "hello world", []uint32{15339, 1917}},
		{O200kBase, "hello world", []uint32{24912, 2375}},
		{Cl100kBase, "a\x7fb", nil},
		{O200kBase, "a\x7fb", nil},
		{O200kBase, "\x7f\x7f\x7f", nil},
		{O200kBase, "", []uint32{}},
	} {
		e := load(t, tc.name)
		got := e.Encode(tc.text)
		if tc.want != nil && !equal(got, tc.want) {
			t.Errorf("%s: Encode(%q) = %v, want %v", tc.name, tc.text, got, tc.want)
		}
		if n := e.Count(tc.text); n != len(got) {
			t.Errorf("%s: Count(%q) = %d, len(Encode) = %d", tc.name, tc.text, n, len(got))
		}
		if strings.Contains(tc.text, "\x7f") && len(got) < strings.Count(tc.text, "\x7f") {
			t.Errorf("%s: %q gives %d tokens: DEL vanished", tc.name, tc.text, len(got))
		}
	}
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzSplit: the pre-tokenizers' pieces are never empty and, joined, give
// back the text: no text can vanish, valid UTF-8 or not.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"hello world", "a\x7fb", "  \n\r\n x", "don't I'M", "中文🙂 ǅᵃ\u0301", "1234567", "\xff\xfe'", "\ufeff\u2028\u00a0x"} {
		f.Add(s)
	}
	splits := map[string]func(string, int) int{O200kBase: nextO200k, Cl100kBase: nextCl100k}
	f.Fuzz(func(t *testing.T, s string) {
		for name, split := range splits {
			var joined strings.Builder
			for i := 0; i < len(s); {
				j := split(s, i)
				if j <= i || j > len(s) {
					t.Fatalf("%s: piece at %d of %q ends at %d", name, i, s, j)
				}
				if utf8.ValidString(s) && !utf8.ValidString(s[i:j]) {
					t.Fatalf("%s: piece %q of %q cuts a code point", name, s[i:j], s)
				}
				joined.WriteString(s[i:j])
				i = j
			}
			if joined.String() != s {
				t.Fatalf("%s: pieces give %q, want %q", name, joined.String(), s)
			}
		}
	})
}

// FuzzMerge: the merge of long pieces (buckets by rank) gives what
// tiktoken's scan gives, on any piece, and Count is len(Encode).
func FuzzMerge(f *testing.F) {
	for _, s := range []string{strings.Repeat("a", 300), strings.Repeat(" ", 200), strings.Repeat("中文字", 40), "aaabbbaaabbbaaabbb", strings.Repeat("ab", 70), strings.Repeat("🙂", 20)} {
		f.Add(s)
	}
	encs := []*Encoding{load(f, O200kBase), load(f, Cl100kBase)}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) < 2 {
			return
		}
		for _, e := range encs {
			want := e.vocab.mergeScan(s, new(merger), nil)
			got := e.vocab.mergeLong(s, new(merger), nil)
			if !equal(got, want) {
				t.Fatalf("%s: %q: buckets give %v, the scan %v", e.Name(), s, got, want)
			}
			if n := e.Count(s); n != len(e.Encode(s)) {
				t.Fatalf("%s: %q: Count %d, len(Encode) %d", e.Name(), s, n, len(e.Encode(s)))
			}
		}
	})
}

// One Encoding serves many goroutines: each gets the count it would get
// alone (run with -race).
func TestConcurrentCount(t *testing.T) {
	e := load(t, O200kBase)
	texts := []string{strings.Repeat("a", 5000), strings.Repeat("中文字 ", 300), strings.Repeat("don't stop\r\n", 200), strings.Repeat(" ", 4000)}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = len(e.Encode(s))
	}
	done := make(chan error)
	for g := range 8 {
		go func() {
			for k := range 50 {
				i := (g + k) % len(texts)
				if n := e.Count(texts[i]); n != want[i] {
					done <- fmt.Errorf("text %d: %d, want %d", i, n, want[i])
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// The merge of long pieces gives what tiktoken's scan gives on runs of
// every ASCII character and of short patterns, at many lengths.
func TestMergeLongPieces(t *testing.T) {
	var pieces []string
	for c := 0; c < 128; c++ {
		for _, n := range []int{64, 65, 100, 127, 128, 129, 255, 256, 257, 1000, 1001} {
			pieces = append(pieces, strings.Repeat(string(rune(c)), n))
		}
	}
	for _, unit := range []string{"ab", "aab", "abc", "  x", "中", "中文", "🙂", "é", "\r\n", "0123", "aA", "=-", "_a"} {
		for _, n := range []int{40, 41, 97, 300} {
			pieces = append(pieces, strings.Repeat(unit, n))
		}
	}
	for _, e := range []*Encoding{load(t, O200kBase), load(t, Cl100kBase)} {
		m := new(merger)
		for _, s := range pieces {
			if got, want := e.vocab.mergeLong(s, m, nil), e.vocab.mergeScan(s, new(merger), nil); !equal(got, want) {
				t.Errorf("%s: %q (%d bytes): buckets give %d tokens, the scan %d", e.Name(), abbreviate(s), len(s), len(got), len(want))
			}
		}
	}
}

// A merge can make a pair of lower rank than its own where a longer token
// came before its prefix in the vocabulary: the long-piece merge takes that
// pair first, as tiktoken's scan does. tiktoken's vocabularies seldom do
// this, so a small vocabulary of its own makes it happen.
func TestMergeLowerRankFirst(t *testing.T) {
	var tokens []byte
	add := func(tok string) { tokens = append(append(tokens, byte(len(tok))), tok...) }
	for b := 0; b < 256; b++ {
		add(string([]byte{byte(b)}))
	}
	for _, tok := range []string{"xyx", "abc", "cab", "xy", "ab", "bc", "abcab", "ca"} {
		add(tok)
	}
	index, err := buildIndex(string(tokens))
	if err != nil {
		t.Fatal(err)
	}
	v, err := newVocab(string(tokens), string(index))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{strings.Repeat("xy", 40), strings.Repeat("xyxab", 20), strings.Repeat("abc", 30), strings.Repeat("ab", 40) + "c", strings.Repeat("cab", 25), strings.Repeat("abcx", 20)} {
		got, want := v.mergeLong(s, new(merger), nil), v.mergeScan(s, new(merger), nil)
		if !equal(got, want) {
			t.Errorf("%q: buckets give %v, the scan %v", s, got, want)
		}
	}
}

// The class table (Unicode 16.0.0) agrees with Go's unicode package
// (15.0.0 in Go 1.26) on every code point both know; the rest were assigned
// in between.
func TestClassesAgreeWithGo(t *testing.T) {
	goNewer := !strings.HasPrefix(unicode.Version, "15.")
	unassigned := unicode.Categories["Cn"]
	if unassigned == nil {
		t.Skip("Go's unicode package has no Cn table")
	}
	goClass := func(r rune) (class, bool) {
		var c class
		switch {
		case unicode.Is(unassigned, r):
			return 0, false // unassigned in Go's Unicode version
		case unicode.Is(unicode.Ll, r):
			c = cLower | cLetter
		case unicode.In(r, unicode.Lu, unicode.Lt):
			c = cUpper | cLetter
		case unicode.In(r, unicode.Lm, unicode.Lo):
			c = cUpper | cLower | cLetter
		case unicode.Is(unicode.M, r):
			c = cUpper | cLower
		case unicode.Is(unicode.N, r):
			c = cNumber
		case unicode.Is(unicode.White_Space, r):
			c = cSpace
		}
		if r == '\r' || r == '\n' {
			c |= cNewline
		}
		return c, true
	}
	newer := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		want, known := goClass(r)
		if !known {
			if runeClass(r) != 0 {
				newer++
			}
			continue
		}
		got := runeClass(r)
		if got == 0 && goNewer {
			continue // perhaps assigned after 16.0.0
		}
		if got != want {
			t.Errorf("U+%04X: class %06b, Go's unicode %06b", r, got, want)
		}
	}
	t.Logf("%d letters, marks and numbers assigned since Unicode %s", newer, unicode.Version)
	if newer == 0 && !goNewer {
		t.Error("no code point is newer than Go's tables: is the table Unicode 16.0.0?")
	}
}

// splitJudges are Go's own regular expressions for the split patterns, less
// the alternatives that start with \s: on text without white space they must
// give the pieces the pre-tokenizers give. Go's regexp has no lookahead,
// which only those alternatives use, and matches leftmost-first as a
// backtracking engine does.
var splitJudges = map[string]string{
	O200kBase:  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*`,
	Cl100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*`,
}

// FuzzSplitRegexp holds the pre-tokenizers to Go's regexp on text without
// white space, and without the code points that Unicode assigned after the
// version Go's tables have.
func FuzzSplitRegexp(f *testing.F) {
	for _, s := range []string{"\u0301ABC's", "-\u0301AB", "a\u0301\u0301XY", "HTTPServer's", "ǅungla'LL", "x'ſ", "12345中文🙂", "'re'RE'd"} {
		f.Add(s)
	}
	splits := map[string]func(string, int) int{O200kBase: nextO200k, Cl100kBase: nextCl100k}
	judges := map[string]*regexp.Regexp{}
	for name, pat := range splitJudges {
		judges[name] = regexp.MustCompile(pat)
	}
	unassigned := unicode.Categories["Cn"]
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || unassigned == nil {
			return
		}
		s = strings.Map(func(r rune) rune {
			if unicode.Is(unicode.White_Space, r) || unicode.Is(unassigned, r) {
				return -1
			}
			return r
		}, s)
		for name, split := range splits {
			var got []string
			for i := 0; i < len(s); {
				j := split(s, i)
				got = append(got, s[i:j])
				i = j
			}
			want := judges[name].FindAllString(s, -1)
			if strings.Join(want, "") != s {
				t.Fatalf("%s: the judge does not cover %q", name, s)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %q: pieces %q, regexp %q", name, s, got, want)
			}
		}
	})
}

// TestIdleMergers: the mergers kept for the next counts are bounded in
// number, and one that merged a huge piece keeps none of its nodes.
func TestIdleMergers(t *testing.T) {
	e, err := Load(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	// A run of one letter that is no token is one piece, merged long.
	if n := e.Count(strings.Repeat("\u0b8a", 200_000)); n == 0 {
		t.Fatal("no tokens")
	}
	if len(e.idle) != 1 || e.idle[0].nodes != nil {
		t.Fatalf("after a huge piece: %d idle, nodes of %d kept", len(e.idle), cap(e.idle[0].nodes))
	}
	var wg sync.WaitGroup
	for range 4 * maxIdleMergers {
		wg.Go(func() { e.Count(strings.Repeat("日本語のテキスト ", 50)) })
	}
	wg.Wait()
	if len(e.idle) > maxIdleMergers {
		t.Fatalf("%d idle mergers kept, at most %d", len(e.idle), maxIdleMergers)
	}
}
