package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// docsTree writes a small docs tree: a guide with sections, an HTML page,
// a secret under a directory a token is not allowed, a file the ignore
// file hides and one the deny rules hide, each the best match of a
// question of its own.
func docsTree(t *testing.T, e *env) {
	e.write(t, "guide.md", "# Guide\n\nIntro text.\n\n## Installing\n\nRun the installer with --prefix to choose where the kestrel binaries go.\r\nIt needs no root.\n\n## Configuring\n\nSet KESTREL_HOME to the state directory.\n\n```sh\nexport KESTREL_HOME=/var/kestrel\n```\n")
	e.write(t, "web/page.html", "<html><body><h1>Page</h1><p>The heron endpoint answers &amp; caches for a minute.</p></body></html>")
	e.write(t, "private/plans.md", "# Plans\n\nThe osprey launch is in March.\n")
	e.write(t, ".gitignore", "build/\n")
	e.write(t, "build/out.md", "# Out\n\nThe osprey launch notes, built.\n")
	e.write(t, ".env.md", "osprey launch secret\n")
}

// waitBuilt runs the server's watch and waits for the docs index.
func waitBuilt(t *testing.T, s *Server) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Watch(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	for !s.cfg.Docs.Built() {
		time.Sleep(5 * time.Millisecond)
	}
}

// passageLine is the line that opens a passage.
var passageLine = regexp.MustCompile(`(?m)^(\S+):(\d+)-(\d+)(?: @([0-9a-f]{32}))?(?: § (.*))?$`)

// TestSearchDocs asks search_docs through a real client over HTTP: the
// passage that answers, where it is, its version and headings, its text
// exactly as the file has it (an HTML one's as a reader sees it); answers
// within every budget; what a token
// may not read, what ignore files and deny rules hide, never quoted.
func TestSearchDocs(t *testing.T) {
	e := newEnv(t)
	docsTree(t, e)
	tok := e.addToken(t, "ann", "guide.md", "web/**")
	s := e.server(t, serverOpts{docs: true})
	waitBuilt(t, s)
	cs := dialHTTP(t, serveHTTP(t, s), tok, nil)

	r := call(t, cs, "search_docs", map[string]any{"query": "where do the kestrel binaries get installed?"})
	if r.isError {
		t.Fatal(r.text)
	}
	m := passageLine.FindStringSubmatch(r.text)
	if m == nil || m[1] != "guide.md" || m[2] != "7" || m[3] != "8" || m[4] != hashOf(t, filepath.Join(e.dir, "guide.md")) || m[5] != "Guide › Installing" {
		t.Fatalf("first passage line %q of\n%s", m, r.text)
	}
	if !strings.Contains(r.text, "Run the installer with --prefix to choose where the kestrel binaries go.\r\nIt needs no root.\n") {
		t.Errorf("passage text is not the file's:\n%q", r.text)
	}
	if r.meta["folio/tokens"] == nil || r.meta["folio/tokenizer"] != "o200k_base" {
		t.Errorf("meta %v", r.meta)
	}
	r = call(t, cs, "search_docs", map[string]any{"query": "heron endpoint caches"})
	// An HTML passage is the text a reader sees: tags dropped, entities
	// decoded.
	if !strings.Contains(r.text, "web/page.html:1-1 ") || !strings.Contains(r.text, "\nThe heron endpoint answers & caches for a minute.\n") || strings.Contains(r.text, "<p>") {
		t.Errorf("HTML passage:\n%s", r.text)
	}
	r = call(t, cs, "search_docs", map[string]any{"query": "when is the osprey launch"})
	for _, hidden := range []string{"private/", "build/", ".env", "March"} {
		if strings.Contains(r.text, hidden) {
			t.Errorf("answer quotes %s:\n%s", hidden, r.text)
		}
	}
	if !strings.Contains(r.text, "[folio] nothing in the docs matches") {
		t.Errorf("no note that nothing matched:\n%s", r.text)
	}
	r = call(t, cs, "search_docs", map[string]any{"query": "kestrel state directory", "path": "web"})
	if strings.Contains(r.text, "guide.md") {
		t.Errorf("answer under web/ quotes guide.md:\n%s", r.text)
	}
}

// TestSearchDocsBudgets holds every answer within its budget, counted by
// the server's counter, down to the smallest.
func TestSearchDocsBudgets(t *testing.T) {
	e := newEnv(t)
	for i := range 30 {
		e.write(t, fmt.Sprintf("d%02d.md", i), fmt.Sprintf("# Doc %d\n\n%s\n\n## More\n\n%s\n", i, strings.Repeat("kestrel heron osprey ", 20+i*7), strings.Repeat("osprey 語 ", 50)))
	}
	s := e.server(t, serverOpts{docs: true})
	waitBuilt(t, s)
	cs := dialMemory(t, s, nil)
	c := counter(t, "o200k_base")
	for _, budget := range []int{1, 5, 20, 60, 100, 300, 1000, 2000, 8000} {
		r := call(t, cs, "search_docs", map[string]any{"query": "kestrel osprey", "max_tokens": budget})
		if r.isError {
			if r.code != "budget_too_small" || budget > 60 {
				t.Errorf("budget %d: %s", budget, r.text)
			}
			continue
		}
		if n := c.Count(r.text); n > budget || r.meta["folio/tokens"] != float64(n) {
			t.Errorf("budget %d: answer is %d tokens, meta says %v", budget, n, r.meta["folio/tokens"])
		}
	}
}

// TestSearchDocsFresh changes a document and asks at once, before the
// watch has seen it: the answer quotes what the file says now.
func TestSearchDocsFresh(t *testing.T) {
	e := newEnv(t)
	docsTree(t, e)
	s := e.server(t, serverOpts{docs: true, local: true})
	waitBuilt(t, s)
	cs := dialMemory(t, s, nil)
	guide := filepath.Join(e.dir, "guide.md")
	if err := os.WriteFile(guide, []byte("# Guide\n\n## Installing\n\nThe kestrel installer now takes --root.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := call(t, cs, "search_docs", map[string]any{"query": "kestrel installer"})
	if !strings.Contains(r.text, "now takes --root") || strings.Contains(r.text, "--prefix") {
		t.Errorf("stale answer:\n%s", r.text)
	}
	if err := os.Remove(guide); err != nil {
		t.Fatal(err)
	}
	e.write(t, "new/heron.md", "# Heron\n\nHerons nest in the kestrel tower.\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		r = call(t, cs, "search_docs", map[string]any{"query": "kestrel"})
		if strings.Contains(r.text, "new/heron.md") && !strings.Contains(r.text, "guide.md") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index did not follow the change:\n%s", r.text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSearchDocsArguments refuses what is out of bounds.
func TestSearchDocsArguments(t *testing.T) {
	e := newEnv(t)
	docsTree(t, e)
	s := e.server(t, serverOpts{docs: true, local: true})
	waitBuilt(t, s)
	cs := dialMemory(t, s, nil)
	for _, args := range []map[string]any{
		{"query": ""}, {"query": "  "}, {"query": "x", "max_tokens": 0}, {"query": "x", "max_tokens": 40000},
		{"query": strings.Repeat("word ", 65)}, {"query": strings.Repeat("x", 2001)}, {"query": "x", "extra": 1},
	} {
		wantCode(t, call(t, cs, "search_docs", args), "invalid_argument")
	}
	wantCode(t, call(t, cs, "search_docs", map[string]any{"query": "kestrel", "path": "nowhere"}), "not_found")
	wantCode(t, call(t, cs, "search_docs", map[string]any{"query": "kestrel", "path": "../"}), "not_found")
}
