package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/otelcoltest"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// TestTelemetryConventions: what the MCP semantic conventions (semconv
// 1.41) ask of folio's spans and metrics reaches a real OpenTelemetry
// Collector, over stdio and HTTP, in both protocol eras (a 2025-11-25
// session that begins with initialize; 2026-07-28 requests without one):
//
//   - every server span carries mcp.protocol.version, initialize's and
//     server/discover's too, and so do their metric points;
//   - every request's span carries jsonrpc.request.id, a string id as its
//     value and a number's digits, and no notification's does;
//   - over HTTP, spans carry network.protocol.name and .version and
//     client.address and .port, and metric points the first two (no
//     client's address is a series);
//   - a session's end records mcp.server.session.duration, over stdio and
//     HTTP, and no 2026-07-28 request records one;
//   - folio's own requests to upstreams are client spans: the handshake
//     (server/discover of a 2026-07-28 upstream, initialize of a
//     2025-11-25 one) and tools/list of a discovery, with the attributes
//     of a tools/call's (which now has its id too), and an HTTP
//     upstream's server.address and .port;
//   - each connection to an upstream records mcp.client.session.duration
//     when it closes, error.type session_lost when the upstream's process
//     exited under it.
func TestTelemetryConventions(t *testing.T) {
	c := otelcoltest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.Endpoint)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "200")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# Doc\n\nSome text.\n"), 0o600)
	web := upstreamtest.HTTP(t) // with sessions: it speaks 2025-11-25
	webURL, _ := url.Parse(web)
	marks := filepath.Join(dir, "up.pids")
	upstreams := map[string]any{
		"up":  map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-mark", marks}},
		"web": map[string]any{"type": "http", "url": web},
	}
	// Each folio tells its own spans and points by its resource.
	instance := func(t *testing.T, name string) {
		t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id="+name)
	}
	readArgs := map[string]any{"path": "doc.md", "max_tokens": 500}

	t.Run("stdio, 2025-11-25, upstreams", func(t *testing.T) {
		instance(t, "stdio-2025")
		config := filepath.Join(dir, "mcp.json")
		writeUpstreams(t, config, upstreams)
		cmd := exec.Command(folioBin, "serve", "--root", dir, "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"))
		cmd.Env = testmain.Env(t)
		stderr := &strings.Builder{}
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			&mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		for _, name := range []string{"read", "up__echo", "web__echo"} {
			args := map[string]any{"text": "hi"}
			if name == "read" {
				args = readArgs
			}
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args}); err != nil || res.IsError {
				t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr)
			}
		}
		// The process the call started exits under folio.
		b, _ := os.ReadFile(marks)
		pids := strings.Fields(string(b))
		pid, _ := strconv.Atoi(pids[len(pids)-1])
		syscall.Kill(pid, syscall.SIGKILL)
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), "exited unasked"); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("folio did not see its upstream exit:\n%s", stderr)
			}
		}
		cs.Close() // folio exits, and flushes what it holds
	})

	t.Run("stdio, 2026-07-28", func(t *testing.T) {
		instance(t, "stdio-2026")
		cs := dial(t, &mcp.CommandTransport{Command: folioCmd(t, "serve", "--root", dir)})
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("over stdio: %s", v)
		}
		if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: readArgs}); err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		cs.Close()
	})

	t.Run("HTTP, 2025-11-25", func(t *testing.T) {
		p, err := startProc(t, []string{"OTEL_RESOURCE_ATTRIBUTES=service.instance.id=http-2025"}, "--root", dir, "--http", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			httpTransport(p.endpoint, ""), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: readArgs}); err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		cs.Close() // ends the session
		p.stop(t)
	})

	t.Run("HTTP, 2026-07-28", func(t *testing.T) {
		p, err := startProc(t, []string{"OTEL_RESOURCE_ATTRIBUTES=service.instance.id=http-2026"}, "--root", dir, "--http", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cs := dial(t, httpTransport(p.endpoint, ""))
		if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: readArgs}); err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		// A string id, given last, as the TypeScript SDK writes it.
		body := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read","arguments":{"path":"doc.md","max_tokens":500},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":"request-7"}`
		req, _ := http.NewRequest(http.MethodPost, p.endpoint, strings.NewReader(body))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "read"} {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"request-7"`) {
			t.Fatalf("%s: %s", res.Status, answer)
		}
		cs.Close()
		p.stop(t)
	})

	// What each folio sent, once all of it has come.
	spans := map[string][]otelcoltest.Span{}
	points := map[string]map[string][]otelcoltest.Point{}
	var missing string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		clear(spans)
		for _, s := range c.Spans(t) {
			spans[s.Resource["service.instance.id"]] = append(spans[s.Resource["service.instance.id"]], s)
		}
		clear(points)
		for _, name := range []string{"mcp.server.operation.duration", "mcp.client.operation.duration", "mcp.server.session.duration", "mcp.client.session.duration"} {
			for _, p := range latest(c.Points(t, name)) {
				id := p.Resource["service.instance.id"]
				if points[id] == nil {
					points[id] = map[string][]otelcoltest.Point{}
				}
				points[id][name] = append(points[id][name], p)
			}
		}
		missing = ""
		for _, want := range []struct{ instance, span string }{
			{"stdio-2025", "tools/call web__echo"}, {"stdio-2025", "tools/call echo"}, {"stdio-2026", "tools/call read"},
			{"http-2025", "tools/call read"}, {"http-2026", "tools/call read"},
		} {
			if !slices.ContainsFunc(spans[want.instance], func(s otelcoltest.Span) bool { return s.Name == want.span }) {
				missing += fmt.Sprintf(" %s's %q span;", want.instance, want.span)
			}
		}
		for _, instance := range []string{"stdio-2025", "stdio-2026", "http-2025", "http-2026"} {
			if len(points[instance]["mcp.server.operation.duration"]) == 0 {
				missing += " " + instance + "'s points;"
			}
		}
		if missing == "" || time.Now().After(deadline) {
			break
		}
	}
	if missing != "" {
		t.Fatalf("the collector has not received%s\n%s", missing, c.Log())
	}

	eras := map[string]string{"stdio-2025": "2025-11-25", "stdio-2026": "2026-07-28", "http-2025": "2025-11-25", "http-2026": "2026-07-28"}
	for instance, era := range eras {
		overHTTP := strings.HasPrefix(instance, "http")
		methods := map[string]bool{}
		for _, s := range spans[instance] {
			if s.Kind != 2 {
				continue
			}
			a := s.Attributes
			methods[a["mcp.method.name"]] = true
			what := instance + "'s " + s.Name + " span"
			if a["mcp.protocol.version"] != era {
				t.Errorf("%s: mcp.protocol.version %q, want %q (all: %v)", what, a["mcp.protocol.version"], era, a)
			}
			if notification := strings.HasPrefix(s.Name, "notifications/"); notification != (a["jsonrpc.request.id"] == "") {
				t.Errorf("%s: jsonrpc.request.id %q", what, a["jsonrpc.request.id"])
			}
			if port, err := strconv.Atoi(a["client.port"]); overHTTP && (a["network.transport"] != "tcp" || a["network.protocol.name"] != "http" ||
				a["network.protocol.version"] != "1.1" || a["client.address"] != "127.0.0.1" || err != nil || port <= 0) {
				t.Errorf("%s over HTTP: %v", what, a)
			}
			if !overHTTP && (a["network.transport"] != "pipe" || a["network.protocol.name"] != "" || a["client.address"] != "") {
				t.Errorf("%s over stdio: %v", what, a)
			}
		}
		handshake := "initialize"
		if era == "2026-07-28" {
			handshake = "server/discover"
		}
		if !methods[handshake] || !methods["tools/call"] {
			t.Errorf("%s: server spans of %v, want %s and tools/call", instance, methods, handshake)
		}
		for _, p := range points[instance]["mcp.server.operation.duration"] {
			a := p.Attributes
			if a["mcp.protocol.version"] != era || a["client.address"] != "" || a["jsonrpc.request.id"] != "" ||
				overHTTP != (a["network.protocol.name"] == "http" && a["network.protocol.version"] == "1.1") {
				t.Errorf("%s: a point of mcp.server.operation.duration: %v", instance, a)
			}
			if !slices.Equal(p.Bounds, []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}) || p.Unit != "s" {
				t.Errorf("%s: mcp.server.operation.duration in %q, buckets %v", instance, p.Unit, p.Bounds)
			}
		}
		sessions := points[instance]["mcp.server.session.duration"]
		switch {
		case era == "2026-07-28" && len(sessions) > 0:
			t.Errorf("%s: sessions of requests without one: %+v", instance, sessions)
		case era == "2025-11-25" && len(sessions) != 1:
			t.Errorf("%s: %d points of mcp.server.session.duration, want 1", instance, len(sessions))
		case era == "2025-11-25":
			a := sessions[0].Attributes
			want := map[string]string{"mcp.protocol.version": era, "network.transport": "pipe"}
			if overHTTP {
				want = map[string]string{"mcp.protocol.version": era, "network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1"}
			}
			if sessions[0].Count != 1 || sessions[0].Unit != "s" || a["error.type"] != "" || len(sessions[0].Bounds) != 14 {
				t.Errorf("%s: the session's point: %+v", instance, sessions[0])
			}
			for k, v := range want {
				if a[k] != v {
					t.Errorf("%s: the session's %s is %q, want %q (all: %v)", instance, k, a[k], v, a)
				}
			}
		}
	}
	// The string id, as its value.
	if !slices.ContainsFunc(spans["http-2026"], func(s otelcoltest.Span) bool {
		return s.Name == "tools/call read" && s.Attributes["jsonrpc.request.id"] == "request-7"
	}) {
		t.Errorf("no span of the request whose id is \"request-7\": %+v", spans["http-2026"])
	}

	// folio's own requests to its upstreams.
	webPort, _ := strconv.Atoi(webURL.Port())
	upstream := func(a map[string]string) string {
		switch {
		case a["network.transport"] == "pipe" && a["server.address"] == "" && a["network.protocol.name"] == "":
			return "up"
		case a["network.transport"] == "tcp" && a["network.protocol.name"] == "http" && a["server.address"] == "127.0.0.1" && a["server.port"] == strconv.Itoa(webPort):
			return "web"
		}
		return fmt.Sprint(a)
	}
	upEra := map[string]string{"up": "2026-07-28", "web": "2025-11-25"}
	client := map[string]bool{}
	for _, s := range spans["stdio-2025"] {
		if s.Kind != 3 {
			continue
		}
		a := s.Attributes
		up := upstream(a)
		client[up+" "+s.Name] = true
		era := upEra[up]
		if s.Name == "server/discover" {
			era = "2026-07-28" // what it asks for (web answers it has not that version)
		}
		if upEra[up] == "" || a["jsonrpc.request.id"] == "" || a["mcp.method.name"] == "" || a["mcp.protocol.version"] != era {
			t.Errorf("the client span %s to %s: %v", s.Name, up, a)
		}
		if up == "web" && s.Name != "initialize" && s.Name != "server/discover" && a["mcp.session.id"] == "" {
			t.Errorf("the client span %s in web's session has no mcp.session.id: %v", s.Name, a)
		}
	}
	for _, want := range []string{"up server/discover", "up tools/list", "up tools/call echo", "web initialize", "web tools/list", "web tools/call echo"} {
		if !client[want] {
			t.Errorf("no client span %q among %v", want, client)
		}
	}
	for _, method := range []string{"server/discover", "initialize", "tools/list", "tools/call"} {
		if !slices.ContainsFunc(points["stdio-2025"]["mcp.client.operation.duration"], func(p otelcoltest.Point) bool {
			return p.Attributes["mcp.method.name"] == method
		}) {
			t.Errorf("no point of mcp.client.operation.duration of %s: %+v", method, points["stdio-2025"]["mcp.client.operation.duration"])
		}
	}
	lost := false
	ended := map[string]bool{}
	for _, p := range points["stdio-2025"]["mcp.client.session.duration"] {
		a := p.Attributes
		up := upstream(a)
		ended[up] = true
		if a["mcp.protocol.version"] != upEra[up] || p.Unit != "s" || len(p.Bounds) != 14 {
			t.Errorf("a point of mcp.client.session.duration: %+v", p)
		}
		switch a["error.type"] {
		case "session_lost":
			lost = lost || up == "up"
		case "":
		default:
			t.Errorf("a session ended with %q: %v", a["error.type"], a)
		}
	}
	if !ended["up"] || !ended["web"] || !lost {
		t.Errorf("the upstream sessions that ended: %v; up's lost: %v", ended, lost)
	}
}

// latest are the last of points of each series: a metric's point is sent
// again with each export, as it stands then.
func latest(points []otelcoltest.Point) []otelcoltest.Point {
	var out []otelcoltest.Point
	at := map[string]int{}
	for _, p := range points {
		key := fmt.Sprint(p.Resource, p.Attributes) // maps print sorted
		if i, ok := at[key]; ok {
			out[i] = p
			continue
		}
		at[key] = len(out)
		out = append(out, p)
	}
	return out
}
