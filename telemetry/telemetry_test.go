package telemetry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestWanted: nothing is exported unless the environment asks, and what
// cannot be followed is an error.
func TestWanted(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		want    string
		invalid bool
	}{
		{env: nil, want: ""},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: "http/protobuf"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, want: "http/protobuf"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4318/v1/metrics"}, want: ""},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, want: "http/protobuf"},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, want: "grpc"},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, want: "http/protobuf"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, want: ""},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, want: ""},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, invalid: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, invalid: true},
	} {
		got, err := wanted(func(k string) string { return tc.env[k] }, "TRACES")
		if got != tc.want || (err != nil) != tc.invalid || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("%v: %q %v, want %q (invalid %v)", tc.env, got, err, tc.want, tc.invalid)
		}
	}
	tel, err := New(context.Background(), Options{Getenv: func(string) string { return "" }})
	if err != nil || tel.Tracer != nil || tel.Meter != nil || tel.Metrics != nil {
		t.Errorf("with nothing asked: %+v %v", tel, err)
	}
	if in, err := tel.Instruments(); in != nil || err != nil {
		t.Errorf("instruments with nothing asked: %v %v", in, err)
	}
}

// TestOffDoesNothing: a nil *Instruments starts no span and changes no
// _meta.
func TestOffDoesNothing(t *testing.T) {
	var in *Instruments
	meta := map[string]any{"progressToken": 7}
	ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Meta: meta})
	span.End(ctx, false, nil)
	if len(meta) != 1 || trace.SpanFromContext(ctx).SpanContext().IsValid() {
		t.Errorf("off, yet %v, %v", meta, trace.SpanFromContext(ctx).SpanContext())
	}
}

// TestSpans: a received request continues the trace its _meta carries;
// a sent one puts its own context in its _meta beside what was there;
// names, kinds and error types are the conventions'.
func TestSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	in, err := (&Telemetry{Tracer: tp}).Instruments()
	if err != nil {
		t.Fatal(err)
	}
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx, server := in.StartServer(context.Background(), Operation{Method: "tools/call", Tool: "read", Meta: map[string]any{"traceparent": parent, "tracestate": 5}}, time.Now())
	meta := map[string]any{"progressToken": 7.0}
	cctx, client := in.StartClient(ctx, Operation{Method: "tools/call", Tool: "echo", Meta: meta})
	client.End(cctx, false, &jsonrpc.Error{Code: -32602, Message: "bad"})
	server.End(ctx, true, nil)
	_, other := in.StartServer(context.Background(), Operation{Method: "resources/read", ResourceURI: "file:///x", Meta: map[string]any{"traceparent": 12}}, time.Now())
	other.End(context.Background(), false, errors.New("boom"))

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans", len(spans))
	}
	c, s, o := spans[0], spans[1], spans[2]
	if s.Name() != "tools/call read" || s.SpanKind() != trace.SpanKindServer || s.Parent().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("server span %s %v parent %v", s.Name(), s.SpanKind(), s.Parent())
	}
	if c.Name() != "tools/call echo" || c.SpanKind() != trace.SpanKindClient || c.Parent().SpanID() != s.SpanContext().SpanID() {
		t.Errorf("client span %s %v parent %v", c.Name(), c.SpanKind(), c.Parent())
	}
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-" + c.SpanContext().SpanID().String() + "-01"; meta["traceparent"] != want || meta["progressToken"] != 7.0 {
		t.Errorf("the sent _meta: %v, want traceparent %s beside the progress token", meta, want)
	}
	attr := func(sp sdktrace.ReadOnlySpan, key string) string {
		for _, kv := range sp.Attributes() {
			if string(kv.Key) == key {
				return kv.Value.String()
			}
		}
		return ""
	}
	if attr(s, "error.type") != "tool_error" || attr(c, "error.type") != "-32602" || attr(c, "rpc.response.status_code") != "-32602" || attr(o, "error.type") == "" {
		t.Errorf("error types: %q %q %q", attr(s, "error.type"), attr(c, "error.type"), attr(o, "error.type"))
	}
	if o.Name() != "resources/read" || attr(o, "mcp.resource.uri") != "file:///x" || o.Parent().IsValid() {
		t.Errorf("a resource's span: %s %q, parent %v (a traceparent that is not a string is none)", o.Name(), attr(o, "mcp.resource.uri"), o.Parent())
	}
}

// benchInstruments are instruments for a benchmark: spans batched to an
// exporter that drops them, metrics aggregated for a reader nobody asks.
func benchInstruments(b *testing.B) *Instruments {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	in, err := (&Telemetry{Tracer: tp, Meter: mp}).Instruments()
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkOperation is what telemetry adds to one request: its server
// span (batched to an exporter that drops it) and its duration recorded
// (aggregated for a reader), continuing a caller's trace.
func BenchmarkOperation(b *testing.B) {
	in := benchInstruments(b)
	meta := map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "progressToken": 1}
	b.ReportAllocs()
	for b.Loop() {
		ctx, span := in.StartServer(context.Background(), Operation{Method: "tools/call", Tool: "read", ProtocolVersion: "2025-11-25", SessionID: "abc", Transport: TransportTCP, Meta: meta}, time.Now())
		span.End(ctx, false, nil)
	}
}

// TestMadeUpVersions: a protocol version a client makes up is _OTHER on
// the metric, and kept (cut) on the span.
func TestMadeUpVersions(t *testing.T) {
	op := Operation{Method: "tools/call", Tool: "read", ProtocolVersion: "9999-99-99"}.bounded()
	metric, span := op.attributes(true)
	has := func(list []attribute.KeyValue, key, value string) bool {
		for _, kv := range list {
			if string(kv.Key) == key && kv.Value.AsString() == value {
				return true
			}
		}
		return false
	}
	if !has(metric, "mcp.protocol.version", Other) || has(metric, "mcp.protocol.version", "9999-99-99") || !has(span, "mcp.protocol.version", "9999-99-99") {
		t.Errorf("metric %v, span %v", metric, span)
	}
	if op := (Operation{Method: "x/made-up"}).bounded(); op.Method != Other {
		t.Errorf("an unknown method is %q", op.Method)
	}
}

// TestOneDuration: a span's duration and its operation-duration point are
// one measurement. A server span timed by its caller starts when the
// caller says and lasts what the caller measured (EndAfter); a span
// ended with End lasts the time since it started, the same on the span
// and on the metric.
func TestOneDuration(t *testing.T) {
	start := time.Now().Add(-3 * time.Second)
	for _, tc := range []struct {
		name   string
		metric string
		run    func(in *Instruments) (time.Time, time.Duration)
	}{
		{"server, timed by its caller", "mcp.server.operation.duration", func(in *Instruments) (time.Time, time.Duration) {
			ctx, span := in.StartServer(context.Background(), Operation{Method: "tools/call", Tool: "read"}, start)
			d := 1234567891 * time.Nanosecond
			span.EndAfter(ctx, d, false, nil)
			return start, d
		}},
		{"client, timed by the span", "mcp.client.operation.duration", func(in *Instruments) (time.Time, time.Duration) {
			ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Tool: "echo", Meta: map[string]any{}})
			time.Sleep(time.Millisecond)
			span.End(ctx, false, nil)
			return time.Time{}, 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			reader := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
			in, err := (&Telemetry{Tracer: tp, Meter: mp}).Instruments()
			if err != nil {
				t.Fatal(err)
			}
			wantStart, wantD := tc.run(in)
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans", len(spans))
			}
			s := spans[0]
			got := s.EndTime().Sub(s.StartTime())
			if !wantStart.IsZero() && (!s.StartTime().Equal(wantStart) || got != wantD) {
				t.Errorf("span from %v for %v, want from %v for %v", s.StartTime(), got, wantStart, wantD)
			}
			var rm metricdata.ResourceMetrics
			if err := reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			var sums []float64
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name == tc.metric {
						for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
							sums = append(sums, dp.Sum)
						}
					}
				}
			}
			if len(sums) != 1 || sums[0] != got.Seconds() {
				t.Errorf("%s: %v, the span's duration %v s", tc.metric, sums, got.Seconds())
			}
		})
	}
}
