package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokencount"
)

// serveStdio starts folio serve over stdio on the roots, with more flags,
// and connects the go-sdk client to it.
func serveStdio(t *testing.T, roots []string, flags ...string) *mcp.ClientSession {
	args := []string{"serve", "--log-level", "error"}
	for _, r := range roots {
		args = append(args, "--root", r)
	}
	cmd := exec.Command(folioBin, append(args, flags...)...)
	cmd.Env = testmain.Env(t)
	return dial(t, &mcp.CommandTransport{Command: cmd})
}

// lineAnswer is a line-mode answer split at its _meta's content length.
type lineAnswer struct {
	lines, footer string
	meta          mcp.Meta
}

func readLines(t *testing.T, cs *mcp.ClientSession, args map[string]any) lineAnswer {
	t.Helper()
	res := mcptest.Call(t, cs, "read", args)
	text := mcptest.Text(res)
	if res.IsError {
		t.Fatalf("read %v: %.300s", args, text)
	}
	n, ok := res.Meta["folio/content_bytes"].(float64)
	if !ok || int(n) > len(text) {
		t.Fatalf("read %v: _meta %v", args, res.Meta)
	}
	footer, ok := strings.CutPrefix(text[int(n):], "\n")
	if !ok {
		t.Fatalf("read %v: no newline before the footer: %.300q", args, text)
	}
	return lineAnswer{text[:int(n)], footer, res.Meta}
}

// TestAgentHabits reads the way an agent does, through the real binary and
// the go-sdk client: a large log with no limit, its tail, a grep hit read
// back by line and as a page, globs relative to the directory, two roots.
func TestAgentHabits(t *testing.T) {
	t.Parallel()
	dir, other := t.TempDir(), t.TempDir()
	var log strings.Builder
	for i := 1; log.Len() < 5<<20; i++ {
		fmt.Fprintf(&log, "2026-12-01T06:%02d:%02d level=info request=%d path=/api/v1/items status=200 took=%dms\n", i/60%60, i%60, i, i%97)
	}
	logText := log.String()
	write(t, dir, "app.log", logText)
	total := strings.Count(logText, "\n")
	write(t, dir, "net/http/server.go", "package http\n\nfunc Serve() {}\n\n// ListenAndServe listens.\nfunc ListenAndServe() {}\n")
	write(t, other, "notes.md", "other root\n")
	cs := serveStdio(t, []string{dir, other})
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}

	// The 5 MB log with no limit: under the cap, and the footer says how
	// to go on.
	a := readLines(t, cs, map[string]any{"path": "app.log"})
	if n := counter.Count(a.lines + "\n" + a.footer); n > reader.DefaultLineMaxTokens {
		t.Fatalf("the answer counts %d tokens, over the cap", n)
	}
	lines := strings.SplitAfter(logText, "\n")
	given := strings.Count(a.lines, "\n")
	if given == 0 || given > reader.DefaultLines || a.lines != strings.Join(lines[:given], "") {
		t.Fatalf("%d lines given, not the file's first lines", given)
	}
	next := fmt.Sprintf(`read {"path":"app.log","offset":%d}`, given+1)
	if !strings.Contains(a.footer, next) || !strings.Contains(a.footer, fmt.Sprintf("of %d", total)) || a.meta["folio/total_lines"] != float64(total) {
		t.Fatalf("footer %q lacks %s", a.footer, next)
	}
	// The call it names goes on where the answer stopped.
	var call map[string]any
	if err := json.Unmarshal([]byte(next[len("read "):]), &call); err != nil {
		t.Fatal(err)
	}
	b := readLines(t, cs, call)
	if !strings.HasPrefix(b.lines, lines[given]) {
		t.Fatalf("the next call starts with %.80q, want %.80q", b.lines, lines[given])
	}

	// A tail: the last 100 lines.
	tail := readLines(t, cs, map[string]any{"path": "app.log", "offset": -100})
	if tail.lines != strings.Join(lines[total-100:total], "") || !strings.Contains(tail.footer, fmt.Sprintf("lines %d-%d of %d", total-99, total, total)) || !strings.Contains(tail.footer, "end of file") {
		t.Fatalf("tail: %d lines, footer %q", strings.Count(tail.lines, "\n"), tail.footer)
	}
	// Past the end.
	res := mcptest.Call(t, cs, "read", map[string]any{"path": "app.log", "offset": total + 1})
	if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, fmt.Sprintf("it has %d lines", total)) {
		t.Fatalf("past the end: %.300s", text)
	}

	// grep → read: the line grep reports is the line read gives, by offset
	// and as the first page's first line.
	res = mcptest.Call(t, cs, "grep", map[string]any{"pattern": "request=12345 ", "path": "app.log"})
	// One file, one match: "app.log", then "N:text".
	lines = strings.Split(strings.TrimSuffix(mcptest.Text(res), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "app.log" {
		t.Fatalf("grep: %q", lines)
	}
	num, text, _ := strings.Cut(lines[1], ":")
	n, err := strconv.Atoi(num)
	if err != nil {
		t.Fatalf("grep: %q", lines)
	}
	hit := struct {
		URI  string
		Line int
		Text string
	}{lines[0], n, text}
	byOffset := readLines(t, cs, map[string]any{"path": hit.URI, "offset": hit.Line, "limit": 1})
	if strings.TrimSuffix(byOffset.lines, "\n") != hit.Text {
		t.Fatalf("grep says line %d is %q; read gives %q", hit.Line, hit.Text, byOffset.lines)
	}
	for _, format := range []string{"json", "text"} {
		res = mcptest.Call(t, cs, "read", map[string]any{"path": hit.URI, "max_tokens": 300, "line": hit.Line, "format": format})
		text := mcptest.Text(res)
		var p pager.Decoded
		if format == "json" {
			p, err = pager.Decode([]byte(text))
		} else {
			p, err = pager.DecodeText([]byte(text))
			if n := res.Meta["folio/content_bytes"]; err == nil && n != float64(len(p.Content)) {
				t.Fatalf("_meta says %v content bytes; the page holds %d", n, len(p.Content))
			}
		}
		if err != nil || !strings.HasPrefix(p.Content, hit.Text+"\n") || counter.Count(text) > 300 {
			t.Fatalf("%s page at line %d: %v %.200q", format, hit.Line, err, text)
		}
		// The cursor goes on after the page.
		res = mcptest.Call(t, cs, "read", map[string]any{"path": hit.URI, "max_tokens": 300, "cursor": *p.NextCursor, "format": format})
		if res.IsError {
			t.Fatalf("continuing from a line page: %s", mcptest.Text(res))
		}
	}

	// Globs relative to the directory listed or searched.
	res = mcptest.Call(t, cs, "list", map[string]any{"path": filepath.Join(dir, "net/http"), "glob": "*.go"})
	if text := mcptest.Text(res); text != "net/http/server.go\n" {
		t.Fatalf("list glob relative to path: %s", text)
	}
	res = mcptest.Call(t, cs, "grep", map[string]any{"pattern": "^func ", "path": filepath.Join(dir, "net"), "glob": "http/*.go"})
	if text := mcptest.Text(res); text != "net/http/server.go\n3:func Serve() {}\n6:func ListenAndServe() {}\n" {
		t.Fatalf("grep glob relative to path: %s", text)
	}

	// Two roots: list without path names them.
	res = mcptest.Call(t, cs, "list", map[string]any{})
	want := mustEval(t, dir) + "/\n" + mustEval(t, other) + "/\n[folio] several roots are served: list one with path set to it\n"
	if text := mcptest.Text(res); text != want {
		t.Fatalf("two roots:\n%s", text)
	}
	// A listing of the second root names its files as read takes them:
	// absolute, since relative names resolve against the first.
	if text := mcptest.Text(mcptest.Call(t, cs, "list", map[string]any{"path": other})); text != mustEval(t, other)+"/notes.md\n" {
		t.Fatalf("the second root:\n%s", text)
	}
	l := struct{ Entries []struct{ Path string } }{Entries: []struct{ Path string }{{mustEval(t, dir)}, {mustEval(t, other)}}}
	if a := readLines(t, cs, map[string]any{"path": filepath.Join(l.Entries[1].Path, "notes.md")}); a.lines != "other root\n" {
		t.Fatalf("the second root's file: %q", a.lines)
	}
}

func mustEval(t *testing.T, dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestServeIgnoreFiles: list and grep skip what .gitignore excludes unless
// --no-ignore; a read by name works either way.
func TestServeIgnoreFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, ".gitignore", "gen/\n*.log\n")
	write(t, dir, "gen/out.go", "package gen // needle\n")
	write(t, dir, "debug.log", "needle\n")
	write(t, dir, "main.go", "package main // needle\n")
	for _, tc := range []struct {
		flags []string
		want  int
		list  string
	}{
		{nil, 1, ".gitignore\nmain.go\n[folio] 2 ignored paths not listed (debug.log by .gitignore \"*.log\", gen/ by .gitignore \"gen/\"): list one by its path to see it\n"},
		{[]string{"--no-ignore"}, 3, ".gitignore\ndebug.log\ngen/\ngen/out.go\nmain.go\n"},
	} {
		cs := serveStdio(t, []string{dir}, tc.flags...)
		if text := mcptest.Text(mcptest.Call(t, cs, "list", map[string]any{"recursive": true})); text != tc.list {
			t.Errorf("%v: list shows\n%s", tc.flags, text)
		}
		text := mcptest.Text(mcptest.Call(t, cs, "grep", map[string]any{"pattern": "needle"}))
		if got := strings.Count(text, "1:"); got != tc.want {
			t.Errorf("%v: grep finds %d: %s", tc.flags, got, text)
		}
		if a := readLines(t, cs, map[string]any{"path": "gen/out.go"}); a.lines != "package gen // needle\n" {
			t.Errorf("%v: read by name: %q", tc.flags, a.lines)
		}
	}
}
