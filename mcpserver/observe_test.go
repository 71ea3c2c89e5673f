package mcpserver

import (
	"context"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/folio-mcp/folio/telemetry"
)

// TestObserveBoundsWhatClientsSend: tool names a client makes up are not
// series of their own (the metric says _OTHER, the span name leaves the
// name out), and a huge name is cut on the span; folio's own tools keep
// their names.
func TestObserveBoundsWhatClientsSend(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	in, err := (&telemetry.Telemetry{Tracer: tp, Meter: mp}).Instruments()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.write(t, "a.md", "# A\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true, telemetry: in}), nil)
	call(t, cs, "read", map[string]any{"uri": "a.md", "max_tokens": 100})
	for i := range 50 {
		cs.CallTool(context.Background(), toolCall("made_up_"+strings.Repeat("x", i), nil)) // an error: no such tool
	}
	cs.CallTool(context.Background(), toolCall(strings.Repeat("y", 10_000), nil))

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				if v, ok := dp.Attributes.Value("gen_ai.tool.name"); ok {
					tools[v.AsString()] = true
				}
			}
		}
	}
	if len(tools) != 2 || !tools["read"] || !tools[telemetry.Other] {
		t.Errorf("tool names on the metric: %v", tools)
	}
	for _, s := range rec.Ended() {
		if strings.Contains(s.Name(), "made_up") || strings.Contains(s.Name(), "yyy") {
			t.Errorf("a made-up name in a span name: %.80s", s.Name())
		}
		for _, kv := range s.Attributes() {
			if kv.Key == "gen_ai.tool.name" && len(kv.Value.AsString()) > telemetry.MaxAttributeLen {
				t.Errorf("a %d-byte tool name on a span", len(kv.Value.AsString()))
			}
		}
	}
}
