package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/grep"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/wire"
)

// grepResult reads a grep answer back: its text, written as ripgrep
// --heading -n writes, into lines (a path after a blank line or at the
// start; then "N:text", "N-text" or "--"), its [folio] notes, and its
// _meta.
func grepResult(t *testing.T, r result) grep.Result {
	t.Helper()
	if r.isError {
		t.Fatalf("grep: %s", r.text)
	}
	var g grep.Result
	files, _ := r.meta[wire.MetaFilesSearched].(float64)
	g.FilesSearched, _ = int(files), 0
	g.Truncated, _ = r.meta[wire.MetaTruncated].(bool)
	g.Matches = []grep.Line{}
	path := ""
	for line := range strings.Lines(r.text) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "[folio] "):
			g.Note = strings.TrimPrefix(line, "[folio] ")
		case line == "":
			path = ""
		case path == "":
			path = line
			if strings.HasPrefix(line, `"`) {
				if err := json.Unmarshal([]byte(line), &path); err != nil {
					t.Fatalf("a quoted path %s: %v", line, err)
				}
			}
		case line == "--":
		default:
			end := strings.IndexAny(line, ":-")
			n, err := strconv.Atoi(line[:max(end, 0)])
			if end < 0 || err != nil {
				t.Fatalf("not a line of a grep answer: %q in\n%s", line, r.text)
			}
			g.Matches = append(g.Matches, grep.Line{Path: path, Line: n, Text: line[end+1:], Context: line[end] == '-'})
		}
	}
	return g
}

// brief writes matches as rel:line:text, with "-" for context lines.
func brief(_ *env, g grep.Result) string {
	var lines []string
	for _, m := range g.Matches {
		sep := ":"
		if m.Context {
			sep = "-"
		}
		lines = append(lines, m.Path+sep+itoa(m.Line)+sep+m.Text)
	}
	return strings.Join(lines, "\n")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestGrep(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "alpha\nBeta\r\ngamma beta\ndelta\nepsilon\nzeta beta\n")
	e.write(t, "sub/b.go", "package b\n// beta.x (regexp dot)\nvar betaX = 1\n")
	e.write(t, "sub/deep/c.md", "no match here\n")
	e.write(t, ".env", "beta=secret\n")
	e.write(t, "bin.dat", "beta\x00\x01\x02")
	os.WriteFile(filepath.Join(e.dir, "bad.txt"), []byte("beta \xff\xfe"), 0o644)
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)

	for _, tc := range []struct {
		name  string
		args  map[string]any
		want  string
		files int
	}{
		{"regexp", map[string]any{"pattern": `beta\b`}, "a.md:3:gamma beta\na.md:6:zeta beta\nsub/b.go:2:// beta.x (regexp dot)", 3},
		{"ignore case, CRLF line", map[string]any{"pattern": "^beta$", "ignore_case": true}, "a.md:2:Beta", 3},
		{"literal", map[string]any{"pattern": "beta.x", "literal": true}, "sub/b.go:2:// beta.x (regexp dot)", 3},
		{"literal dot", map[string]any{"pattern": "b.ta", "literal": true}, "", 3},
		{"regexp dot", map[string]any{"pattern": "b.ta", "path": "sub"}, "sub/b.go:2:// beta.x (regexp dot)\nsub/b.go:3:var betaX = 1", 2},
		{"glob", map[string]any{"pattern": "beta", "glob": "**/*.go"}, "sub/b.go:2:// beta.x (regexp dot)\nsub/b.go:3:var betaX = 1", 1},
		{"directory", map[string]any{"pattern": "match", "path": "sub/deep"}, "sub/deep/c.md:1:no match here", 1},
		{"one file", map[string]any{"pattern": "a$", "path": "a.md"}, "a.md:1:alpha\na.md:2:Beta\na.md:3:gamma beta\na.md:4:delta\na.md:6:zeta beta", 1},
		{"context", map[string]any{"pattern": "gamma|zeta", "path": "a.md", "context": 1}, "a.md-2-Beta\na.md:3:gamma beta\na.md-4-delta\na.md-5-epsilon\na.md:6:zeta beta", 1},
		{"context overlap", map[string]any{"pattern": "Beta|gamma", "path": "a.md", "context": 2}, "a.md-1-alpha\na.md:2:Beta\na.md:3:gamma beta\na.md-4-delta\na.md-5-epsilon", 1},
		{"max_matches", map[string]any{"pattern": "beta", "max_matches": 2}, "a.md:3:gamma beta\na.md:6:zeta beta", 2},
		{"no match", map[string]any{"pattern": "omega"}, "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := grepResult(t, call(t, cs, "grep", tc.args))
			if got := brief(e, g); got != tc.want || g.FilesSearched != tc.files {
				t.Errorf("got (%d files)\n%s\nwant (%d files)\n%s", g.FilesSearched, got, tc.files, tc.want)
			}
			if g.Truncated != (tc.name == "max_matches") || g.Truncated != (g.Note != "" && !strings.HasPrefix(g.Note, "no matches")) {
				t.Errorf("truncated %v, note %q", g.Truncated, g.Note)
			}
		})
	}
	for _, tc := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{}, "invalid_argument"},
		{map[string]any{"pattern": ""}, "invalid_argument"},
		{map[string]any{"pattern": "a(b"}, "invalid_argument"},
		{map[string]any{"pattern": "a", "context": 21}, "invalid_argument"},
		{map[string]any{"pattern": "a", "max_matches": 0}, "invalid_argument"},
		{map[string]any{"pattern": "a", "glob": "[", "path": "sub"}, "invalid_argument"},
		{map[string]any{"pattern": "a", "glob": "*.md", "path": "a.md"}, "invalid_argument"},
		{map[string]any{"pattern": "a", "path": ".env"}, "not_found"},
		{map[string]any{"pattern": "a", "path": "../"}, "not_found"},
		{map[string]any{"pattern": "a", "path": "bin.dat"}, "not_text"},
		{map[string]any{"pattern": "a", "unknown": true}, "invalid_argument"},
	} {
		wantCode(t, call(t, cs, "grep", tc.args), tc.code)
	}
}

// TestGrepFollowsAllowList: a token sees matches only in its allowed files.
func TestGrepFollowsAllowList(t *testing.T) {
	e := newEnv(t)
	e.write(t, "docs/a.md", "needle\n")
	e.write(t, "src/b.go", "needle\n")
	tok := e.addToken(t, "gina", "docs/**")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)
	g := grepResult(t, call(t, cs, "grep", map[string]any{"pattern": "needle"}))
	if got := brief(e, g); got != "docs/a.md:1:needle" || g.FilesSearched != 1 {
		t.Errorf("got %q in %d files", got, g.FilesSearched)
	}
	wantCode(t, call(t, cs, "grep", map[string]any{"pattern": "needle", "path": "src/b.go"}), "not_found")
}

// ripgrepTree is ripgrep, the judge of grep and globs, and an env of a
// copy of Go's net/http for it and folio to search. Without rg the test is
// skipped, unless FOLIO_REQUIRE_RIPGREP is set (as in CI).
func ripgrepTree(t *testing.T) (rg string, e *env) {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_RIPGREP") != "" {
			t.Fatalf("rg is required (FOLIO_REQUIRE_RIPGREP is set): %v", err)
		}
		t.Skip("ripgrep is not installed (apt-get install ripgrep)")
	}
	e = newEnv(t)
	if err := os.CopyFS(e.dir, os.DirFS(mcptest.GoSource(t, "net", "http"))); err != nil {
		t.Fatal(err)
	}
	return rg, e
}

// TestGrepCostAgainstRipgrep: a grep answer costs at most 1.15 times the
// tokens (o200k_base) of ripgrep's own output, rg --heading -n with the
// same context, on the same matches in a copy of Go's net/http: about 1,
// 30 and 300 of them, with no context and with 3 lines. ripgrep (Debian's
// package) is the judge.
func TestGrepCostAgainstRipgrep(t *testing.T) {
	rg, e := ripgrepTree(t)
	// Whole answers, however large, to compare with ripgrep's.
	cs := dialMemory(t, e.server(t, serverOpts{local: true, threshold: 1 << 20}), nil)
	c := counter(t, tokencount.O200kBase)
	for _, tc := range []struct {
		pattern  string
		min, max int // matches
	}{
		{`func ServeTLS\(`, 1, 3},
		{`ReadHeaderTimeout`, 15, 60},
		{`Header\(\)`, 200, 500},
	} {
		for _, context := range []int{0, 3} {
			cmd := exec.Command(rg, "--heading", "-n", "--sort", "path", "-C", strconv.Itoa(context), "--", tc.pattern)
			cmd.Dir = e.dir
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("rg %s: %v", tc.pattern, err)
			}
			r := call(t, cs, "grep", map[string]any{"pattern": tc.pattern, "context": context, "max_matches": 1000})
			g := grepResult(t, r)
			matches := 0
			for _, m := range g.Matches {
				if !m.Context {
					matches++
				}
			}
			rgMatches := 0
			for line := range strings.Lines(string(want)) {
				if i := strings.IndexAny(line, ":-"); i > 0 && line[i] == ':' {
					if _, err := strconv.Atoi(line[:i]); err == nil {
						rgMatches++
					}
				}
			}
			if matches != rgMatches || matches < tc.min || matches > tc.max {
				t.Errorf("%s -C %d: folio found %d matches, ripgrep %d (want %d to %d)", tc.pattern, context, matches, rgMatches, tc.min, tc.max)
			}
			ours, theirs := c.Count(r.text), c.Count(string(want))
			ratio := float64(ours) / float64(theirs)
			t.Logf("%-22s -C %d: %4d matches, folio %6d tokens, ripgrep %6d: %.3fx", tc.pattern, context, matches, ours, theirs, ratio)
			if ratio > 1.15 {
				t.Errorf("%s -C %d: %d tokens, %.3f times ripgrep's %d", tc.pattern, context, ours, ratio, theirs)
			}
		}
	}
}

// TestGrepLongLinesAndOddNames: a hit in a minified line of 200,000
// characters gives its first 2,000 and a marker, and the answer says how
// to read the line whole (a call that works); a name with a newline in it
// is quoted, so that it cannot pass for lines of the answer.
func TestGrepLongLinesAndOddNames(t *testing.T) {
	e := newEnv(t)
	long := "var a=1;needle;" + strings.Repeat("x=y+1;", 33_333)
	e.write(t, "dist/app.min.js", "// header\n"+long+"\n")
	e.write(t, "odd\n5:fake.md", "needle here\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	r := call(t, cs, "grep", map[string]any{"pattern": "needle"})
	want := "dist/app.min.js\n2:" + long[:2000] + fmt.Sprintf("…[+%d characters]\n", len(long)-2000) +
		"\n\"odd\\n5:fake.md\"\n1:needle here\n" +
		`[folio] lines over 2000 characters were cut: read one whole with read {"path":"dist/app.min.js","line":2,"max_tokens":2000}` + "\n"
	if r.text != want {
		t.Fatalf("got\n%.400s\nwant\n%.400s", r.text, want)
	}
	if g := grepResult(t, r); len(g.Matches) != 2 || g.Matches[1].Path != "odd\n5:fake.md" {
		t.Errorf("read back: %+v", g.Matches)
	}
	page := call(t, cs, "read", map[string]any{"path": "dist/app.min.js", "line": 2, "max_tokens": 2000})
	if page.isError || !strings.Contains(page.text, "var a=1;needle;") {
		t.Errorf("the call the note gives: %.300s", page.text)
	}
}

// TestGlobsAgreeWithRipgrep: list's and grep's globs pick the files
// ripgrep's -g picks, in a copy of Go's net/http: a glob without "/"
// matches names at any depth, one with "/" paths relative to the
// directory ("/*.go" its own files only).
func TestGlobsAgreeWithRipgrep(t *testing.T) {
	rg, e := ripgrepTree(t)
	cs := dialMemory(t, e.server(t, serverOpts{local: true, threshold: 1 << 20}), nil)
	for _, glob := range []string{"*.go", "*_test.go", "cgi/*.go", "/*.go", "**/testdata/*", "httptest/*", "*.{go,txt}", "[a-c]*.go"} {
		cmd := exec.Command(rg, "--files", "--sort", "path", "-g", glob)
		cmd.Dir = e.dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("rg --files -g %s: %v", glob, err)
		}
		want := strings.Fields(string(out))
		l := listing(t, call(t, cs, "list", map[string]any{"recursive": true, "glob": glob}))
		var listed []string
		for _, en := range l.Entries {
			if en.Type == "file" {
				listed = append(listed, en.Path)
			}
		}
		if !slices.Equal(listed, want) {
			t.Errorf("list -g %s: %d files, ripgrep %d:\nonly folio %v\nonly ripgrep %v", glob, len(listed), len(want), minus(listed, want), minus(want, listed))
		}
		g := grepResult(t, call(t, cs, "grep", map[string]any{"pattern": "no such text zq", "glob": glob}))
		if g.FilesSearched != len(want) {
			t.Errorf("grep -g %s searched %d files, ripgrep has %d", glob, g.FilesSearched, len(want))
		}
	}
	// A glob that matches nothing says what it was matched against.
	r := grepResult(t, call(t, cs, "grep", map[string]any{"pattern": "x", "glob": "*.rs"}))
	if !strings.Contains(r.Note, `matched none of the`) || !strings.Contains(r.Note, "names at any depth") {
		t.Errorf("a glob that matched nothing: %q", r.Note)
	}
}

// minus is what a holds that b does not.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestGrepIgnoreCaseAgainstRipgrep: case-insensitive greps, which skip
// chunks without their literal in any case, find what ripgrep -i finds in
// a copy of Go's net/http, a literal and regular expressions, and letters
// outside ASCII that fold to ASCII ones (the Kelvin sign to k, the long s
// to s) too.
func TestGrepIgnoreCaseAgainstRipgrep(t *testing.T) {
	rg, e := ripgrepTree(t)
	// Each alone in its file: only the fold to ASCII finds them.
	e.write(t, "kelvin.txt", "a \u212AEEP-alive line\nnothing\n")
	e.write(t, "longs.txt", "ſtop here\nnothing\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true, threshold: 1 << 20}), nil)
	for _, tc := range []struct {
		pattern string
		literal bool
	}{
		{"readheadertimeout", true},
		{"keep-alive", true},
		{`servetls\(`, false},
		{`stop h[a-z]+`, false},
		{`(?:x|y)-forwarded`, false},
	} {
		args := []string{"-i", "-n", "--no-heading", "--sort", "path"}
		if tc.literal {
			args = append(args, "-F")
		}
		cmd := exec.Command(rg, append(args, "--", tc.pattern)...)
		cmd.Dir = e.dir
		out, _ := cmd.Output()
		var want []string
		for line := range strings.Lines(string(out)) {
			parts := strings.SplitN(line, ":", 3)
			want = append(want, parts[0]+":"+parts[1])
		}
		g := grepResult(t, call(t, cs, "grep", map[string]any{"pattern": tc.pattern, "literal": tc.literal, "ignore_case": true, "max_matches": 10000}))
		var got []string
		for _, m := range g.Matches {
			got = append(got, m.Path+":"+itoa(m.Line))
		}
		if len(want) == 0 || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: folio %d matches, ripgrep %d:\nfolio   %v\nripgrep %v", tc.pattern, len(got), len(want), got, want)
		}
	}
}
