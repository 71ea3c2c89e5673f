package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	call(t, cs, "read", map[string]any{"path": "a.md", "max_tokens": 100})
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

// TestObserveReadsTheWire: what go-sdk's request does not say, observe
// has from the wire. Over a connection of folio's own (as stdio is) and
// over HTTP, in both eras, every request's span has its jsonrpc.request.id
// and no notification's; initialize's span and point have the version
// the session agreed on; over HTTP spans have the HTTP version and the
// client's address, and points the version and no address. A session
// that began with initialize records its duration when it ends.
func TestObserveReadsTheWire(t *testing.T) {
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
	s := e.server(t, serverOpts{local: true, telemetry: in})
	endpoint := serveHTTP(t, s)
	for _, era := range []string{sessionEra, "2026-07-28"} {
		for _, cs := range []*mcp.ClientSession{dialMemoryEra(t, s, era, nil), dialHTTPEra(t, endpoint, "", era, nil)} {
			call(t, cs, "read", map[string]any{"path": "a.md", "max_tokens": 100})
			cs.Close()
		}
	}

	type seen struct {
		name  string
		attrs map[string]string
	}
	var spans []seen
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		spans = spans[:0]
		for _, sp := range rec.Ended() {
			a := map[string]string{}
			for _, kv := range sp.Attributes() {
				a[string(kv.Key)] = kv.Value.Emit()
			}
			spans = append(spans, seen{sp.Name(), a})
		}
		if len(spans) >= 10 || time.Now().After(deadline) {
			break
		}
	}
	handshakes := map[string]int{}
	for _, sp := range spans {
		a := sp.attrs
		overHTTP := a["network.transport"] == "tcp"
		if strings.HasPrefix(sp.name, "notifications/") != (a["jsonrpc.request.id"] == "") {
			t.Errorf("%s: jsonrpc.request.id %q", sp.name, a["jsonrpc.request.id"])
		}
		if a["mcp.protocol.version"] == "" {
			t.Errorf("%s: no mcp.protocol.version: %v", sp.name, a)
		}
		if overHTTP != (a["network.protocol.name"] == "http" && a["network.protocol.version"] == "1.1" && a["client.address"] == "127.0.0.1" && a["client.port"] != "") {
			t.Errorf("%s over %s: %v", sp.name, a["network.transport"], a)
		}
		if sp.name == "initialize" || sp.name == "server/discover" {
			handshakes[sp.name+" "+a["network.transport"]+" "+a["mcp.protocol.version"]]++
		}
	}
	for _, want := range []string{"initialize pipe " + sessionEra, "initialize tcp " + sessionEra, "server/discover pipe 2026-07-28", "server/discover tcp 2026-07-28"} {
		if handshakes[want] != 1 {
			t.Errorf("the handshakes: %v, want one %q", handshakes, want)
		}
	}

	// The sessions end as their clients close them.
	var sessions, operations []metricdata.HistogramDataPoint[float64]
	for deadline := time.Now().Add(10 * time.Second); len(sessions) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				switch m.Name {
				case "mcp.server.session.duration":
					sessions = m.Data.(metricdata.Histogram[float64]).DataPoints
				case "mcp.server.operation.duration":
					operations = m.Data.(metricdata.Histogram[float64]).DataPoints
				}
			}
		}
	}
	for _, dp := range operations {
		v, _ := dp.Attributes.Value("mcp.protocol.version")
		transport, _ := dp.Attributes.Value("network.transport")
		network, _ := dp.Attributes.Value("network.protocol.name")
		_, address := dp.Attributes.Value("client.address")
		_, id := dp.Attributes.Value("jsonrpc.request.id")
		if v.AsString() == "" || address || id || (transport.AsString() == "tcp") != (network.AsString() == "http") {
			t.Errorf("a point: %v", dp.Attributes.ToSlice())
		}
	}
	transports := map[string]bool{}
	for _, dp := range sessions {
		v, _ := dp.Attributes.Value("mcp.protocol.version")
		tr, _ := dp.Attributes.Value("network.transport")
		_, failed := dp.Attributes.Value("error.type")
		if v.AsString() != sessionEra || dp.Count != 1 || failed {
			t.Errorf("a session's point: %v, %d", dp.Attributes.ToSlice(), dp.Count)
		}
		transports[tr.AsString()] = true
	}
	if len(sessions) != 2 || !transports["pipe"] || !transports["tcp"] {
		t.Errorf("the sessions recorded: %d, over %v", len(sessions), transports)
	}
}

// BenchmarkWiredRequest is what reading a request's id off a connection
// of folio's own costs it (see wired): a request read, its id looked up
// as observe does, its answer written; against the same without (plain).
func BenchmarkWiredRequest(b *testing.B) {
	for _, wired := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "wired"}[wired], func(b *testing.B) {
			var s Server
			if wired {
				s.cfg.Telemetry = &telemetry.Instruments{}
			}
			conn, err := s.wired(oneMessage{}).Connect(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				msg, _ := conn.Read(ctx)
				req := msg.(*jsonrpc.Request)
				var op telemetry.Operation
				extra, _ := req.Extra.(*mcp.RequestExtra)
				s.wireOf(extra, &op)
				if wired && op.RequestID != "1234" {
					b.Fatalf("id %q", op.RequestID)
				}
				conn.Write(ctx, &jsonrpc.Response{ID: req.ID})
			}
		})
	}
}

// BenchmarkWireHTTP is what noting an HTTP request for observe costs it
// (see noteWire): a POST's id read from its body, its HTTP version and
// client's address left in its header, and all three read by observe.
func BenchmarkWireHTTP(b *testing.B) {
	s := Server{cfg: Config{Telemetry: &telemetry.Instruments{}}}
	body := []byte(`{"jsonrpc":"2.0","id":1234,"method":"tools/call","params":{"name":"read","arguments":{"path":"docs/a.md","max_tokens":2000}}}`)
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	b.ReportAllocs()
	for b.Loop() {
		s.noteWire(r, body)
		var op telemetry.Operation
		s.wireOf(&mcp.RequestExtra{Header: r.Header}, &op)
		if op.RequestID != "1234" || op.NetworkVersion != "1.1" || op.Port == 0 {
			b.Fatalf("%+v", op)
		}
	}
}

// oneMessage is a transport whose connection reads the same call again
// and again, and writes nowhere.
type oneMessage struct{}

func (oneMessage) Connect(context.Context) (mcp.Connection, error) { return oneMessage{}, nil }

func (oneMessage) Read(context.Context) (jsonrpc.Message, error) {
	id, _ := jsonrpc.MakeID(float64(1234))
	return &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"read"}`)}, nil
}

func (oneMessage) Write(context.Context, jsonrpc.Message) error { return nil }
func (oneMessage) Close() error                                 { return nil }
func (oneMessage) SessionID() string                            { return "" }

// TestSessionClosedByFolio: a session over pipes (as stdio is) that folio
// closes, as it does when it stops, ended as asked: its duration has no
// error.type, though go-sdk's Wait says its read failed.
func TestSessionClosedByFolio(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	in, err := (&telemetry.Telemetry{Meter: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))}).Instruments()
	if err != nil {
		t.Fatal(err)
	}
	s := newEnv(t).server(t, serverOpts{local: true, telemetry: in})
	sr, cw, _ := os.Pipe() // client → server
	cr, sw, _ := os.Pipe() // server → client
	defer func() { cw.Close(); cr.Close() }()
	ss, err := s.Connect(context.Background(), &mcp.IOTransport{Reader: sr, Writer: sw})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: sessionEra})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ss.Close()
	if err := ss.Wait(); err == nil {
		t.Log("go-sdk's Wait no longer fails here")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != "mcp.server.session.duration" {
					continue
				}
				for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
					if e, failed := dp.Attributes.Value("error.type"); failed {
						t.Errorf("a session folio closed ended with error.type %s", e.AsString())
					}
				}
				return
			}
		}
	}
	t.Error("no mcp.server.session.duration")
}
