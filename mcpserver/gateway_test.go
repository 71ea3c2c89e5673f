package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/upstream"
)

// TestGatewaySessions: a session keeps the tools it started with when an
// upstream changes its own (announced by its tools/list_changed): it is
// told once, a call of a tool that is gone says so, and a new session gets
// the new tools. A token's tools list narrows what it sees and calls.
// Progress comes back under the caller's token, and a cancelled call is
// cancelled upstream.
func TestGatewaySessions(t *testing.T) {
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	toolsFile, cancelFile := filepath.Join(dir, "tools"), filepath.Join(dir, "cancelled")
	os.WriteFile(toolsFile, []byte("a,b"), 0o644)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	g, err := upstream.Start(ctx, []upstream.Server{{Name: "up", Transport: upstream.Stdio, Command: bin,
		Args: []string{"-toolsfile", toolsFile, "-calltools", "-cancelfile", cancelFile}}},
		upstream.Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	e := newEnv(t)
	all, narrow := e.addToken(t, "alice"), e.addTokenTools(t, "bob", "read", "up__a")
	s := e.server(t, serverOpts{gateway: g})
	url := serveHTTP(t, s)

	var mu sync.Mutex
	var notices []string
	//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
	first := dialSession(t, url, all, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		mu.Lock()
		notices = append(notices, r.Params.Data.(string))
		mu.Unlock()
	}})
	//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
	if err := first.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"grep", "list", "outline", "read", "result_query", "up__a", "up__b", "up__block", "up__confirm", "up__progress"}
	if got := mcptest.ToolNames(t, first); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	if got := mcptest.ToolNames(t, dialSession(t, url, narrow, nil)); !slices.Equal(got, []string{"read", "up__a"}) {
		t.Errorf("a token limited to read and up__a sees %v", got)
	}
	if _, err := dialSession(t, url, narrow, nil).CallTool(ctx, toolCall("up__b", nil)); err == nil {
		t.Error("a token limited to read and up__a called up__b")
	}

	// The upstream drops b and adds c.
	os.WriteFile(toolsFile, []byte("a,c"), 0o644)
	mcptest.Eventually(t, "no drift notice", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(notices) > 0
	})
	mu.Lock()
	if len(notices) != 1 || !strings.Contains(notices[0], "upstream up changed its tools: added up__c; removed up__b;") || !strings.Contains(notices[0], "a new session") {
		t.Errorf("drift notices %q", notices)
	}
	mu.Unlock()
	if got := mcptest.ToolNames(t, first); !slices.Equal(got, want) {
		t.Errorf("the session's tools changed: %v", got)
	}
	r := call(t, first, "up__b", nil)
	if !r.isError || !strings.Contains(r.text, "no longer offered") {
		t.Errorf("a call of a gone tool: %s", r.text)
	}
	if got := mcptest.ToolNames(t, dialSession(t, url, all, nil)); !slices.Contains(got, "up__c") || slices.Contains(got, "up__b") {
		t.Errorf("a new session sees %v", got)
	}

	// Progress comes back under the caller's own token.
	var progress []float64
	withProgress := dialSession(t, url, all, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if r.Params.ProgressToken == "mine" {
			mu.Lock()
			progress = append(progress, r.Params.Progress)
			mu.Unlock()
		}
	}})
	params := toolCall("up__progress", nil)
	params.SetProgressToken("mine")
	if res, err := withProgress.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("progress: %v %v", res, err)
	}
	for i := 0; ; i++ {
		mu.Lock()
		got := slices.Clone(progress)
		mu.Unlock()
		if len(got) == 3 {
			slices.Sort(got) // notifications are handled as they come, not in turn
			if !slices.Equal(got, []float64{1, 2, 3}) {
				t.Errorf("progress %v", got)
			}
			break
		}
		if i == 100 {
			t.Fatalf("progress %v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A cancelled call is cancelled upstream.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	withProgress.CallTool(cctx, toolCall("up__block", nil))
	for i := 0; ; i++ {
		if _, err := os.Stat(cancelFile); err == nil {
			break
		}
		if i == 200 {
			t.Fatal("the upstream's call was not cancelled")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDriftWithoutLogLevel: a session folio connects itself (stdio) hears
// of drift though its client never set a log level; one that set a level
// above warning does not.
func TestDriftWithoutLogLevel(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		testDriftWithoutLogLevel(t, func(e *env, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
			return dialMemoryEra(t, s, sessionEra, opts)
		})
	})
	t.Run("http", func(t *testing.T) {
		var endpoint string
		testDriftWithoutLogLevel(t, func(e *env, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
			if endpoint == "" {
				endpoint = serveHTTP(t, s)
			}
			return dialSession(t, endpoint, e.addToken(t, "alice"), opts)
		})
	})
}

// toolsFileGateway is a gateway in front of one fakemcp upstream, "up",
// whose tools are the names in toolsFile (a and b, at first): writing the
// file changes them, and the upstream announces it.
func toolsFileGateway(t *testing.T) (g *upstream.Gateway, toolsFile string) {
	t.Helper()
	dir := t.TempDir()
	toolsFile = filepath.Join(dir, "tools")
	os.WriteFile(toolsFile, []byte("a,b"), 0o644)
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	g, err := upstream.Start(ctx, []upstream.Server{{Name: "up", Transport: upstream.Stdio, Command: upstreamtest.Binary(t), Args: []string{"-toolsfile", toolsFile}}},
		upstream.Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g, toolsFile
}

func testDriftWithoutLogLevel(t *testing.T, dial func(*env, *Server, *mcp.ClientOptions) *mcp.ClientSession) {
	g, toolsFile := toolsFileGateway(t)
	e := newEnv(t)
	s := e.server(t, serverOpts{gateway: g})
	var mu sync.Mutex
	heard := map[string]int{}
	listen := func(name string) *mcp.ClientOptions {
		//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
		return &mcp.ClientOptions{LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {
			mu.Lock()
			heard[name]++
			mu.Unlock()
		}}
	}
	quiet, errorsOnly := dial(e, s, listen("quiet")), dial(e, s, listen("errors only"))
	//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
	if err := errorsOnly.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	mcptest.ToolNames(t, quiet)
	mcptest.ToolNames(t, errorsOnly)
	os.WriteFile(toolsFile, []byte("a,c"), 0o644)
	mcptest.Eventually(t, "a session that never set a log level heard no drift", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return heard["quiet"] > 0
	})
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if heard["errors only"] != 0 {
		t.Errorf("a session that asked for errors only heard %d warnings", heard["errors only"])
	}
}

// TestSessionlessToolList: a client of the 2026-07-28 era, over stdio and
// over HTTP, lists the upstream tools as they are now, hears
// notifications/tools/list_changed on its listen stream when they change,
// and no log message it did not ask for; a session of the older era keeps
// its tools and hears no list_changed.
func TestSessionlessToolList(t *testing.T) {
	g, toolsFile := toolsFileGateway(t)
	e := newEnv(t)
	s := e.server(t, serverOpts{gateway: g})
	endpoint := serveHTTP(t, s)
	tok := e.addToken(t, "alice")
	var mu sync.Mutex
	heard := map[string]int{}
	listen := func(name string) *mcp.ClientOptions {
		return &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				mu.Lock()
				heard[name+" list_changed"]++
				mu.Unlock()
			},
			//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
			LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {
				mu.Lock()
				heard[name+" message"]++
				mu.Unlock()
			},
		}
	}
	clients := map[string]*mcp.ClientSession{
		"stdio":   dialMemory(t, s, listen("stdio")),
		"http":    dialHTTP(t, endpoint, tok, listen("http")),
		"session": dialSession(t, endpoint, tok, listen("session")),
	}
	for name, cs := range clients {
		if got := mcptest.ToolNames(t, cs); !slices.Contains(got, "up__b") {
			t.Fatalf("%s: %v", name, got)
		}
	}
	// What start-up announced has been heard by now.
	time.Sleep(time.Second)
	mu.Lock()
	before := map[string]int{"stdio": heard["stdio list_changed"], "http": heard["http list_changed"]}
	mu.Unlock()
	os.WriteFile(toolsFile, []byte("a,c"), 0o644)
	mcptest.Eventually(t, "list_changed not heard", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return heard["stdio list_changed"] > before["stdio"] && heard["http list_changed"] > before["http"]
	})
	for _, name := range []string{"stdio", "http"} {
		if got := mcptest.ToolNames(t, clients[name]); !slices.Contains(got, "up__c") || slices.Contains(got, "up__b") {
			t.Errorf("%s after the change: %v", name, got)
		}
	}
	if got := mcptest.ToolNames(t, clients["session"]); !slices.Contains(got, "up__b") {
		t.Errorf("the session's tools changed: %v", got)
	}
	// A call of a tool that is gone says so.
	if r := call(t, clients["http"], "up__b", nil); r.code != toolerr.CodeNotFound || !strings.Contains(r.text, "list the tools again") {
		t.Errorf("a call of a tool that went: %s", r.text)
	}
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if heard["stdio message"]+heard["http message"] != 0 || heard["session list_changed"] != 0 {
		t.Errorf("heard %v", heard)
	}
}

// TestGatewayInputRequired: folio speaks 2026-07-28 to an upstream that
// speaks it (over stdio and HTTP) and 2025-11-25 to one that does not, and an upstream tool that
// asks for input (two rounds of input_required, SEP-2322) works through
// it: a client of the 2026-07-28 era sees the input requests and the
// upstream's requestState unchanged, and its retries reach the upstream;
// the go-sdk client's own loop, answering from its elicitation handler,
// gets the answer; a session of the 2025-11-25 era is asked within the
// call, round after round.
func TestGatewayInputRequired(t *testing.T) {
	dir := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	cachePath := filepath.Join(dir, "cache.json")
	g, err := upstream.Start(ctx, []upstream.Server{
		{Name: "up", Transport: upstream.Stdio, Command: upstreamtest.Binary(t), Args: []string{"-calltools"}},
		{Name: "web", Transport: upstream.HTTP, URL: upstreamtest.HTTP(t, "-calltools", "-stateless")},
		{Name: "old", Transport: upstream.Stdio, Command: upstreamtest.Raw(t)},
	}, upstream.Options{CachePath: cachePath, Timeout: 10 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	cache, err := upstream.ReadCache(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"up": "2026-07-28", "web": "2026-07-28", "old": "2025-11-25"} {
		if got := cache.Upstreams[name].Protocol; got != want {
			t.Errorf("upstream %s spoke %q, want %s", name, got, want)
		}
	}
	e := newEnv(t)
	tok := e.addToken(t, "alice")
	s := e.server(t, serverOpts{gateway: g})
	url := serveHTTP(t, s)
	answers := func(answer string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer + " to " + req.Params.Message}}, nil
		}}
	}
	for name, cs := range map[string]*mcp.ClientSession{
		"stdio":             dialMemory(t, e.server(t, serverOpts{gateway: g, local: true}), answers("yes")),
		"http, sessionless": dialHTTP(t, url, tok, answers("yes")),
		"http, session":     dialSession(t, url, tok, answers("yes")),
	} {
		if text, isErr := mcptest.CallText(t, cs, "old__echo", nil); isErr || text != strings.Repeat("x", 10) {
			t.Errorf("%s: the older upstream's tool: %s", name, text)
		}
		for _, tool := range []string{"up__confirm", "web__confirm"} {
			text, isErr := mcptest.CallText(t, cs, tool, map[string]any{"action": "drop"})
			if isErr || !regexp.MustCompile(`^confirmed drop by \d+: yes to really drop$`).MatchString(text) {
				t.Errorf("%s: %s: %s", name, tool, text)
			}
		}
	}

	// A client that answers for itself sees each round as it is.
	cs := dialHTTP(t, url, tok, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	p := &mcp.CallToolParams{Name: "up__confirm", Arguments: map[string]any{"action": "drop"}}
	var pid string
	for round, ask := range []string{"ok", "really"} {
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`^fakemcp/(\d+)/(\d)/drop$`).FindStringSubmatch(res.RequestState)
		q, _ := res.InputRequests[ask].(*mcp.ElicitParams)
		if !res.NeedsInput() || m == nil || m[2] != fmt.Sprint(round+1) || (pid != "" && m[1] != pid) || q == nil || len(res.Content) != 0 {
			t.Fatalf("round %d: %+v (needs input %v)", round+1, res, res.NeedsInput())
		}
		pid = m[1]
		p.RequestState = res.RequestState
		p.InputResponses = mcp.InputResponseMap{ask: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "sure"}}}
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil || res.NeedsInput() || mcptest.Text(res) != "confirmed drop by "+pid+": sure" {
		t.Fatalf("the last round: %v %+v", err, res)
	}
	// A requestState the upstream did not give is the upstream's to
	// refuse: folio passes it as it came.
	p.RequestState = "fakemcp/1/2/drop"
	if res, err := cs.CallTool(context.Background(), p); err != nil || !res.IsError || !strings.Contains(mcptest.Text(res), "is not one this server gave") {
		t.Errorf("a forged requestState: %v %+v", err, res)
	}
	// An older session's client is asked at most 16 things at once.
	if text, isErr := mcptest.CallText(t, dialSession(t, url, tok, answers("yes")), "up__confirm", map[string]any{"action": "ask-many"}); !isErr || !strings.Contains(text, "17 input requests at once") {
		t.Errorf("seventeen questions: %s", text)
	}
	// A session of the older era whose client cannot answer is told so.
	mute := dialSession(t, url, tok, nil)
	if text, isErr := mcptest.CallText(t, mute, "up__confirm", map[string]any{"action": "drop"}); !isErr || !strings.Contains(text, "did not give") {
		t.Errorf("a client without elicitation: %s", text)
	}
}

// TestGatewayToolsTTL: the gateway's tools/list keeps a minute, or less
// when an upstream of the 2026-07-28 era says less of its own (go-sdk's
// default is 0: at once stale); an older upstream's missing ttlMs says
// nothing.
func TestGatewayToolsTTL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		servers []upstream.Server
		want    time.Duration
	}{
		{"an older upstream", []upstream.Server{{Name: "old", Transport: upstream.Stdio, Command: upstreamtest.Raw(t)}}, time.Minute},
		{"five seconds", []upstream.Server{
			{Name: "old", Transport: upstream.Stdio, Command: upstreamtest.Raw(t)},
			{Name: "five", Transport: upstream.Stdio, Command: upstreamtest.Binary(t), Args: []string{"-ttl", "5s"}},
			{Name: "hour", Transport: upstream.Stdio, Command: upstreamtest.Binary(t), Args: []string{"-ttl", "1h"}},
		}, 5 * time.Second},
		{"go-sdk's default", []upstream.Server{{Name: "up", Transport: upstream.Stdio, Command: upstreamtest.Binary(t)}}, 0},
	} {
		ctx, stop := context.WithCancel(context.Background())
		g, err := upstream.Start(ctx, tc.servers, upstream.Options{CachePath: filepath.Join(t.TempDir(), "cache.json"), Timeout: 10 * time.Second, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t)
		tok := e.addToken(t, "alice")
		url := serveHTTP(t, e.server(t, serverOpts{gateway: g}))
		for era, cs := range map[string]*mcp.ClientSession{"sessionless": dialHTTP(t, url, tok, nil), "session": dialSession(t, url, tok, nil)} {
			list, err := cs.ListTools(ctx, nil)
			if err != nil || list.TTLMs != int(tc.want.Milliseconds()) || list.CacheScope != "private" || len(list.Tools) <= 4 {
				t.Errorf("%s, %s: %d tools, ttlMs %d %s (%v), want %d", tc.name, era, len(list.Tools), list.TTLMs, list.CacheScope, err, tc.want.Milliseconds())
			}
		}
		g.Close()
		stop()
	}
}
