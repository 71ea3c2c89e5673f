package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// TestAgentPaths: the instructions name the roots; a glob given with a
// directory matches paths relative to it, and one that matches nothing
// says so; a path outside every root says it is; entries carry mtime.
func TestAgentPaths(t *testing.T) {
	e := newEnv(t)
	e.write(t, "net/http/server.go", "package http\n")
	e.write(t, "net/http/doc.md", "docs\n")
	e.write(t, "net/url.go", "package net\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, e.fs.Roots()[0]) {
		t.Errorf("the instructions do not name the root: %s", ins)
	}
	l := listing(t, call(t, cs, "list", map[string]any{"path": "net/http", "glob": "*.go", "details": true}))
	if len(l.Entries) != 1 || l.Entries[0].Path != "net/http/server.go" {
		t.Errorf("glob relative to uri: %+v", l)
	}
	if _, err := time.Parse(time.RFC3339, l.Entries[0].MTime); err != nil {
		t.Errorf("mtime %q: %v", l.Entries[0].MTime, err)
	}
	l = listing(t, call(t, cs, "list", map[string]any{"path": "net/http", "glob": "*.rs"}))
	if len(l.Entries) != 0 || !strings.Contains(l.Note, "matched none of the 2 entries") {
		t.Errorf("a glob that matches nothing: %+v", l)
	}
	g := grepResult(t, call(t, cs, "grep", map[string]any{"pattern": "package", "path": "net/http", "glob": "*.go"}))
	if len(g.Matches) != 1 || g.Matches[0].Path != "net/http/server.go" {
		t.Errorf("grep glob relative to path: %+v", g)
	}
	g = grepResult(t, call(t, cs, "grep", map[string]any{"pattern": "package", "path": "net", "glob": "*.rs"}))
	if !strings.Contains(g.Note, "matched none of the 3 files") {
		t.Errorf("a grep glob that matches nothing: %+v", g)
	}
	r := call(t, cs, "read", map[string]any{"path": "/etc/hostname"})
	if r.code != "not_found" || !strings.Contains(r.text, "outside the served roots") {
		t.Errorf("a path outside the roots: %s", r.text)
	}
}
