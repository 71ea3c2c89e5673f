package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/otelcoltest"
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

// TestTracesReachCollector: with the standard OTEL_* variables, folio
// sends a real OpenTelemetry Collector a span per request by the MCP
// conventions, continuing the caller's trace from params._meta; a call of
// an upstream tool has a client span under it whose trace context the
// upstream receives in its own _meta; a tool error is marked; and the
// operation-duration metrics arrive too.
func TestTracesReachCollector(t *testing.T) {
	c := otelcoltest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.Endpoint)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "200")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# Doc\n\nSome text.\n"), 0o600)
	metaLog := filepath.Join(dir, "meta.log")
	g := serveGateway(t, dir, map[string]any{"up": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-metalog", metaLog}}}, nil)

	const (
		readTrace, readParent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		callTrace, callParent = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	)
	call := func(name string, args map[string]any, trace, parent string) *mcp.CallToolResult {
		t.Helper()
		res, err := g.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args,
			Meta: mcp.Meta{"traceparent": "00-" + trace + "-" + parent + "-01", "tracestate": "folio=test"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("read", map[string]any{"uri": "doc.md", "max_tokens": 500}, readTrace, readParent); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	if res := call("up__echo", map[string]any{"text": "hi"}, callTrace, callParent); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	if res := mcptest.Call(t, g.cs, "read", map[string]any{"uri": "missing.md"}); !res.IsError {
		t.Fatal("a read of a missing file succeeded")
	}
	g.cs.Close() // folio exits, and flushes what it holds

	var spans []otelcoltest.Span
	find := func(name string, kind int) (otelcoltest.Span, bool) {
		for _, s := range spans {
			if s.Name == name && s.Kind == kind {
				return s, true
			}
		}
		return otelcoltest.Span{}, false
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		spans = c.Spans(t)
		if _, ok := find("tools/call echo", 3); ok && len(spans) >= 5 {
			break
		}
	}
	read, ok := find("tools/call read", 2)
	if !ok {
		t.Fatalf("no server span of read among %+v\n%s", spans, c.Log())
	}
	want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "read", "gen_ai.operation.name": "execute_tool", "network.transport": "pipe", "mcp.protocol.version": "2026-07-28"}
	for k, v := range want {
		if read.Attributes[k] != v {
			t.Errorf("read's span: %s=%q, want %q (all: %v)", k, read.Attributes[k], v, read.Attributes)
		}
	}
	if read.TraceID != readTrace || read.ParentSpanID != readParent || read.Resource["service.name"] != "folio" {
		t.Errorf("read's span does not continue the caller's trace: %+v", read)
	}
	var failed bool
	for _, s := range spans {
		if s.Name == "tools/call read" && s.Attributes["error.type"] == "tool_error" && s.Status == 2 {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no read span with error.type tool_error: %+v", spans)
	}
	server, ok := find("tools/call up__echo", 2)
	if !ok || server.TraceID != callTrace || server.ParentSpanID != callParent {
		t.Fatalf("the upstream call's server span: %+v (found %v)", server, ok)
	}
	client, ok := find("tools/call echo", 3)
	if !ok || client.TraceID != callTrace || client.ParentSpanID != server.SpanID || client.Attributes["gen_ai.tool.name"] != "echo" || client.Attributes["network.transport"] != "pipe" {
		t.Fatalf("the upstream call's client span: %+v (found %v)", client, ok)
	}
	b, _ := os.ReadFile(metaLog)
	if got, want := string(b), "00-"+callTrace+"-"+client.SpanID+"-01"; !strings.Contains(got, want) {
		t.Errorf("the upstream received _meta %s, want traceparent %s", got, want)
	}
	if _, ok := find("server/discover", 2); !ok {
		t.Errorf("no server/discover span: %+v", spans)
	}
	names := c.MetricNames(t)
	for _, name := range []string{"mcp.server.operation.duration", "mcp.client.operation.duration", "folio.pages", "folio.sessions"} {
		if !names[name] {
			t.Errorf("the collector received no %s: %v", name, names)
		}
	}
}
