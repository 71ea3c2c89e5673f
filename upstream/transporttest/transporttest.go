package transporttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/upstream"
)

// Upstream is fakemcp started over the transport under test.
type Upstream struct {
	// Server is how folio reaches it; Run names it.
	Server upstream.Server
	// Restart starts it again where it was, with the same arguments,
	// after it exited (an HTTP server that crashed and came back); nil
	// when folio starts it again itself (stdio: each connection is a
	// process folio starts).
	Restart func(t *testing.T)
}

// Start starts fakemcp with args (its flags) over the transport under
// test, for as long as t lasts.
type Start func(t *testing.T, args ...string) Upstream

// Bounds of the checks: what takes longer is a hang.
const (
	// CallWait bounds a call that must end (cancelled, its upstream gone,
	// or its answer over the bound): longer under the race detector, which
	// reads a 16 MiB answer in about 7 s on an idle 2-core machine.
	CallWait = 10 * time.Second * raceSlowdown
	// Timeout is the gateway's start and discovery timeout.
	Timeout = 10 * time.Second
)

// Run checks the transport that start starts fakemcp over: connect and
// initialize, tools/list with the upstream's fields as it sent them, a
// call and its answer (its size measured as it came), progress delivered
// before the answer and in order, a cancelled call returning and its
// cancellation reaching the upstream, an
// answer over upstream.MaxMessageBytes refused with folio still up, the
// upstream dying mid-call (an error, then a new connection), concurrent
// calls each answered with their own result, and tools/list_changed
// followed.
func Run(t *testing.T, start Start) {
	t.Helper()
	for _, c := range []struct {
		name  string
		check func(*testing.T, Start)
	}{
		{"Initialize", checkInitialize},
		{"ToolsList", checkToolsList},
		{"Call", checkCall},
		{"Progress", checkProgress},
		{"Cancel", checkCancel},
		{"CancelReachesUpstream", checkCancelReachesUpstream},
		{"TooLarge", checkTooLarge},
		{"Dies", checkDies},
		{"Concurrent", checkConcurrent},
		{"ListChanged", checkListChanged},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, start) })
	}
}

// name is the name Run gives the upstream.
const name = "up"

// server starts fakemcp with args through start, named name.
func server(t *testing.T, start Start, args ...string) Upstream {
	t.Helper()
	u := start(t, args...)
	u.Server.Name = name
	return u
}

// gateway holds s, with a cache file of its own and a short backoff, until
// the test ends.
func gateway(t *testing.T, s upstream.Server) *upstream.Gateway {
	t.Helper()
	g, err := upstream.Start(context.Background(), []upstream.Server{s}, upstream.Options{
		CachePath: filepath.Join(t.TempDir(), "cache.json"), Timeout: Timeout, Version: "test", Backoff: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// tool is the gateway's tool of the upstream's own name original.
func tool(t *testing.T, g *upstream.Gateway, original string) upstream.Tool {
	t.Helper()
	c, err := g.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tl, ok := c.Lookup(name + upstream.Separator + original)
	if !ok {
		t.Fatalf("no tool %s among %v", original, names(c))
	}
	return tl
}

// names are the names the catalog offers.
func names(c *upstream.Catalog) []string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, t.Name)
	}
	return out
}

// text is the text of the answer's only content block.
func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return fmt.Sprintf("%+v", res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("%+v", res.Content[0])
}

// call calls tool with args and checks that it answers want.
func call(t *testing.T, g *upstream.Gateway, tl upstream.Tool, args, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallWait)
	defer cancel()
	res, _, err := g.Call(ctx, tl, json.RawMessage(args), upstream.Round{}, nil, nil)
	if err != nil || res.IsError || text(res) != want {
		t.Fatalf("%s(%s): %s, %v; want %q", tl.Name, args, text(res), err, want)
	}
}

// within runs fn, failing the test when it takes longer than CallWait
// (the call it makes hangs), and returns how long it took.
func within(t *testing.T, what string, fn func()) time.Duration {
	t.Helper()
	started := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(CallWait + 5*time.Second):
		t.Fatalf("%s hangs: no end after %v", what, CallWait+5*time.Second)
	}
	return time.Since(started)
}

// checkInitialize: the upstream is connected and initialized, and told of
// (its implementation's name and version), its tools listed.
func checkInitialize(t *testing.T, start Start) {
	u := server(t, start, "-tools", "alpha,beta", "-version", "2.1.0")
	e, err := upstream.Discover(context.Background(), u.Server, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Tools) != 2 || !strings.Contains(string(e.Tools[0]), `"name":"alpha"`) || e.Server != "fakemcp" || e.Version != "2.1.0" ||
		e.Fingerprint != u.Server.Fingerprint() || e.Fetched.IsZero() {
		t.Errorf("discovered %+v", e)
	}
}

// checkToolsList: the catalog has the upstream's tools with their fields as it
// sent them: a schema's keys in its order, not sorted; title, annotations
// and description.
func checkToolsList(t *testing.T, start Start) {
	u := server(t, start, "-tools", "alpha,beta", "-rich")
	g := gateway(t, u.Server)
	c, err := g.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c); !slices.Equal(got, []string{"up__alpha", "up__beta"}) {
		t.Fatalf("tools %v", got)
	}
	a := tool(t, g, "alpha")
	for _, want := range []string{`"name":"alpha"`, `"title":"ALPHA"`, `"description":"Answers alpha and its arguments."`,
		`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}`, `"annotations":{`, `"readOnlyHint":true`, `"openWorldHint":true`} {
		if !strings.Contains(string(a.Raw), want) {
			t.Errorf("the definition as it came, %s, has no %s", a.Raw, want)
		}
	}
	if a.Original != "alpha" || a.Def.Name != "up__alpha" || a.Def.Title != "ALPHA" || a.Def.Description != "Answers alpha and its arguments." ||
		a.Def.Annotations == nil || !a.Def.Annotations.ReadOnlyHint || string(a.Def.InputSchema.(json.RawMessage)) != `{"type":"object","properties":{"text":{"type":"string"}}}` {
		t.Errorf("the tool offered: %+v %+v", a, a.Def)
	}
}

// checkCall: a call is answered with the upstream's answer, and its size is the
// bytes of the answer's result as it came: for a short answer and for one
// of 4 MiB.
func checkCall(t *testing.T, start Start) {
	const bigBytes = 4 << 20
	u := server(t, start, "-tools", "alpha", "-big", fmt.Sprint(bigBytes))
	g := gateway(t, u.Server)
	ctx := context.Background()
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"alpha", `{"text":"hi <&> é"}`, `alpha {"text":"hi <&> é"}`},
		{"big", `{}`, strings.Repeat("b", bigBytes)},
	} {
		res, size, err := g.Call(ctx, tool(t, g, tc.tool), json.RawMessage(tc.args), upstream.Round{}, nil, nil)
		if err != nil || res.IsError || text(res) != tc.want {
			t.Fatalf("%s: %.100s, %v", tc.tool, text(res), err)
		}
		// What go-sdk's server sends is what go-sdk encodes.
		b, _ := json.Marshal(res)
		if size != len(b) {
			t.Errorf("%s: the answer's size %d, want %d", tc.tool, size, len(b))
		}
	}
}

// checkProgress: the progress the upstream notifies before its answer reaches
// the caller under the caller's token, all of it, in order, before the
// call returns; nothing after. With no gap between the notices and the
// answer, and with one.
func checkProgress(t *testing.T, start Start) {
	for _, gap := range []time.Duration{0, 20 * time.Millisecond} {
		t.Run(fmt.Sprint("gap ", gap), func(t *testing.T) {
			u := server(t, start, "-calltools", "-progressgap", gap.String())
			g := gateway(t, u.Server)
			var mu sync.Mutex
			var got []string
			res, _, err := g.Call(context.Background(), tool(t, g, "progress"), json.RawMessage(`{}`), upstream.Round{}, "caller-7",
				func(p *mcp.ProgressNotificationParams) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, fmt.Sprintf("%v %g/%g", p.ProgressToken, p.Progress, p.Total))
				})
			mu.Lock()
			got = append(got, "answer")
			mu.Unlock()
			if err != nil || text(res) != "done" {
				t.Fatalf("%s, %v", text(res), err)
			}
			time.Sleep(100 * time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"caller-7 1/3", "caller-7 2/3", "caller-7 3/3", "answer"}; !slices.Equal(got, want) {
				t.Errorf("the caller saw %q, want %q", got, want)
			}
		})
	}
}

// checkCancel: a call cancelled while the upstream works on it returns
// at once, and the connection goes on.
func checkCancel(t *testing.T, start Start) {
	cancelled(t, start)
}

// checkCancelReachesUpstream: the upstream is told of a call cancelled
// while it works on it (its work is cancelled).
func checkCancelReachesUpstream(t *testing.T, start Start) {
	told := cancelled(t, start)
	waitFor(t, "the upstream to be told of the cancellation", func() bool {
		_, err := os.Stat(told)
		return err == nil
	})
}

// cancelled cancels a call while the upstream works on it, and checks
// that the call returns at once and the connection goes on; it returns
// the file the upstream writes when it is told.
func cancelled(t *testing.T, start Start) string {
	t.Helper()
	dir := t.TempDir()
	calls, told := filepath.Join(dir, "calls"), filepath.Join(dir, "cancelled")
	u := server(t, start, "-tools", "alpha", "-calltools", "-calllog", calls, "-cancelfile", told)
	g := gateway(t, u.Server)
	block := tool(t, g, "block")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, err = g.Call(ctx, block, json.RawMessage(`{}`), upstream.Round{}, nil, nil)
	}()
	waitFor(t, "the call to reach the upstream", func() bool {
		b, _ := os.ReadFile(calls)
		return strings.Contains(string(b), "block")
	})
	cancel()
	select {
	case <-done:
		if err == nil {
			t.Error("a cancelled call answered")
		}
	case <-time.After(CallWait):
		t.Fatalf("a cancelled call has not returned after %v", CallWait)
	}
	call(t, g, tool(t, g, "alpha"), `{"text":"after"}`, `alpha {"text":"after"}`)
	return told
}

// waitFor waits until ok, at most CallWait.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(CallWait); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", CallWait, what)
		}
	}
}

// checkTooLarge: an answer over upstream.MaxMessageBytes is refused (an error,
// not the answer, and no hang), and the gateway goes on: the next call is
// answered.
func checkTooLarge(t *testing.T, start Start) {
	u := server(t, start, "-tools", "alpha", "-big", fmt.Sprint(upstream.MaxMessageBytes+1024))
	g := gateway(t, u.Server)
	big := tool(t, g, "big")
	within(t, "an answer over the bound", func() {
		ctx, cancel := context.WithTimeout(context.Background(), CallWait)
		defer cancel()
		res, size, err := g.Call(ctx, big, json.RawMessage(`{}`), upstream.Round{}, nil, nil)
		switch {
		case err == nil && res != nil && !res.IsError:
			t.Errorf("an answer over the bound was passed on (%d bytes): %.200s %+v", size, text(res), res)
		case errors.Is(err, context.DeadlineExceeded):
			t.Errorf("an answer over the bound is not refused, but waited for: %v", err)
		}
		t.Logf("refused: %.300v", err)
	})
	call(t, g, tool(t, g, "alpha"), `{"text":"after"}`, `alpha {"text":"after"}`)
}

// checkDies: an upstream that exits while a call is in flight fails the call
// (an error, not a hang); the next call starts it again (stdio), or, when
// folio cannot (HTTP), fails at once as unreachable, and once the server
// is back connects again.
func checkDies(t *testing.T, start Start) {
	u := server(t, start, "-tools", "alpha", "-die")
	g := gateway(t, u.Server)
	alpha := tool(t, g, "alpha")
	call(t, g, alpha, `{}`, `alpha {}`)
	took := within(t, "a call whose upstream died", func() {
		ctx, cancel := context.WithTimeout(context.Background(), CallWait)
		defer cancel()
		res, _, err := g.Call(ctx, tool(t, g, "die"), json.RawMessage(`{}`), upstream.Round{}, nil, nil)
		if err == nil {
			t.Errorf("a call whose upstream died answered %+v", res)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a call whose upstream died waited for its deadline: %v", err)
		}
		t.Logf("the call: %v", err)
	})
	t.Logf("the call whose upstream died ended after %v", took)
	if u.Restart != nil {
		within(t, "a call to an upstream that is gone", func() {
			ctx, cancel := context.WithTimeout(context.Background(), CallWait)
			defer cancel()
			if _, _, err := g.Call(ctx, alpha, json.RawMessage(`{}`), upstream.Round{}, nil, nil); !errors.Is(err, upstream.ErrConnect) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a call to an upstream that is gone: %v, want it unreachable", err)
			}
		})
		u.Restart(t)
	}
	// Past the backoff of its failures in a row.
	time.Sleep(50 * time.Millisecond)
	call(t, g, alpha, `{"text":"again"}`, `alpha {"text":"again"}`)
}

// checkConcurrent: calls at once on the one connection are each answered with
// their own answer.
func checkConcurrent(t *testing.T, start Start) {
	u := server(t, start, "-tools", "alpha,beta")
	g := gateway(t, u.Server)
	tools := []upstream.Tool{tool(t, g, "alpha"), tool(t, g, "beta")}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			tl := tools[i%2]
			args := fmt.Sprintf(`{"text":"call %d"}`, i)
			ctx, cancel := context.WithTimeout(context.Background(), CallWait)
			defer cancel()
			res, _, err := g.Call(ctx, tl, json.RawMessage(args), upstream.Round{}, nil, nil)
			if want := tl.Original + " " + args; err != nil || text(res) != want {
				t.Errorf("call %d: %s, %v; want %s", i, text(res), err, want)
			}
		})
	}
	wg.Wait()
	if st := g.Statuses(); len(st) != 1 || st[0].Starts != 1 {
		t.Errorf("the calls made more than one connection: %+v", st)
	}
}

// checkListChanged: an upstream that changes its tools and says so
// (tools/list_changed) is discovered again, and the catalog has its new
// tools; what folio wraps of the connection must not keep the
// notification from coming (over streamable HTTP in a session it comes on
// the stream the client opens once initialized).
func checkListChanged(t *testing.T, start Start) {
	toolsFile := filepath.Join(t.TempDir(), "tools")
	os.WriteFile(toolsFile, []byte("a,b"), 0o644)
	u := server(t, start, "-toolsfile", toolsFile)
	g := gateway(t, u.Server)
	offered := func() string {
		c, _ := g.Catalog(context.Background())
		return strings.Join(names(c), ",")
	}
	waitFor(t, "tools a and b", func() bool { return offered() == "up__a,up__b" })
	// Connected: the first call starts it, and it stays.
	call(t, g, tool(t, g, "a"), `{}`, `a {}`)
	os.WriteFile(toolsFile, []byte("a,c"), 0o644)
	waitFor(t, "tools a and c after the change", func() bool { return offered() == "up__a,up__c" })
}
