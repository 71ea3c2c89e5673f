package telemetry

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestClientTransport: between a real go-sdk client and server, each
// request a client sends through ClientTransport is a client span with
// its id: the handshake (server/discover in 2026-07-28, initialize in
// 2025-11-25, with the version agreed) and tools/list as spans of their
// own, whose trace context reaches the server in _meta; a tools/call
// under StartClient's span gives that span its id and the endpoint's
// attributes, and is no span of its own. Each connection's end records
// its session's duration: error.type session_lost for the one the server
// ended.
func TestClientTransport(t *testing.T) {
	in, rec, reader := recording(t)
	// The traceparent of each tools/list, by era.
	server, listMeta := echoServer(func(req mcp.Request) string {
		return req.GetSession().(*mcp.ServerSession).InitializeParams().ProtocolVersion
	})
	endpoint := Endpoint{Transport: TransportTCP, Network: "http", Address: "upstream.example", Port: 8443}
	connect := func(era string) (*mcp.ClientSession, *mcp.ServerSession) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
			in.ClientTransport(ct, endpoint), &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatal(err)
		}
		return cs, ss
	}
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		cs, ss := connect(era)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		meta := mcp.Meta{}
		ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Tool: "echo", ProtocolVersion: era, Meta: meta})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Meta: meta})
		span.End(ctx, res != nil && res.IsError, err)
		if err != nil {
			t.Fatal(err)
		}
		if era == "2026-07-28" {
			cs.Close()
		} else {
			ss.Close() // the server ends it: the client's is lost
			cs.Wait()
		}
	}

	type seen struct {
		name  string
		attrs map[string]string
		span  trace.SpanContext
	}
	var spans []seen
	for _, s := range rec.Ended() {
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("a span of kind %v: %s", s.SpanKind(), s.Name())
		}
		a := map[string]string{}
		for _, kv := range s.Attributes() {
			a[string(kv.Key)] = kv.Value.Emit()
		}
		spans = append(spans, seen{s.Name(), a, s.SpanContext()})
	}
	want := []struct{ name, era string }{
		{"server/discover", "2026-07-28"}, {"tools/list", "2026-07-28"}, {"tools/call echo", "2026-07-28"},
		{"initialize", "2025-11-25"}, {"tools/list", "2025-11-25"}, {"tools/call echo", "2025-11-25"},
	}
	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %d: %+v", len(spans), len(want), spans)
	}
	ids := map[string]bool{}
	for i, w := range want {
		s := spans[i]
		if s.name != w.name || s.attrs["jsonrpc.request.id"] == "" || s.attrs["network.transport"] != "tcp" ||
			s.attrs["network.protocol.name"] != "http" || s.attrs["server.address"] != "upstream.example" || s.attrs["server.port"] != "8443" {
			t.Errorf("span %d: %s %v, want %s with its id and the endpoint", i, s.name, s.attrs, w.name)
		}
		if s.attrs["mcp.protocol.version"] != w.era {
			t.Errorf("span %d, %s: mcp.protocol.version %q, want %q", i, s.name, s.attrs["mcp.protocol.version"], w.era)
		}
		if id := w.era + " " + s.attrs["jsonrpc.request.id"]; ids[id] {
			t.Errorf("span %d, %s: id %s given twice in one connection", i, s.name, s.attrs["jsonrpc.request.id"])
		} else {
			ids[id] = true
		}
		if w.name == "tools/list" {
			if got, want := listMeta(w.era), "00-"+s.span.TraceID().String()+"-"+s.span.SpanID().String()+"-01"; got != want {
				t.Errorf("%s's tools/list reached the server with traceparent %q, want %q", w.era, got, want)
			}
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	var sessions []metricdata.HistogramDataPoint[float64]
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "mcp.client.operation.duration":
				for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
					v, _ := dp.Attributes.Value("mcp.method.name")
					methods[v.AsString()] = true
					if v, _ := dp.Attributes.Value("server.address"); v.AsString() != "upstream.example" {
						t.Errorf("a point of %s: %v", v.AsString(), dp.Attributes)
					}
				}
			case "mcp.client.session.duration":
				sessions = m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	for _, m := range []string{"server/discover", "initialize", "tools/list", "tools/call"} {
		if !methods[m] {
			t.Errorf("no point of mcp.client.operation.duration of %s: %v", m, methods)
		}
	}
	errorTypes := map[string]string{}
	for _, dp := range sessions {
		v, _ := dp.Attributes.Value("mcp.protocol.version")
		e, _ := dp.Attributes.Value("error.type")
		errorTypes[v.AsString()] = e.AsString()
		if a, _ := dp.Attributes.Value("server.port"); dp.Count != 1 || a.AsInt64() != 8443 || len(dp.Bounds) != 14 {
			t.Errorf("a session's point: %+v", dp)
		}
	}
	if len(errorTypes) != 2 || errorTypes["2026-07-28"] != "" || errorTypes["2025-11-25"] != SessionLost {
		t.Errorf("the sessions' error types, by version: %v", errorTypes)
	}
}

// TestSessionEnd: a session is recorded once, with the error that ended
// it as its error.type; a nil Session does nothing.
func TestSessionEnd(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	in, err := (&Telemetry{Meter: mp}).Instruments()
	if err != nil {
		t.Fatal(err)
	}
	s := in.StartSession(Operation{ProtocolVersion: "2099-01-01", Transport: TransportPipe}, true)
	time.Sleep(time.Millisecond)
	s.End(context.Background(), ErrSessionLost)
	s.End(context.Background(), nil)
	var none *Session
	none.SetProtocolVersion("2025-11-25")
	none.End(context.Background(), nil)
	if (&Instruments{}).StartSession(Operation{}, true) != nil {
		t.Error("a session without metrics")
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.session.duration" {
				continue
			}
			points := m.Data.(metricdata.Histogram[float64]).DataPoints
			want := attribute.NewSet(attribute.String("mcp.protocol.version", Other), attribute.String("network.transport", "pipe"), attribute.String("error.type", SessionLost))
			if len(points) != 1 || points[0].Count != 1 || !points[0].Attributes.Equals(&want) || points[0].Sum <= 0 {
				t.Errorf("the session's points: %+v", points)
			}
			return
		}
	}
	t.Error("no mcp.server.session.duration")
}

// BenchmarkClientCall is what ClientTransport adds to a traced call of an
// upstream's tool: a go-sdk client calling a go-sdk server over memory,
// each call under StartClient's span (batched to an exporter that drops
// it) with its duration recorded, through the plain transport and
// through ClientTransport (which gives the span its id as the request is
// written).
func BenchmarkClientCall(b *testing.B) {
	in := benchInstruments(b)
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
	})
	for _, wrapped := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "ClientTransport"}[wrapped], func(b *testing.B) {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			var t mcp.Transport = ct
			if wrapped {
				t = in.ClientTransport(ct, Endpoint{Transport: TransportPipe})
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), t, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			for b.Loop() {
				meta := mcp.Meta{}
				ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Tool: "echo", Transport: TransportPipe, Meta: meta})
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Meta: meta})
				span.End(ctx, false, err)
				if err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
	}
}

// recording is Instruments whose spans rec records and whose metrics
// reader reads.
func recording(t *testing.T) (in *Instruments, rec *tracetest.SpanRecorder, reader *sdkmetric.ManualReader) {
	t.Helper()
	rec = tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader = sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	in, err := (&Telemetry{Tracer: tp, Meter: mp}).Instruments()
	if err != nil {
		t.Fatal(err)
	}
	return in, rec, reader
}

// echoServer is a go-sdk server with a tool echo that answers "hi"; it
// notes the traceparent of each tools/list it receives under key(the
// request), and listMeta gives it.
func echoServer(key func(mcp.Request) string) (server *mcp.Server, listMeta func(string) string) {
	server = mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
	})
	var mu sync.Mutex
	seen := map[string]string{}
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				tp, _ := req.GetParams().GetMeta()["traceparent"].(string)
				mu.Lock()
				seen[key(req)] = tp
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return server, func(k string) string {
		mu.Lock()
		defer mu.Unlock()
		return seen[k]
	}
}
