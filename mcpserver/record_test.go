package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/folio-mcp/folio/audit"
	"github.com/folio-mcp/folio/telemetry"
)

// TestCallRecordOnce: the audit log, the log, the span and the duration
// metric read one record of each call: the same tool, outcome and
// duration (each stage timed the call for itself before; the span and
// the metric were timed inside telemetry until they took the record's).
func TestCallRecordOnce(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	in, err := (&telemetry.Telemetry{Tracer: tp, Meter: mp}).Instruments()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.write(t, "a.md", "# A\n\nsome text\n")
	path := filepath.Join(t.TempDir(), "audit.log")
	al, err := audit.Open(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cs := dialMemory(t, e.server(t, serverOpts{local: true, audit: al, log: log, telemetry: in}), nil)
	calls := []struct {
		tool    string
		args    map[string]any
		outcome string
	}{
		{"read", map[string]any{"path": "a.md"}, "ok"},
		{"read", map[string]any{"path": "missing.md"}, "tool_error"},
		{"list", map[string]any{"path": "."}, "ok"},
	}
	for _, c := range calls {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	var logged []map[string]any
	sc := bufio.NewScanner(&logs)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["method"] == "tools/call" {
			logged = append(logged, line)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var audited []audit.Record
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r audit.Record
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		audited = append(audited, r)
	}
	if len(logged) != len(calls) || len(audited) != len(calls) {
		t.Fatalf("%d calls, %d logged, %d audited:\n%s", len(calls), len(logged), len(audited), raw)
	}
	for i, c := range calls {
		r, l := audited[i], logged[i]
		toolError, _ := l["tool_error"].(bool)
		if r.Tool != c.tool || l["tool"] != c.tool || r.Outcome != c.outcome || toolError != (c.outcome == "tool_error") {
			t.Errorf("call %d (%s): audited %+v, logged %v", i, c.tool, r, l)
		}
		if l["ms"] != r.Ms {
			t.Errorf("call %d (%s): logged %v ms, audited %v ms: not one record", i, c.tool, l["ms"], r.Ms)
		}
	}
	checkSpansAreTheRecord(t, spans.Ended(), audited, operationPoints(t, reader))
}

// operationPoints are the points of mcp.server.operation.duration that
// reader has, by their tool's name and error type.
func operationPoints(t *testing.T, reader *sdkmetric.ManualReader) map[[2]string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	points := map[[2]string]metricdata.HistogramDataPoint[float64]{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				tool, _ := dp.Attributes.Value("gen_ai.tool.name")
				errType, _ := dp.Attributes.Value("error.type")
				points[[2]string{tool.AsString(), errType.AsString()}] = dp
			}
		}
	}
	return points
}

// checkSpansAreTheRecord checks that the spans of the tool calls start
// when their audit records say and last what they say, and that the
// metric's point of each (one call each) is the span's duration.
func checkSpansAreTheRecord(t *testing.T, ended []sdktrace.ReadOnlySpan, audited []audit.Record, points map[[2]string]metricdata.HistogramDataPoint[float64]) {
	t.Helper()
	var calls []sdktrace.ReadOnlySpan
	for _, s := range ended {
		if strings.HasPrefix(s.Name(), "tools/call ") {
			calls = append(calls, s)
		}
	}
	if len(calls) != len(audited) {
		t.Fatalf("%d tools/call spans, %d audited", len(calls), len(audited))
	}
	for i, s := range calls {
		r := audited[i]
		d := s.EndTime().Sub(s.StartTime())
		if !s.StartTime().Equal(r.Time) || ms(d) != r.Ms {
			t.Errorf("call %d (%s): span from %v for %v ms, audited from %v for %v ms: not one record", i, r.Tool, s.StartTime(), ms(d), r.Time, r.Ms)
		}
		var errType string
		for _, kv := range s.Attributes() {
			if kv.Key == "error.type" {
				errType = kv.Value.AsString()
			}
		}
		dp, ok := points[[2]string{r.Tool, errType}]
		if !ok || dp.Count != 1 || dp.Sum != d.Seconds() {
			t.Errorf("call %d (%s): metric point of %d calls, %v s (found %v), the span's duration %v s", i, r.Tool, dp.Count, dp.Sum, ok, d.Seconds())
		}
	}
}
