package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/prometheustest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// TestPrometheusScrapesFolio: a real Prometheus scrapes folio's admin
// listener and answers queries of what folio did: requests by method and
// tool, pages and their tokens, sessions, and an upstream's state and
// starts.
func TestPrometheusScrapesFolio(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.md"), []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 60)), 0o600)
	g := serveGateway(t, dir, map[string]any{"up": map[string]any{"command": upstreamtest.Binary(t)}}, nil, "--admin", "127.0.0.1:0")
	base := adminURL(t, g.stderr)
	prom := prometheustest.Start(t, strings.TrimPrefix(base, "http://"))
	pages, tokens := 0, 0
	args := map[string]any{"uri": "doc.md", "max_tokens": 200}
	for {
		res := mcptest.Call(t, g.cs, "read", args)
		if res.IsError {
			t.Fatal(mcptest.Text(res))
		}
		pages++
		tokens += int(res.Meta["folio/tokens"].(float64))
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(mcptest.Text(res)), &page); err != nil {
			t.Fatal(err)
		}
		if page.NextCursor == "" {
			break
		}
		next := page.NextCursor
		args = map[string]any{"uri": "doc.md", "max_tokens": 200, "cursor": next}
	}
	if pages < 3 {
		t.Fatalf("%d pages", pages)
	}
	if text, isErr := mcptest.CallText(t, g.cs, "up__echo", nil); isErr {
		t.Fatal(text)
	}
	prom.Await(t, `folio_pages_total`, float64(pages))
	prom.Await(t, `folio_tokens_total{tokenizer="o200k_base"}`, float64(tokens))
	prom.Await(t, `mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="read"}`, float64(pages))
	prom.Await(t, `mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="up__echo"}`, 1)
	prom.Await(t, `mcp_client_operation_duration_seconds_count{gen_ai_tool_name="echo",network_transport="pipe"}`, 1)
	prom.Await(t, `folio_sessions`, 1)
	prom.Await(t, `folio_upstream_state{upstream="up",state="running"}`, 1)
	prom.Await(t, `folio_upstream_starts_total{upstream="up"}`, 2) // discovered (no cache yet), then called
	prom.Await(t, `count(folio_upstream_state{upstream="up"})`, 5) // one series per state
}
