package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/redistest"
	"github.com/folio-mcp/folio/internal/testmain"
)

// manyFiles writes n files with long names, so that a recursive list of
// dir is well over the fold threshold.
func manyFiles(t *testing.T, dir string, n int) {
	for i := range n {
		write(t, dir, fmt.Sprintf("d%02d/a-file-with-a-rather-long-name-%05d.md", i%20, i), "x\n")
	}
}

// foldedHandle returns the handle of a folded answer, failing when res did
// not fold.
func foldedHandle(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	m, _ := res.Meta["folio/result-handle"].(map[string]any)
	h, _ := m["handle"].(string)
	if res.IsError || h == "" || res.StructuredContent == nil {
		t.Fatalf("not folded: %.300s", res.Content[0].(*mcp.TextContent).Text)
	}
	return h
}

// queryText calls result_query and returns its text, failing on an error.
func queryText(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	res := mcptest.Call(t, cs, "result_query", args)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("result_query %v: %s", args, text)
	}
	return text
}

// TestServeFoldStdio: over stdio a large list folds and result_query reads
// it back in the same session.
func TestServeFoldStdio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manyFiles(t, dir, 600)
	cmd := exec.Command(folioBin, "serve", "--root", dir)
	cmd.Env = testmain.Env(t)
	cs := dial(t, &mcp.CommandTransport{Command: cmd})
	h := foldedHandle(t, mcptest.Call(t, cs, "list", map[string]any{"recursive": true, "details": true}))
	got := queryText(t, cs, map[string]any{"handle": h, "path": "/entries/1/path"})
	if got != `{"path":"/entries/1/path","value":"d00/a-file-with-a-rather-long-name-00000.md","total":43,"offset":0}` {
		t.Errorf("result_query: %s", got)
	}
}

// TestServeBoltHandlesSurviveRestart folds with a bbolt store, restarts the
// server, and reads the handle from the new process.
func TestServeBoltHandlesSurviveRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manyFiles(t, dir, 600)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	tok := strings.TrimSpace(folio(t, "", "token", "add", "--tokens", tokens, "--subject", "ci").stdout)
	args := []string{"--root", dir, "--http", "127.0.0.1:0", "--stateless", "--tokens", tokens,
		"--handle-store", "bolt:" + filepath.Join(t.TempDir(), "handles.db")}
	p, err := startProc(t, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	h := foldedHandle(t, mcptest.Call(t, dial(t, httpTransport(p.endpoint, tok)), "list", map[string]any{"recursive": true, "details": true}))
	p.stop(t)

	p2 := startServe(t, nil, args...)
	got := queryText(t, dial(t, httpTransport(p2.endpoint, tok)), map[string]any{"handle": h, "path": "entries", "offset": 619, "fields": []string{"path"}})
	want := `{"path":"entries","value":[{"path":"d19/a-file-with-a-rather-long-name-00599.md"}],"total":620,"offset":619}`
	if got != want {
		t.Errorf("after the restart:\n got  %s\n want %s", got, want)
	}
}

// TestServeRedisReplicasShareHandles: an answer folded by one stateless
// replica is read through another, both on one Redis and one key file.
func TestServeRedisReplicasShareHandles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manyFiles(t, dir, 600)
	redis := redistest.Shared(t)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	tok := strings.TrimSpace(folio(t, "", "token", "add", "--tokens", tokens, "--subject", "ci").stdout)
	other := strings.TrimSpace(folio(t, "", "token", "add", "--tokens", tokens, "--subject", "other").stdout)
	env := []string{"FOLIO_CURSOR_KEY_FILE=" + filepath.Join(t.TempDir(), "keys", "cursor.key")}
	args := []string{"--root", dir, "--http", "127.0.0.1:0", "--stateless", "--tokens", tokens, "--handle-store", redis.URL}
	a, b := startServe(t, env, args...), startServe(t, env, args...)
	res := mcptest.Call(t, dial(t, httpTransport(a.endpoint, tok)), "grep", map[string]any{"pattern": "x", "max_matches": 5000})
	h := foldedHandle(t, res)
	// The folded text, whole, through the other replica: each file and
	// its one match.
	text := queryText(t, dial(t, httpTransport(b.endpoint, tok)), map[string]any{"handle": h, "max_tokens": 100000})
	if n := strings.Count(text, "\n1:x\n"); n != 600 || !strings.HasSuffix(text, ", the end") {
		t.Errorf("through the other replica: %d matches in %d bytes", n, len(text))
	}
	res = mcptest.Call(t, dial(t, httpTransport(b.endpoint, other)), "result_query", map[string]any{"handle": h})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "result_handle_not_found") {
		t.Errorf("another subject read the handle: %v", res.Content[0])
	}
}
