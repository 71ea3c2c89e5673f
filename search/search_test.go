package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
)

// newSearcher is New, with the error as the contract's.
func newSearcher(o Options) (*Searcher, *toolerr.Error) {
	g, err := New(o)
	if err != nil {
		return nil, err.(*toolerr.Error)
	}
	return g, nil
}

// FuzzGrepPattern: any pattern either is refused as invalid_argument or
// compiles, and a line the per-line expression matches is never skipped by
// the whole-file check.
func FuzzGrepPattern(f *testing.F) {
	for _, p := range []string{"a", "^b$", `\Qx`, "(?i)é", `a\b`, "[^x]", `\Ay\z`} {
		f.Add(p, false, "a\r\nb\nxy\n")
	}
	f.Fuzz(func(t *testing.T, pattern string, literal bool, text string) {
		g, e := newSearcher(Options{Pattern: pattern, Literal: literal, MaxMatches: DefaultMaxMatches})
		if e != nil {
			if e.Code != toolerr.CodeInvalidArgument {
				t.Fatalf("code %s", e.Code)
			}
			return
		}
		if g.filter == nil || g.filter.MatchString(text) {
			return
		}
		for _, line := range strings.Split(text, "\n") {
			if g.line.MatchString(strings.TrimSuffix(line, "\r")) {
				t.Fatalf("pattern %q matches line %q, but the file check skips %q", pattern, line, text)
			}
		}
	})
}

// FuzzGrepChunks: searching a file in small chunks (skipping those the
// whole-chunk check rules out, and reading long lines a rune at a time)
// gives the same lines, context included, as searching it in one piece.
func FuzzGrepChunks(f *testing.F) {
	f.Add("b", "a\nb\r\nc\nd\ne\nb\nf\n", 1, 3)
	f.Add("^x", "x\nyy\nzzzz\nx", 2, 1)
	f.Add("[0-9]+", "aaaaaaaa\n123\n\n\nbbbbbbbb\n4\n", 0, 5)
	f.Fuzz(func(t *testing.T, pattern, text string, lines, chunk int) {
		if lines < 0 || lines > 5 || chunk < 1 || chunk > 64 || !utf8.ValidString(text) {
			return
		}
		g, e := newSearcher(Options{Pattern: pattern, Context: lines, MaxMatches: DefaultMaxMatches})
		if e != nil {
			return
		}
		whole := g.file(context.Background(), "u", []byte(text))
		g.chunk = chunk
		chunked := g.file(context.Background(), "u", []byte(text))
		if !reflect.DeepEqual(whole.lines, chunked.lines) || whole.matches != chunked.matches {
			t.Fatalf("pattern %q, context %d, chunk %d:\nwhole   %+v\nchunked %+v", pattern, lines, chunk, whole.lines, chunked.lines)
		}
	})
}

// TestCancelledSearchIsNoAnswer: a search whose caller leaves after the walk
// is done, while its files are being searched, ends with the caller's error,
// not with what it found so far as if that were the answer.
func TestCancelledSearchIsNoAnswer(t *testing.T) {
	dir := t.TempDir()
	// Two files: the walk hands both to the workers and is done long
	// before either is searched.
	line := strings.Repeat("abcdefghij", 10_000)
	for i := range 2 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.txt", i)), []byte(strings.Repeat(line+"\n", 9)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := fsview.Open([]string{dir}, fsview.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	g, e := newSearcher(Options{Pattern: "[a-j]{1,450}Z", MaxMatches: DefaultMaxMatches, MaxBytes: 1 << 20, Timeout: time.Hour})
	if e != nil {
		t.Fatal(e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err := g.Search(ctx, fs, ".", "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled search answered %d files searched, truncated %v; err %v", res.FilesSearched, res.Truncated, err)
	}
	// Its time budget spent the same way, it answers what it found,
	// marked truncated.
	g, _ = newSearcher(Options{Pattern: "[a-j]{1,450}Z", MaxMatches: DefaultMaxMatches, MaxBytes: 1 << 20, Timeout: 100 * time.Millisecond})
	res, err = g.Search(context.Background(), fs, ".", "")
	if err != nil || !res.Truncated || !strings.Contains(res.Note, "time budget") {
		t.Fatalf("a search out of time: truncated %v, note %q, err %v", res.Truncated, res.Note, err)
	}
}

// FuzzFoldASCII: foldASCII, eight bytes at a time, gives what lowering
// each byte alone gives, and for ASCII text what strings.ToLower gives.
func FuzzFoldASCII(f *testing.F) {
	for _, s := range []string{"", "ABCxyz@[`{", "Hello, World! ZZZZAAAA", "\x80\xc1\xdaÀÉ \u212A", "@AZ[`az{\xc0\xda\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got := make([]byte, len(src))
		foldASCII(got, src)
		for i, c := range src {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 32
			}
			if got[i] != want {
				t.Fatalf("byte %d of %q: %q, want %q", i, src, got[i], want)
			}
		}
		if isASCII(src) && string(got) != strings.ToLower(string(src)) {
			t.Fatalf("%q: %q, strings.ToLower %q", src, got, strings.ToLower(string(src)))
		}
	})
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
