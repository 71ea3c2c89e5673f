package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
)

// TestConcurrentClients: 50 clients page 50 files over HTTP at once (run
// it with -race).
func TestConcurrentClients(t *testing.T) {
	const clients = 50
	e := newEnv(t)
	want := make([]string, clients)
	for i := range clients {
		want[i] = strings.Repeat(fmt.Sprintf("client %d line, with 🙂 and \"quotes\"\n", i), 200+i*7)
		e.write(t, fmt.Sprintf("f%02d.md", i), want[i])
	}
	tok := e.addToken(t, "alice")
	url := serveHTTP(t, e.server(t, serverOpts{}))
	c := counter(t, tokencount.O200kBase)
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := tryDialHTTP(url, tok, "", nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			var got strings.Builder
			args := map[string]any{"path": fmt.Sprintf("f%02d.md", i), "max_tokens": 300}
			for {
				res, err := cs.CallTool(context.Background(), toolCall("read", args))
				if err != nil {
					errs <- err
					return
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if res.IsError || c.Count(text) > 300 {
					errs <- fmt.Errorf("client %d: %s", i, text)
					return
				}
				p, err := pager.Decode([]byte(text))
				if err != nil {
					errs <- err
					return
				}
				got.WriteString(p.Content)
				if !p.HasMore {
					break
				}
				args["cursor"] = *p.NextCursor
			}
			if got.String() != want[i] {
				errs <- fmt.Errorf("client %d: reconstruction differs", i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStatelessReplicas: two stateless servers sharing a cursor key honour
// each other's cursors, page after page.
func TestStatelessReplicas(t *testing.T) {
	e := newEnv(t)
	text := strings.Repeat("replicated text 中文\n", 600)
	e.write(t, "r.md", text)
	tok := e.addToken(t, "alice")
	a := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{stateless: true})), tok, nil)
	b := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{stateless: true})), tok, nil)
	var got strings.Builder
	args := map[string]any{"path": "r.md", "max_tokens": 500}
	n := 0
	for ; ; n++ {
		cs := a
		if n%2 == 1 {
			cs = b
		}
		r := call(t, cs, "read", args)
		p, err := pager.Decode([]byte(r.text))
		if err != nil {
			t.Fatal(r.text)
		}
		got.WriteString(p.Content)
		if !p.HasMore {
			break
		}
		args["cursor"] = *p.NextCursor
	}
	if got.String() != text || n < 3 {
		t.Fatalf("%d pages; reconstruction equal: %v", n+1, got.String() == text)
	}
	// A replica with another key refuses them.
	other := newEnv(t)
	other.dir, other.fs, other.tokens = e.dir, e.fs, e.tokens
	ring, _ := cursor.NewRing([]byte(strings.Repeat("k", cursor.KeyLen)))
	other.ring = ring
	c := dialHTTP(t, serveHTTP(t, other.server(t, serverOpts{stateless: true})), tok, nil)
	r := call(t, a, "read", map[string]any{"path": "r.md", "max_tokens": 500})
	p, _ := pager.Decode([]byte(r.text))
	wantCode(t, call(t, c, "read", map[string]any{"path": "r.md", "max_tokens": 500, "cursor": *p.NextCursor}), "invalid_cursor")
}

// TestToolAnnotations: every tool is read-only and closed-world. (The
// tokens of the whole tools/list answer are held to README.md and
// docs/tools.md by cmd/folio's TestToolsListOnTheWire, on the bytes the
// server writes.)
func TestToolAnnotations(t *testing.T) {
	e := newEnv(t)
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
	}
}

// TestSetLevel: logging/setLevel is answered.
func TestSetLevel(t *testing.T) {
	e := newEnv(t)
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
}
