package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"
)

// TestClientHTTP: a real go-sdk client connects to a real go-sdk
// streamable HTTP server through ClientHTTP, and is told as
// ClientTransport tells a connection, from its HTTP exchanges:
//
//   - answers as event streams (/sse, stateful): server/discover (which
//     the server answers without 2026-07-28), initialize and tools/list
//     are spans of their own, with their ids, tools/list's session id, and
//     its trace context reaching the server; a tools/call under
//     StartClient's span gives that span its id and session; the stream of
//     the session's notices is open (go-sdk was told of the session); a
//     tools/call no span covers, cancelled, is a span that failed; folio's
//     close (a DELETE) records the session, no error;
//   - JSON answers, every request redirected (/old to /json): each request
//     one span all the same, a 503 answer's error.type 503, and when the
//     server forgets the session (404) the session is lost;
//   - a stateless server in 2026-07-28 (/stateless): server/discover,
//     tools/list and tools/call spans, and no session recorded (nothing
//     says when it ends).
func TestClientHTTP(t *testing.T) {
	in, rec, reader := recording(t)
	// The traceparent of each tools/list, by its request's path.
	server, listMeta := echoServer(func(req mcp.Request) string { return req.GetExtra().Header.Get("Folio-Path") })
	waiting, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	server.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		waiting <- struct{}{}
		<-ctx.Done() // by the client's notifications/cancelled
		cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	serve := func(*http.Request) *mcp.Server { return server }
	handlers := map[string]http.Handler{
		"/sse":       mcp.NewStreamableHTTPHandler(serve, nil),
		"/json":      mcp.NewStreamableHTTPHandler(serve, &mcp.StreamableHTTPOptions{JSONResponse: true}),
		"/stateless": mcp.NewStreamableHTTPHandler(serve, &mcp.StreamableHTTPOptions{Stateless: true}),
	}
	var forget, unavailable atomic.Bool
	var redirects atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/old":
			redirects.Add(1)
			http.Redirect(w, r, "/json", http.StatusTemporaryRedirect)
		case r.URL.Path == "/json" && forget.Load() && r.Header.Get("Mcp-Session-Id") != "":
			http.Error(w, "session not found", http.StatusNotFound)
		case r.URL.Path == "/json" && unavailable.Load() && r.Method == http.MethodPost:
			http.Error(w, "try later", http.StatusServiceUnavailable)
		default:
			r.Header.Set("Folio-Path", r.URL.Path)
			handlers[r.URL.Path].ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	endpoint := Endpoint{Transport: TransportTCP, Network: "http", Address: u.Hostname(), Port: port}
	changed := make(chan string, 1) // the session told of a new tool
	connect := func(path, era string) *mcp.ClientSession {
		t.Helper()
		var opt *mcp.ClientSessionOptions
		if era != "" {
			opt = &mcp.ClientSessionOptions{ProtocolVersion: era}
		}
		transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + path,
			HTTPClient: &http.Client{Transport: in.ClientHTTP(http.DefaultTransport, endpoint)}}
		var copt *mcp.ClientOptions
		if path == "/sse" {
			copt = &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- path }}
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, copt)
		cs, err := client.Connect(context.Background(), transport, opt)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	call := func(cs *mcp.ClientSession, era string) {
		t.Helper()
		meta := mcp.Meta{}
		ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Tool: "echo", ProtocolVersion: era, Meta: meta})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Meta: meta})
		span.End(ctx, res != nil && res.IsError, err)
		if err != nil {
			t.Fatal(err)
		}
	}

	// Event streams, in a session; the client tries 2026-07-28 first.
	cs := connect("/sse", "")
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	call(cs, "2025-11-25")
	// The session's stream of notices is open: go-sdk was told of the
	// session.
	server.AddTool(&mcp.Tool{Name: "new", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	<-changed
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-waiting; cancel() }()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"}); err == nil {
		t.Error("a cancelled call answered")
	}
	<-cancelled
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}

	// JSON answers, every request redirected; the server forgets the
	// session.
	cs = connect("/old", "2025-11-25")
	unavailable.Store(true)
	if _, err := cs.ListTools(context.Background(), nil); err == nil {
		t.Error("tools/list answered 503")
	}
	unavailable.Store(false)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	call(cs, "2025-11-25")
	forget.Store(true)
	if _, err := cs.ListTools(context.Background(), nil); err == nil {
		t.Error("tools/list answered in a session forgotten")
	}
	cs.Close()
	if redirects.Load() < 5 {
		t.Errorf("%d requests redirected", redirects.Load())
	}

	// Stateless, 2026-07-28.
	cs = connect("/stateless", "2026-07-28")
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	call(cs, "2026-07-28")
	cs.Close()

	type seen struct {
		name  string
		attrs map[string]string
		span  trace.SpanContext
		error bool
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
		spans = append(spans, seen{s.Name(), a, s.SpanContext(), s.Status().Code == codes.Error})
	}
	want := []struct {
		name, era, errorType string
		session              bool
	}{
		{"server/discover", "2026-07-28", "", false}, {"initialize", "2025-11-25", "", false},
		{"tools/list", "2025-11-25", "", true}, {"tools/call echo", "2025-11-25", "", true}, {"tools/call wait", "2025-11-25", "?", true},

		{"initialize", "2025-11-25", "", false}, {"tools/list", "2025-11-25", "503", true}, {"tools/list", "2025-11-25", "", true},
		{"tools/call echo", "2025-11-25", "", true}, {"tools/list", "2025-11-25", "404", true},

		{"server/discover", "2026-07-28", "", false}, {"tools/list", "2026-07-28", "", false}, {"tools/call echo", "2026-07-28", "", false},
	}
	if len(spans) != len(want) {
		for _, s := range spans {
			t.Logf("%s %v", s.name, s.attrs)
		}
		t.Fatalf("%d spans, want %d", len(spans), len(want))
	}
	sessions := map[string]bool{}
	for i, w := range want {
		s := spans[i]
		if s.name != w.name || s.attrs["jsonrpc.request.id"] == "" || s.attrs["network.transport"] != "tcp" ||
			s.attrs["network.protocol.name"] != "http" || s.attrs["server.address"] != "127.0.0.1" || s.attrs["server.port"] != u.Port() {
			t.Errorf("span %d: %s %v, want %s with its id and the endpoint", i, s.name, s.attrs, w.name)
		}
		if s.attrs["mcp.protocol.version"] != w.era {
			t.Errorf("span %d, %s: mcp.protocol.version %q, want %q", i, s.name, s.attrs["mcp.protocol.version"], w.era)
		}
		switch got := s.attrs["error.type"]; {
		case w.errorType == "?" && (got == "" || !s.error):
			t.Errorf("span %d, %s: error.type %q, status error %v: want a failure", i, s.name, got, s.error)
		case w.errorType != "?" && got != w.errorType:
			t.Errorf("span %d, %s: error.type %q, want %q (%v)", i, s.name, got, w.errorType, s.attrs)
		}
		if id := s.attrs["mcp.session.id"]; (id != "") != w.session {
			t.Errorf("span %d, %s: mcp.session.id %q", i, s.name, id)
		} else if id != "" {
			sessions[id] = true
		}
	}
	if len(sessions) != 2 {
		t.Errorf("sessions %v, want 2", sessions)
	}
	for path, i := range map[string]int{"/sse": 2, "/json": 7, "/stateless": 11} {
		s := spans[i].span
		if got, want := listMeta(path), "00-"+s.TraceID().String()+"-"+s.SpanID().String()+"-01"; got != want {
			t.Errorf("%s's tools/list reached the server with traceparent %q, want %q", path, got, want)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var points []metricdata.HistogramDataPoint[float64]
	methods := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "mcp.client.operation.duration":
				for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
					v, _ := dp.Attributes.Value("mcp.method.name")
					methods[v.AsString()] = true
				}
			case "mcp.client.session.duration":
				points = m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	for _, m := range []string{"server/discover", "initialize", "tools/list", "tools/call"} {
		if !methods[m] {
			t.Errorf("no point of mcp.client.operation.duration of %s: %v", m, methods)
		}
	}
	errorTypes := map[string]int{}
	for _, dp := range points {
		v, _ := dp.Attributes.Value("mcp.protocol.version")
		e, _ := dp.Attributes.Value("error.type")
		a, _ := dp.Attributes.Value("server.address")
		if v.AsString() != "2025-11-25" || a.AsString() != "127.0.0.1" || dp.Count != 1 {
			t.Errorf("a session's point: %+v", dp)
		}
		errorTypes[e.AsString()]++
	}
	if len(points) != 2 || errorTypes[""] != 1 || errorTypes[SessionLost] != 1 {
		t.Errorf("the sessions' error types: %v, want one ended, one lost", errorTypes)
	}
}

// TestClientHTTPOff: without instruments, the RoundTripper is the one
// given.
func TestClientHTTPOff(t *testing.T) {
	var in *Instruments
	if rt := in.ClientHTTP(http.DefaultTransport, Endpoint{}); rt != http.DefaultTransport {
		t.Errorf("%T", rt)
	}
}

// TestReadHead: the method and the id of a message's body, read from its
// start, whatever the order of its members; what may come later is said
// to be missing.
func TestReadHead(t *testing.T) {
	for _, c := range []struct {
		body           string
		method, id     string
		call, complete bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`, "tools/call", "7", true, true},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{`, "tools/call", `a"b`, true, true},
		{`{"jsonrpc":"2.0","method":"tools/list","params":{},"id":3}`, "tools/list", "3", true, true},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, "notifications/initialized", "", false, true},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":`, "", "", false, false},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, "x", "", false, true},
		{` { "method" : "tools\/call" , "id" : 12 }`, "tools/call", "12", true, true},
		{`{"\u0069d":1,"method":"ping"}`, "ping", "1", true, true},
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[`, "", "", false, true},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "", false, true},
		{`{"jsonrpc":"2.0","id":4`, "", "", false, false},
		{`{"jsonrpc":"2.0","id":4,"meth`, "", "", false, false},
		{``, "", "", false, false},
		{`nonsense`, "", "", false, true},
	} {
		h, complete := readHead([]byte(c.body))
		if h.method != c.method || h.id != c.id || h.call != c.call || complete != c.complete {
			t.Errorf("%s: %+v complete %v, want %q %q %v complete %v", c.body, h, complete, c.method, c.id, c.call, c.complete)
		}
	}
}

// FuzzReadHead: what readHead reads of a JSON-RPC request's body, whole,
// is what go-sdk decodes of it, and no start of a body makes it fail.
func FuzzReadHead(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{},"id":"q"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"method":"a\u0062","id":-1.5e3,"jsonrpc":"2.0"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for n := range min(len(b), 64) {
			readHead(b[:n])
		}
		h, complete := readHead(b)
		msg, err := jsonrpc.DecodeMessage(b)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !json.Valid(b) || !utf8.Valid(b) || duplicateKeys(b) {
			return // not one message go-sdk wrote, nor would
		}
		if _, number := req.ID.Raw().(int64); number && h.call {
			if n, err := strconv.ParseInt(h.id, 10, 64); err != nil || strconv.FormatInt(n, 10) != h.id {
				return // a number go-sdk does not write so (1.0, 1e2)
			}
		}
		if !complete || h.method != req.Method || h.call != req.IsCall() || (h.call && h.id != IDText(req.ID)) {
			t.Errorf("%s: %+v (complete %v), go-sdk: %s %v", b, h, complete, req.Method, req.ID.Raw())
		}
	})
}

// duplicateKeys reports whether the JSON object b gives a member twice.
func duplicateKeys(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	keys := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := tok.(string)
		if keys[key] {
			return true
		}
		keys[key] = true
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return false
}

// BenchmarkClientCallHTTP is what ClientHTTP adds to a traced call of an
// upstream's tool over streamable HTTP: a go-sdk client calling a go-sdk
// server on a loopback listener, each call under StartClient's span
// (batched to an exporter that drops it) with its duration recorded,
// through http.DefaultTransport and through ClientHTTP (which reads the
// start of each POST's body for the span's id).
func BenchmarkClientCallHTTP(b *testing.B) {
	in := benchInstruments(b)
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	defer srv.Close()
	for _, wrapped := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "ClientHTTP"}[wrapped], func(b *testing.B) {
			var rt http.RoundTripper = http.DefaultTransport
			if wrapped {
				rt = in.ClientHTTP(rt, Endpoint{Transport: TransportTCP, Network: "http", Address: "127.0.0.1"})
			}
			transport := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), transport, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"text": string(bytes.Repeat([]byte("x"), 4096))}
			b.ReportAllocs()
			for b.Loop() {
				meta := mcp.Meta{}
				ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Tool: "echo", Transport: TransportTCP, Meta: meta})
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args, Meta: meta})
				span.End(ctx, false, err)
				if err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClientHTTPPost is what ClientHTTP adds to the POST of a call
// under StartClient's span (a 4 KiB tools/call, as go-sdk makes its
// request), its answer from a RoundTripper that makes none: the span
// started and ended either way.
func BenchmarkClientHTTPPost(b *testing.B) {
	in := benchInstruments(b)
	params, _ := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]any{"text": string(bytes.Repeat([]byte("x"), 4096))}})
	id, _ := jsonrpc.MakeID(float64(12))
	body, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: "tools/call", Params: params})
	if err != nil {
		b.Fatal(err)
	}
	answer := stubRoundTripper{}
	for _, wrapped := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "ClientHTTP"}[wrapped], func(b *testing.B) {
			var rt http.RoundTripper = answer
			if wrapped {
				rt = in.ClientHTTP(rt, Endpoint{Transport: TransportTCP, Network: "http", Address: "127.0.0.1"})
			}
			b.ReportAllocs()
			for b.Loop() {
				ctx, span := in.StartClient(context.Background(), Operation{Method: "tools/call", Tool: "echo", Transport: TransportTCP, Meta: map[string]any{}})
				r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
				r.Header.Set(sessionHeader, "S1")
				resp, err := rt.RoundTrip(r)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				span.End(ctx, false, nil)
			}
		})
	}
}

// stubRoundTripper answers every request 200 with an empty JSON body.
type stubRoundTripper struct{}

func (stubRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: http.NoBody, Request: r}, nil
}
