package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// TestServeToolSearch: folio serve --tool-search on, in front of three
// real upstream processes, over HTTP with tokens: tools/list offers the
// meta-tools and the tool marked alwaysListed; a model finds a tool,
// reads its definition, calls it, and passes a folded answer to another
// by reference; a token whose tool list leaves a tool out cannot call it
// through call_tool either.
func TestServeToolSearch(t *testing.T) {
	t.Parallel()
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	writeUpstreams(t, config, map[string]any{
		"src":   map[string]any{"command": bin, "args": []string{"-datatools"}},
		"dst":   map[string]any{"command": bin, "args": []string{"-datatools", "-tools", "echo"}},
		"plain": map[string]any{"command": bin, "args": []string{"-tools", "alpha,beta"}, "alwaysListed": []string{"alpha"}},
	})
	tokens := filepath.Join(dir, "tokens.json")
	alice := strings.TrimSpace(folio(t, "", "token", "add", "--tokens", tokens, "--subject", "alice").stdout)
	bob := strings.TrimSpace(folio(t, "", "token", "add", "--tokens", tokens, "--subject", "bob", "--tool", "read", "--tool", "src__series").stdout)
	p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--tokens", tokens, "--upstreams", config,
		"--schema-cache", filepath.Join(dir, "cache.json"), "--tool-search", "on", "--fold-threshold-bytes", "2048")
	cs := dial(t, httpTransport(p.endpoint, alice))
	want := []string{"call_tool", "describe_tools", "find_tools", "grep", "list", "outline", "plain__alpha", "read", "result_query", "search_docs"}
	if got := mcptest.ToolNames(t, cs); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	found, isErr := mcptest.CallText(t, cs, "find_tools", map[string]any{"query": "a time series of rows"})
	if isErr || !strings.Contains(found, "src__series: A time series of 240 rows.\n") {
		t.Errorf("find_tools: %s", found)
	}
	desc, isErr := mcptest.CallText(t, cs, "describe_tools", map[string]any{"names": []string{"dst__ingest"}})
	var defs []*mcp.Tool
	if isErr || json.Unmarshal([]byte(desc), &defs) != nil || len(defs) != 1 || defs[0].Name != "dst__ingest" {
		t.Errorf("describe_tools: %s", desc)
	}
	res := mcptest.Call(t, cs, "call_tool", map[string]any{"name": "src__series"})
	var folded struct{ URI string }
	if err := json.Unmarshal(mustMarshal(t, res.StructuredContent), &folded); err != nil || !strings.HasPrefix(folded.URI, "mcp+cache://") {
		t.Fatalf("src__series through call_tool did not fold: %.300s", mcptest.Text(res))
	}
	if text, isErr := mcptest.CallText(t, cs, "call_tool", map[string]any{"name": "dst__ingest", "arguments": map[string]any{"data_uri": folded.URI + "#/series"}}); isErr || text != "rows 240 sum 28800" {
		t.Errorf("a call with a reference: %s", text)
	}
	b := dial(t, httpTransport(p.endpoint, bob))
	if _, err := b.CallTool(t.Context(), &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "dst__ingest", "arguments": map[string]any{"data": []int{1}}}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("bob's call of a tool his token leaves out: %v", err)
	}
	if text, isErr := mcptest.CallText(t, b, "call_tool", map[string]any{"name": "src__series"}); isErr {
		t.Errorf("bob's call of his tool: %.200s", text)
	}
}
