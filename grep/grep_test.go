package grep

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

// TestSearchSymlinks: a tree search searches a symlink to a file inside
// the root as that file, once per file: by the file's own name when the
// search finds it by that name (the glob let it through), else under the
// first symlink to it in walk order. Symlinks out of the root, to a denied
// file or to an ignored one are not searched.
func TestSearchSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for name, content := range map[string]string{
		"root/AGENTS.md":     "needle in agents\n",
		"root/docs/notes.md": "needle in notes\n",
		"root/gen/out.md":    "needle generated\n",
		"root/.gitignore":    "gen/\n",
		"root/.env":          "needle=secret\n",
		"outside/secret.md":  "needle outside\n",
	} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"CLAUDE.md":                       "AGENTS.md",
		".github/copilot-instructions.md": "../AGENTS.md", // before AGENTS.md in walk order
		"docs/also.md":                    "../AGENTS.md",
		"docs/readme.md":                  "../AGENTS.md",
		"docs/again.md":                   "notes.md",
		"latest.md":                       "gen/out.md",
		"gen/current.md":                  "out.md",
		"to-env":                          ".env",
		"out.md":                          "../outside/secret.md",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := fsview.Open([]string{root}, fsview.Options{Deny: fsview.DefaultDeny()})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	g, e := newSearcher(Options{Pattern: "needle", MaxMatches: DefaultMaxMatches})
	if e != nil {
		t.Fatal(e)
	}
	for _, tc := range []struct {
		path, glob string
		want       string // path:line of each match
		searched   int
	}{
		{".", "", "AGENTS.md:1 docs/notes.md:1", 3},
		{".", "*.md", "AGENTS.md:1 docs/notes.md:1", 2},
		// CLAUDE.md is searched when the glob leaves its file out.
		{".", "CLAUDE.md", "CLAUDE.md:1", 1},
		{".", "{CLAUDE,GEMINI}.md", "CLAUDE.md:1", 1},
		{".", ".github/*", ".github/copilot-instructions.md:1", 1},
		// AGENTS.md is outside docs: searched under the first symlink.
		{"docs", "", "docs/also.md:1 docs/notes.md:1", 2},
		{"docs", "readme.md", "docs/readme.md:1", 1},
		{"docs", "again.md", "docs/again.md:1", 1},
		// An ignored directory named is searched, its symlinks as its files.
		{"gen", "", "gen/out.md:1", 1},
		{"CLAUDE.md", "", "CLAUDE.md:1", 1},
	} {
		t.Run(tc.path+" "+tc.glob, func(t *testing.T) {
			res, err := g.Search(context.Background(), fs, tc.path, tc.glob)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range res.Matches {
				got = append(got, fmt.Sprintf("%s:%d", l.Path, l.Line))
			}
			if strings.Join(got, " ") != tc.want || res.FilesSearched != tc.searched {
				t.Errorf("matches %q in %d files, want %q in %d", got, res.FilesSearched, tc.want, tc.searched)
			}
		})
	}
}
