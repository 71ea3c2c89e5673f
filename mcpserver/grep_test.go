package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/search"
)

func grepResult(t *testing.T, r result) search.Result {
	t.Helper()
	if r.isError {
		t.Fatalf("grep: %s", r.text)
	}
	var g search.Result
	if err := json.Unmarshal([]byte(r.text), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// brief writes matches as rel:line:text, with "-" for context lines.
func brief(e *env, g search.Result) string {
	var lines []string
	for _, m := range g.Matches {
		sep := ":"
		if m.Context {
			sep = "-"
		}
		rel := strings.TrimPrefix(m.URI, fsview.URI(e.dir)+"/")
		lines = append(lines, rel+sep+itoa(m.Line)+sep+m.Text)
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
			if g.Truncated != (tc.name == "max_matches") || g.Truncated != (g.Note != "") {
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
