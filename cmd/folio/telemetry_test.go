package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
	args := map[string]any{"path": "doc.md", "max_tokens": 200}
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
		args = map[string]any{"path": "doc.md", "max_tokens": 200, "cursor": next}
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
// upstream receives in its own _meta, beside the progress token; a tool
// error is marked; the operation-duration metrics arrive too. Both eras:
// a 2026-07-28 client over stdio, and a 2025-11-25 session over HTTP
// whose progress token is a number.
func TestTracesReachCollector(t *testing.T) {
	c := otelcoltest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.Endpoint)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "200")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# Doc\n\nSome text.\n"), 0o600)
	metaLog := filepath.Join(dir, "meta.log")
	upstreams := map[string]any{"up": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-metalog", metaLog, "-calltools", "-progressgap", "1ms"}}}

	// awaitSpans waits for the spans of trace, at least n, one of them
	// the client span of a call.
	awaitSpans := func(t *testing.T, trace string, n int) []otelcoltest.Span {
		t.Helper()
		var of []otelcoltest.Span
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			of = of[:0]
			client := false
			for _, s := range c.Spans(t) {
				if s.TraceID == trace {
					of = append(of, s)
					client = client || s.Kind == 3
				}
			}
			if client && len(of) >= n {
				return of
			}
		}
		t.Fatalf("trace %s has %d spans: %+v\n%s", trace, len(of), of, c.Log())
		return nil
	}
	find := func(t *testing.T, spans []otelcoltest.Span, name string, kind int) otelcoltest.Span {
		t.Helper()
		for _, s := range spans {
			if s.Name == name && s.Kind == kind {
				return s
			}
		}
		t.Fatalf("no span %q of kind %d among %+v", name, kind, spans)
		return otelcoltest.Span{}
	}
	check := func(t *testing.T, what string, s otelcoltest.Span, want map[string]string) {
		t.Helper()
		for k, v := range want {
			if s.Attributes[k] != v {
				t.Errorf("%s: %s=%q, want %q (all: %v)", what, k, s.Attributes[k], v, s.Attributes)
			}
		}
	}
	traceparent := func(trace, parent string) mcp.Meta {
		return mcp.Meta{"traceparent": "00-" + trace + "-" + parent + "-01", "tracestate": "folio=test"}
	}

	t.Run("stdio, 2026-07-28", func(t *testing.T) {
		const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		g := serveGateway(t, dir, upstreams, nil)
		for _, p := range []*mcp.CallToolParams{
			{Name: "read", Arguments: map[string]any{"path": "doc.md", "max_tokens": 500}, Meta: traceparent(trace, parent)},
			{Name: "read", Arguments: map[string]any{"path": "missing.md"}, Meta: traceparent(trace, parent)},
			{Name: "up__echo", Arguments: map[string]any{"text": "hi"}, Meta: traceparent(trace, parent)},
		} {
			if _, err := g.cs.CallTool(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		g.cs.Close() // folio exits, and flushes what it holds
		spans := awaitSpans(t, trace, 4)
		var ok, failed bool
		for _, s := range spans {
			if s.Name != "tools/call read" || s.Kind != 2 {
				continue
			}
			check(t, "read's span", s, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "read", "gen_ai.operation.name": "execute_tool",
				"network.transport": "pipe", "mcp.protocol.version": "2026-07-28"})
			if s.ParentSpanID != parent || s.Resource["service.name"] != "folio" {
				t.Errorf("read's span does not continue the caller's trace: %+v", s)
			}
			switch {
			case s.Attributes["error.type"] == "tool_error" && s.Status == 2:
				failed = true
			case s.Attributes["error.type"] == "" && s.Status == 0:
				ok = true
			}
		}
		if !ok || !failed {
			t.Errorf("want a read span, and one with error.type tool_error: %+v", spans)
		}
		server := find(t, spans, "tools/call up__echo", 2)
		client := find(t, spans, "tools/call echo", 3)
		if server.ParentSpanID != parent || client.ParentSpanID != server.SpanID {
			t.Errorf("the upstream call's spans: server %+v, client %+v", server, client)
		}
		check(t, "the upstream call's client span", client, map[string]string{"gen_ai.tool.name": "echo", "network.transport": "pipe", "mcp.protocol.version": "2026-07-28"})
		b, _ := os.ReadFile(metaLog)
		if want := "00-" + trace + "-" + client.SpanID + "-01"; !strings.Contains(string(b), want) {
			t.Errorf("the upstream received _meta %s, want traceparent %s", b, want)
		}
	})

	t.Run("HTTP, 2025-11-25", func(t *testing.T) {
		const trace, parent = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
		config := filepath.Join(dir, "mcp.json")
		writeUpstreams(t, config, upstreams)
		p, err := startProc(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"))
		if err != nil {
			t.Fatal(err)
		}
		var progress atomic.Int32
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				if req.Params.ProgressToken == float64(7) {
					progress.Add(1)
				}
			},
		})
		cs, err := client.Connect(context.Background(), httpTransport(p.endpoint, ""), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		meta := traceparent(trace, parent)
		meta["progressToken"] = 7
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "up__progress", Meta: meta})
		if err != nil || res.IsError {
			t.Fatalf("up__progress: %v %v", err, res)
		}
		session := cs.ID()
		cs.Close()
		p.stop(t)
		if progress.Load() == 0 {
			t.Error("no progress came back under the caller's numeric token")
		}
		spans := awaitSpans(t, trace, 2)
		server := find(t, spans, "tools/call up__progress", 2)
		check(t, "the call's server span", server, map[string]string{"network.transport": "tcp", "mcp.protocol.version": "2025-11-25", "mcp.session.id": session})
		client3 := find(t, spans, "tools/call progress", 3)
		if server.ParentSpanID != parent || client3.ParentSpanID != server.SpanID {
			t.Errorf("the upstream call's spans: server %+v, client %+v", server, client3)
		}
		b, _ := os.ReadFile(metaLog)
		var sent []map[string]any
		for line := range strings.Lines(string(b)) {
			var m map[string]any
			json.Unmarshal([]byte(line), &m)
			sent = append(sent, m)
		}
		last := sent[len(sent)-1]
		if tok, _ := last["progressToken"].(string); last["traceparent"] != "00-"+trace+"-"+client3.SpanID+"-01" || !strings.HasPrefix(tok, "folio-") {
			t.Errorf("the upstream received _meta %v: want folio's progress token and the client span's traceparent", last)
		}
		initialize := false
		for _, s := range c.Spans(t) {
			if s.Name == "initialize" && s.Kind == 2 && s.Attributes["mcp.session.id"] == session {
				initialize = true
			}
		}
		if !initialize {
			t.Error("no initialize span of the session")
		}
	})

	names := c.MetricNames(t)
	for _, name := range []string{"mcp.server.operation.duration", "mcp.client.operation.duration", "folio.pages", "folio.sessions"} {
		if !names[name] {
			t.Errorf("the collector received no %s: %v", name, names)
		}
	}
}
