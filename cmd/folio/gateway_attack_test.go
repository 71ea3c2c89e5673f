package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/upstream"
)

// The gateway under attack, through the real binary: hostile upstreams
// (rawmcp, which speaks JSON-RPC by hand) and clients that send what the
// protocol allows but folio's own client never does. Each test checks that
// folio stays up, and what it costs.

// gateway is a folio serve in front of upstreams, over stdio.
type gateway struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *mcptest.Buffer
}

// serveGateway writes servers as the upstreams file in dir and starts
// folio serve over stdio in front of them, with its schema cache in dir
// too, connected with opts.
func serveGateway(t *testing.T, dir string, servers map[string]any, opts *mcp.ClientOptions, flags ...string) *gateway {
	t.Helper()
	config := filepath.Join(dir, "mcp.json")
	writeUpstreams(t, config, servers)
	// Under the race detector, discovering the heaviest upstreams (tens
	// of MiB of tools) takes longer than 5 s.
	timeout := "5s"
	if raceEnabled {
		timeout = "30s"
	}
	args := append([]string{"serve", "--root", dir, "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"), "--upstream-timeout", timeout}, flags...)
	cmd := exec.Command(folioBin, args...)
	cmd.Env = testmain.Env(t)
	g := &gateway{cmd: cmd, stderr: &mcptest.Buffer{}}
	cmd.Stderr = g.stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, g.stderr)
	}
	g.cs = cs
	t.Cleanup(func() { cs.Close() })
	return g
}

// alive fails the test when folio has died.
func (g *gateway) alive(t *testing.T) {
	t.Helper()
	if err := g.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("folio died: %v\n%s", err, g.stderr)
	}
	if _, err := g.cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("folio does not answer: %v\n%s", err, g.stderr)
	}
}

// procStatus is a number of /proc/PID/status (memory in kB).
func procStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// cpuTime is the CPU time process pid has used, user and system.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's name, which ends with ")": utime
	// and stime are the 12th and 13th, in clock ticks of 1/100 s.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return time.Duration(u+s) * 10 * time.Millisecond
}

// peakRSS fails the test when folio's peak resident memory passed the
// bound every attack must keep to.
func peakRSS(t *testing.T, pid int) {
	t.Helper()
	const boundMB = 300
	peak := procStatus(t, pid, "VmHWM") / 1024
	t.Logf("peak RSS %d MB", peak)
	if peak >= boundMB && !raceEnabled {
		t.Errorf("peak RSS %d MB, over %d MB", peak, boundMB)
	}
}

// progressLog records the progress notifications a client receives.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
}

func (l *progressLog) handler(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, r.Params)
}

// of are the notifications received under token, once n have come (or
// after five seconds).
func (l *progressLog) of(token any, n int) []*mcp.ProgressNotificationParams {
	for range 100 {
		l.mu.Lock()
		var out []*mcp.ProgressNotificationParams
		for _, p := range l.got {
			if p.ProgressToken == token {
				out = append(out, p)
			}
		}
		l.mu.Unlock()
		if len(out) >= n {
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*mcp.ProgressNotificationParams
	for _, p := range l.got {
		if p.ProgressToken == token {
			out = append(out, p)
		}
	}
	return out
}

// TestGatewayProgressTokens: progress tokens are strings or numbers, and
// both come back as they were sent, over stdio and over HTTP (folio died
// of a number once). A token of another type is not forwarded, and
// folio stays up.
func TestGatewayProgressTokens(t *testing.T) {
	t.Parallel()
	bin := upstreamtest.Binary(t)
	servers := map[string]any{"up": map[string]any{"command": bin, "args": []string{"-calltools"}}}
	check := func(t *testing.T, cs *mcp.ClientSession, log *progressLog) {
		// As a client's JSON decodes them: numbers are float64.
		for _, token := range []any{float64(1), float64(7), "s", 2.5, float64(-3), float64(1 << 40), ""} {
			params := &mcp.CallToolParams{Name: "up__progress", Meta: mcp.Meta{"progressToken": token}}
			if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
				t.Fatalf("token %v: %v %v", token, res, err)
			}
			got := log.of(token, 3)
			var steps []float64
			for _, p := range got {
				steps = append(steps, p.Progress)
			}
			slices.Sort(steps)
			if !slices.Equal(steps, []float64{1, 2, 3}) {
				t.Errorf("token %#v: progress %v", token, steps)
			}
		}
		for _, token := range []any{true, map[string]any{"x": 1}, []any{1}} {
			params := &mcp.CallToolParams{Name: "up__progress", Meta: mcp.Meta{"progressToken": token}}
			cs.CallTool(context.Background(), params) // refused or not: folio stays up
		}
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("folio does not answer after tokens of other types: %v", err)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		log := &progressLog{}
		g := serveGateway(t, t.TempDir(), servers, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
		check(t, g.cs, log)
		g.alive(t)
	})
	t.Run("http", func(t *testing.T) {
		dir := t.TempDir()
		config := filepath.Join(dir, "mcp.json")
		writeUpstreams(t, config, servers)
		p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"))
		log := &progressLog{}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: log.handler}).
			Connect(context.Background(), httpTransport(p.endpoint, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		check(t, cs, log)
	})
}

// TestGatewayProgressSpoofing: an upstream that sends progress under
// tokens it guesses, or under the token another upstream was given for a
// call in flight, reaches no caller; its own honest progress, while its
// call runs, does.
func TestGatewayProgressSpoofing(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	log := &progressLog{}
	g := serveGateway(t, dir, map[string]any{
		"good": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-calltools", "-tokenfile", tokenFile, "-progressgap", "300ms"}},
		"evil": map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-spoof", tokenFile, "-spoof-for", "1500ms"}},
	}, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	var wg sync.WaitGroup
	for name, token := range map[string]string{"good__progress": "b", "evil__echo": "a"} {
		wg.Go(func() {
			params := &mcp.CallToolParams{Name: name, Meta: mcp.Meta{"progressToken": token}}
			if res, err := g.cs.CallTool(context.Background(), params); err != nil || res.IsError {
				t.Errorf("%s: %v %v", name, res, err)
			}
		})
	}
	wg.Wait()
	good, evil := log.of("b", 3), log.of("a", 1)
	var steps []float64
	for _, p := range good {
		steps = append(steps, p.Progress)
	}
	slices.Sort(steps)
	if !slices.Equal(steps, []float64{1, 2, 3}) {
		t.Errorf("the good call's progress: %v", steps)
	}
	if len(evil) != 1 || evil[0].Message != "own" {
		t.Errorf("the evil call's progress: %d notices, first %+v", len(evil), evil[0])
	}
	time.Sleep(200 * time.Millisecond)
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, p := range log.got {
		if p.Message == "spoofed" {
			t.Fatalf("a spoofed notice reached the caller under %v", p.ProgressToken)
		}
	}
	if b, _ := os.ReadFile(tokenFile); len(b) < len("folio-")+22 {
		t.Errorf("the token forwarded is %q: not 128 random bits", b)
	}
}

// TestGatewayHostileUpstreams: upstreams that flood tools/list_changed,
// advertise self-referencing schemas, names that collide or cannot be
// made valid, or 40 MiB of tools in pages, or answer 12 MB: folio stays up, each loses at most its
// own tools, and folio starts again from the cache they left.
func TestGatewayHostileUpstreams(t *testing.T) {
	raw := upstreamtest.Raw(t)
	dir := t.TempDir()
	lists := filepath.Join(dir, "lists")
	servers := map[string]any{
		"refs": map[string]any{"command": raw, "args": []string{"-tools", `[
			{"name":"loop","inputSchema":{"type":"object","$ref":"#"}},
			{"name":"cycle","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}},
			{"name":"tree","inputSchema":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}}]`}},
		"flood": map[string]any{"command": raw, "args": []string{"-flood", "12000", "-lists", lists}},
		"dup": map[string]any{"command": raw, "args": []string{"-tools", `[
			{"name":"a/b","inputSchema":{"type":"object"}},{"name":"a_b","inputSchema":{"type":"object"}},
			{"name":"` + strings.Repeat("n", 70) + `","inputSchema":{"type":"object"}},
			{"name":"schemaless"},{"name":"fine","inputSchema":{"type":"object"}}]`}},
		"big": map[string]any{"command": raw, "args": []string{"-answer", "12000000"}},
		// 40 pages of a tool defined in 1 MiB: more than is kept.
		"heavy": map[string]any{"command": raw, "args": []string{"-pages", "40", "-describe", strconv.Itoa(1 << 20),
			"-tools", `[{"name":"h","inputSchema":{"type":"object"}}]`}},
	}
	want := []string{"big__echo", "dup__fine", "flood__echo", "grep", "list", "outline", "read", "refs__cycle", "refs__loop", "refs__tree", "result_query", "search_docs"}
	started := time.Now()
	g := serveGateway(t, dir, servers, nil)
	if got := mcptest.ToolNames(t, g.cs); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"refs__loop", nil}, {"refs__cycle", map[string]any{"a": 1}}, {"refs__tree", map[string]any{"kids": []any{map[string]any{"kids": []any{}}}}}} {
		if text, isErr := mcptest.CallText(t, g.cs, c.tool, c.args); isErr || text != strings.Repeat("x", 10) {
			t.Errorf("%s: %s", c.tool, text)
		}
	}
	text, isErr := mcptest.CallText(t, g.cs, "big__echo", nil)
	if !isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, "upstream big") || !strings.Contains(text, "8388608") {
		t.Errorf("a 12 MB answer: %.300s", text)
	}
	// The flood asks for many discoveries; a few are made.
	var n int
	for range 40 {
		time.Sleep(100 * time.Millisecond)
		b, _ := os.ReadFile(lists)
		n = strings.Count(string(b), "\n")
	}
	threads := procStatus(t, g.cmd.Process.Pid, "Threads")
	// Two rounds at start-up, then one a second at most, and one waiting.
	most := 3 + int(time.Since(started)/upstream.RefreshInterval)
	t.Logf("12,000 list_changed: %d tools/list (at most %d), %d threads", n, most, threads)
	if n > most || threads > 64 {
		t.Errorf("12,000 list_changed: %d tools/list, %d threads", n, threads)
	}
	g.alive(t)
	for _, want := range []string{`\"a/b\" and \"a_b\" would all be offered as \"dup__a_b\"`, "not a valid MCP tool name", `tool \"schemaless\": its input schema`, "arguments of this tool are not checked", "its tools come to over 16777216 bytes"} {
		if !strings.Contains(g.stderr.String(), want) {
			t.Errorf("the log does not say %s", want)
		}
	}
	peakRSS(t, g.cmd.Process.Pid)
	g.cs.Close()

	// The cache now holds what they advertised: folio starts from it.
	g = serveGateway(t, dir, servers, nil)
	if got := mcptest.ToolNames(t, g.cs); !slices.Equal(got, want) {
		t.Fatalf("from the cache: tools %v, want %v", got, want)
	}
}

// TestGatewayRefusesAmbiguousNames: upstreams e and e_ would both offer
// e___x: serve refuses them, naming both.
func TestGatewayRefusesAmbiguousNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	writeUpstreams(t, config, map[string]any{"e": map[string]any{"command": "x"}, "e_": map[string]any{"command": "y"}})
	r := folio(t, "", "serve", "--root", dir, "--upstreams", config)
	if r.code == 0 || !strings.Contains(r.stderr, `servers \"e\" and \"e_\"`) {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

// postUnread sends body as a POST of the session cs on a connection of
// its own, with a small receive buffer, and never reads the answer.
func postUnread(t *testing.T, endpoint string, cs *mcp.ClientSession, body string) net.Conn {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetReadBuffer(4096)
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: %s\r\n",
		u.Path, u.Host, cs.InitializeResult().ProtocolVersion)
	if id := cs.ID(); id != "" {
		req += "Mcp-Session-Id: " + id + "\r\n"
	}
	req += fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGatewayReferenceBounds: references that would substitute more than
// --max-answer-bytes are refused before the tool runs, naming the
// argument and the references over, and a folded answer named 10,000
// times is read once; more references than that are refused unread;
// folio's memory stays bounded throughout.
func TestGatewayReferenceBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	callLog := filepath.Join(dir, "calls")
	megabyte := write(t, dir, "mb.txt", strings.Repeat("a line of a file of one megabyte\n", 1<<20/33))
	g := serveGateway(t, dir, map[string]any{
		"src": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-datatools"}},
		"dst": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-datatools", "-calllog", callLog}},
	}, nil, "--fold-threshold-bytes", "2048")
	pid := g.cmd.Process.Pid

	// 150 references to a 1 MiB file.
	uris := make([]string, 150)
	for i := range uris {
		uris[i] = "file://" + megabyte
	}
	text, isErr := mcptest.CallText(t, g.cs, "dst__ingest", map[string]any{"data_uri": uris})
	if !isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, "data_uri: its references 8 to 150 (of 150)") || !strings.Contains(text, "8388608") {
		t.Errorf("150 references to 1 MiB: %.400s", text)
	}
	// 10,000 references to one folded answer of 44 KB (as JSON): 8 MiB
	// holds 190 of them. 40,000 are too many to count.
	res := mcptest.Call(t, g.cs, "src__log", nil)
	handle := foldedHandle(t, res)
	refs := slices.Repeat([]string{"mcp+cache://" + handle}, 10_000)
	before := cpuTime(t, pid)
	text, isErr = mcptest.CallText(t, g.cs, "dst__ingest", map[string]any{"data_uri": refs})
	t.Logf("10,000 references to one answer: %v of CPU", cpuTime(t, pid)-before)
	if !isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, "its references 191 to 10000 (of 10000)") {
		t.Errorf("10,000 references to one answer: %.400s", text)
	}
	text, isErr = mcptest.CallText(t, g.cs, "dst__ingest", map[string]any{"data_uri": slices.Repeat([]string{"mcp+cache://" + handle}, 40_000)})
	if !isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, "more than 10000 references") {
		t.Errorf("40,000 references: %.400s", text)
	}
	if b, _ := os.ReadFile(callLog); strings.Contains(string(b), "ingest") {
		t.Error("the tool was called with references over the bound")
	}
	// References that fit go through: the first rows of a folded series.
	series := foldedHandle(t, mcptest.Call(t, g.cs, "src__series", nil))
	rows := make([]string, 100)
	for i := range rows {
		rows[i] = fmt.Sprintf("mcp+cache://%s#/series/%d", series, i)
	}
	if text, isErr := mcptest.CallText(t, g.cs, "dst__ingest", map[string]any{"data_uri": rows}); isErr || text != "rows 100 sum 5000" {
		t.Errorf("100 references to rows: %s", text)
	}
	// A reference to a value of the wrong type: the error says which, and
	// what was found and wanted, in a few tokens, never the value.
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	text, isErr = mcptest.CallText(t, g.cs, "dst__ingest", map[string]any{"data_uri": "mcp+cache://" + series})
	if !isErr || !strings.Contains(text, `data, the value data_uri refers to, does not fit`) || !strings.Contains(text, `found \"object\", want a value of type \"array\"`) ||
		strings.Contains(text, "2026-11-30") || counter.Count(text) > 300 {
		t.Errorf("a reference to an object for an array (%d tokens): %.600s", counter.Count(text), text)
	}
	missing := slices.Repeat([]string{"mcp+cache://AAAAAAAAAAAAAAAAAAAAAA#/" + strings.Repeat("x", 500)}, 1000)
	text, isErr = mcptest.CallText(t, g.cs, "dst__ingest", map[string]any{"data_uri": missing})
	if !isErr || !strings.Contains(text, "reference_not_found") || !strings.Contains(text, `"missing":1000`) || counter.Count(text) > 300 {
		t.Errorf("1,000 missing references (%d tokens): %.600s", counter.Count(text), text)
	}

	g.alive(t)
	peakRSS(t, pid)
}

// TestGatewayReferenceFlood: a call naming one folded answer 100,000
// times (3.7 MB of arguments) is refused too_large, over stdio and over
// HTTP, and the tool is not called. Over stdio, folio runs with the
// collector off, so that what its peak memory grows by over the call is
// what the call allocates, not when the collector ran: reading the line
// and go-sdk's decoding of it (twice) take about 25 MB, and the refusal
// must add little to that (< 32 MB in all). When the references were
// decoded and checked before they were counted, it took 37 MB (and 54 MB
// when folio's stdio also grew a long line by a quarter at a time).
// Over HTTP, such a request allocates about 100 MB before folio's stages
// see it, nearly all of it go-sdk v1.8.0's (it reads the body twice more
// after folio's guard, decodes the arguments whole to check the Mcp-Name
// header, and the params twice more), so the refusal is checked there,
// and the bound every attack keeps to (peakRSS).
func TestGatewayReferenceFlood(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			dir := t.TempDir()
			callLog := filepath.Join(dir, "calls")
			servers := map[string]any{
				"src": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-datatools"}},
				"dst": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-datatools", "-calllog", callLog}},
			}
			var cs *mcp.ClientSession
			var pid int
			if transport == "stdio" {
				t.Setenv("GOGC", "off")
				g := serveGateway(t, dir, servers, nil, "--fold-threshold-bytes", "2048")
				cs, pid = g.cs, g.cmd.Process.Pid
			} else {
				config := filepath.Join(dir, "mcp.json")
				writeUpstreams(t, config, servers)
				p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"), "--fold-threshold-bytes", "2048")
				var err error
				cs, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), httpTransport(p.endpoint, ""), nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				pid = p.cmd.Process.Pid
			}
			handle := foldedHandle(t, mcptest.Call(t, cs, "src__log", nil))
			refs := slices.Repeat([]string{"mcp+cache://" + handle}, 100_000)
			before := procStatus(t, pid, "VmHWM")
			text, isErr := mcptest.CallText(t, cs, "dst__ingest", map[string]any{"data_uri": refs})
			grown := (procStatus(t, pid, "VmHWM") - before) / 1024
			t.Logf("100,000 references to one answer: peak RSS %d MB, +%d MB over the call", before/1024+grown, grown)
			if !isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, "data_uri: the call passes more than 10000 references") {
				t.Errorf("100,000 references: %.400s", text)
			}
			if b, _ := os.ReadFile(callLog); strings.Contains(string(b), "ingest") {
				t.Error("the tool was called with 100,000 references")
			}
			const boundMB = 32
			if transport == "stdio" && grown >= boundMB && !raceEnabled {
				t.Errorf("folio's peak RSS grew by %d MB refusing 100,000 references, over %d MB", grown, boundMB)
			}
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Errorf("folio does not answer: %v", err)
			}
			peakRSS(t, pid)
		})
	}
}

// TestGatewayDeepPointers: an answer nested 9,000 deep, and a pointer
// thousands of steps into it, cost what the answer is long, not its depth
// times that: folding it, and following the pointer through result_query
// and through a reference.
func TestGatewayDeepPointers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	g := serveGateway(t, dir, map[string]any{
		"dst":  map[string]any{"command": upstreamtest.Binary(t)},
		"deep": map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-deep", "9000"}},
	}, nil)
	pid := g.cmd.Process.Pid
	before := cpuTime(t, pid)
	deep := foldedHandle(t, mcptest.Call(t, g.cs, "deep__echo", nil))
	folding := cpuTime(t, pid) - before
	t.Logf("folding an answer 9,000 deep: %v of CPU", folding)
	before = cpuTime(t, pid)
	// result_query says the path back: 7,000 steps fit its answer, and
	// of the value 2,000 deep, its pad.
	for range 5 {
		res := mcptest.Call(t, g.cs, "result_query", map[string]any{"handle": deep, "path": strings.Repeat("/a", 7000), "fields": []string{"pad"}})
		if text := mcptest.Text(res); res.IsError || !strings.Contains(text, `"value":{"pad":"ppp`) {
			t.Fatalf("the deep query: %.300s", text)
		}
	}
	text, isErr := mcptest.CallText(t, g.cs, "dst__echo", map[string]any{"text_uri": "mcp+cache://" + deep + "#" + strings.Repeat("/a", 9000)})
	if isErr || !strings.Contains(text, `"text":"bottom"`) {
		t.Errorf("a reference 9,000 deep: %.300s", text)
	}
	spent := cpuTime(t, pid) - before
	t.Logf("5 queries 7,000 deep and a reference 9,000 deep: %v of CPU", spent)
	// Each took seconds of CPU when each level rescanned the rest (and
	// so did the preview, folding it).
	if (spent > 2*time.Second || folding > 2*time.Second) && !raceEnabled {
		t.Errorf("folding took %v of CPU, 5 queries and a reference %v", folding, spent)
	}
	g.alive(t)
	peakRSS(t, pid)
}

// TestAnswersHoldReadMemory: clients that ask for a 24 MiB page and never
// read their answers hold at most the read memory between them, however
// many they are; once they go, a reader is served.
func TestAnswersHoldReadMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := "twenty-four mebibytes of text, read whole in one page\n"
	path := write(t, dir, "big.txt", strings.Repeat(line, 24<<20/len(line)))
	p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--read-memory", strconv.Itoa(64<<20), "--max-file-bytes", strconv.Itoa(64<<20))
	pid := p.cmd.Process.Pid
	cs := dial(t, httpTransport(p.endpoint, ""))
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":%q,"max_tokens":16777216}}}`, path)
	var conns []net.Conn
	for range 8 {
		conns = append(conns, postUnread(t, p.endpoint, dial(t, httpTransport(p.endpoint, "")), body))
	}
	time.Sleep(5 * time.Second) // the answers are made, and stuck
	peakRSS(t, pid)
	for _, c := range conns {
		c.Close()
	}
	text, isErr := readTool(t, cs, map[string]any{"path": path, "max_tokens": 2000})
	if isErr || !strings.Contains(text, "twenty-four") {
		t.Errorf("a read after the slow clients left: %.300s", text)
	}
	peakRSS(t, pid)
}

// alivePID reports whether process pid is running (a zombie is not).
func alivePID(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	return f[0] != "Z" && f[0] != "X"
}

// TestUpstreamsEndWithFolio: whichever way folio ends, on its client's
// end of stdin or on SIGTERM, every upstream process ends with it: one
// that exits when its stdin closes, one that ignores that and SIGTERM
// too, and the children they started. An upstream that prints a banner
// before it speaks MCP is served all the same.
func TestUpstreamsEndWithFolio(t *testing.T) {
	t.Parallel()
	raw := upstreamtest.Raw(t)
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			g := serveGateway(t, dir, map[string]any{
				"polite":   map[string]any{"command": raw, "args": []string{"-pidfile", pids, "-child"}},
				"stubborn": map[string]any{"command": raw, "args": []string{"-pidfile", pids, "-child", "-stubborn"}},
				"banner":   map[string]any{"command": raw, "args": []string{"-pidfile", pids, "-banner", "Secure MCP Filesystem Server running on stdio"}},
			}, nil, "--upstream-start", "eager") // every upstream running when folio ends
			want := []string{"banner__echo", "grep", "list", "outline", "polite__echo", "read", "result_query", "search_docs", "stubborn__echo"}
			if got := mcptest.ToolNames(t, g.cs); !slices.Equal(got, want) {
				t.Fatalf("tools %v, want %v\n%s", got, want, g.stderr)
			}
			if text, isErr := mcptest.CallText(t, g.cs, "banner__echo", nil); isErr || text != strings.Repeat("x", 10) {
				t.Errorf("the server with a banner: %s", text)
			}
			if !strings.Contains(g.stderr.String(), "Secure MCP Filesystem Server running on stdio") {
				t.Error("the banner was not logged")
			}
			b, _ := os.ReadFile(pids)
			var running []int
			for _, f := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(f)
				running = append(running, pid)
			}
			if len(running) != 5 {
				t.Fatalf("pids %v", running)
			}
			start := time.Now()
			if how == "SIGTERM" {
				g.cmd.Process.Signal(syscall.SIGTERM)
			}
			g.cs.Close() // closes folio's stdin, and waits for it to exit
			t.Logf("folio exited %v after it was let go", time.Since(start).Round(time.Millisecond))
			if code := g.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("folio exited with %d\n%s", code, g.stderr)
			}
			for _, pid := range running {
				// A process killed as folio ends takes a moment to be gone.
				for wait := 0; wait < 500 && alivePID(pid); wait++ {
					time.Sleep(10 * time.Millisecond)
				}
				if alivePID(pid) {
					t.Errorf("process %d outlived folio by 5 s", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// TestGatewayTaskRequiredTools: a tool that can only be called as a task
// (server-everything's simulate-research-query) is left out, said once in
// the log, from discovery and from the cache alike; one whose tasks are
// optional is offered and called plainly.
func TestGatewayTaskRequiredTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	servers := map[string]any{
		"up": map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-tools", `[
			{"name":"plain","inputSchema":{"type":"object"}},
			{"name":"maybe","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},
			{"name":"research","title":"Research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]`}},
	}
	want := []string{"grep", "list", "outline", "read", "result_query", "search_docs", "up__maybe", "up__plain"}
	for _, from := range []string{"discovery", "the cache"} {
		g := serveGateway(t, dir, servers, nil)
		if got := mcptest.ToolNames(t, g.cs); !slices.Equal(got, want) {
			t.Fatalf("from %s: tools %v, want %v", from, got, want)
		}
		for _, tool := range []string{"up__plain", "up__maybe"} {
			if text, isErr := mcptest.CallText(t, g.cs, tool, nil); isErr || text != strings.Repeat("x", 10) {
				t.Errorf("from %s: %s: %s", from, tool, text)
			}
		}
		g.cs.Close()
		g.cmd.Wait()
		if n := strings.Count(g.stderr.String(), `tool \"research\" can only be called as a task`); n != 1 {
			t.Errorf("from %s: the log says %d times that research is left out:\n%s", from, n, g.stderr)
		}
	}
}
