package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
)

// TestServeBothEras: folio serve --http, with no flag of the kind, serves a
// 2026-07-28 client (no session; its folded answers are its own in its
// later connections) and a 2025-11-25 client (a session, subscriptions)
// at one endpoint, both exactly; over stdio the go-sdk client negotiates
// 2026-07-28 too. At the default log level, requests that succeed log
// nothing.
func TestServeBothEras(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Repeat("both eras, 中文 and 🙂\n", 600)
	write(t, dir, "docs/a.md", text)
	for i := range 600 {
		write(t, dir, fmt.Sprintf("many/file-with-a-longish-name-%04d.md", i), "x\n")
	}
	p, err := startProc(t, nil, "--root", dir, "--http", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	connect := func(era string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), httpTransport(p.endpoint, ""), &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("era %q: %v", era, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	sessionless, session := connect(""), connect("2025-11-25")
	if v := sessionless.InitializeResult().ProtocolVersion; v != "2026-07-28" || sessionless.ID() != "" {
		t.Errorf("the go-sdk client's own choice: %s, session %q", v, sessionless.ID())
	}
	if v := session.InitializeResult().ProtocolVersion; v != "2025-11-25" || session.ID() == "" {
		t.Errorf("a 2025-11-25 client: %s, session %q", v, session.ID())
	}
	for name, cs := range map[string]*mcp.ClientSession{"sessionless": sessionless, "session": session} {
		if got := readAll(t, cs, "docs/a.md", 300); got != text {
			t.Errorf("%s: the pages do not give back the file", name)
		}
	}
	// A sessionless caller's folded answer is its own in its next
	// connection.
	res := mcptest.Call(t, sessionless, "list", map[string]any{"path": "many", "details": true})
	var folded struct{ Handle string }
	if err := json.Unmarshal(mustMarshal(t, res.StructuredContent), &folded); err != nil || folded.Handle == "" {
		t.Fatalf("a list of 600 entries did not fold: %.200s", mcptest.Text(res))
	}
	if text, isErr := mcptest.CallText(t, connect(""), "result_query", map[string]any{"handle": folded.Handle, "path": "entries", "limit": 2}); isErr {
		t.Errorf("the handle in the next connection: %s", text)
	}
	// A session subscribes, as it always could.
	if err := session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "file://" + dir + "/docs/a.md"}); err != nil {
		t.Errorf("subscribe: %v", err)
	}
	// Over stdio, the same client takes the newer era.
	stdio := dial(t, &mcp.CommandTransport{Command: folioCmd(t, "serve", "--root", dir)})
	if v := stdio.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("over stdio: %s", v)
	}

	p.stop(t)
	for line := range strings.Lines(p.stderr.String()) {
		if !strings.Contains(line, "msg=serving") && !strings.Contains(line, "msg=listening") && !strings.Contains(line, "docs index built") &&
			!strings.Contains(line, "without --tokens") && !strings.Contains(line, "shutting down") && !strings.Contains(line, "server stopped") {
			t.Errorf("at info, a request logged: %s", line)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll reads a file through cs in pages of budget tokens, following
// next_cursor to the end.
func readAll(t *testing.T, cs *mcp.ClientSession, uri string, budget int) string {
	t.Helper()
	args := map[string]any{"path": uri, "max_tokens": budget}
	var got strings.Builder
	for range 1000 {
		text, isErr := mcptest.CallText(t, cs, "read", args)
		p, err := pager.Decode([]byte(text))
		if isErr || err != nil {
			t.Fatalf("%v: %.200s", err, text)
		}
		got.WriteString(p.Content)
		if !p.HasMore {
			return got.String()
		}
		args["cursor"] = *p.NextCursor
	}
	t.Fatal("no end after 1000 pages")
	return ""
}
