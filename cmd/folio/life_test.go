package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/mcpserver"
	"github.com/folio-mcp/folio/upstream"
)

// adminURL is the base URL of the admin listener folio logged.
func adminURL(t *testing.T, stderr *mcptest.Buffer) string {
	t.Helper()
	re := regexp.MustCompile(`msg="admin listening" addr=(\S+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1]
		}
	}
	t.Fatalf("no admin listener logged:\n%s", stderr)
	return ""
}

// readyz is what /readyz answers, and its status code.
func readyz(t *testing.T, base string) (mcpserver.Readiness, int) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r mcpserver.Readiness
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r, resp.StatusCode
}

// awaitReady waits until /readyz answers ready.
func awaitReady(t *testing.T, base string) {
	t.Helper()
	var r mcpserver.Readiness
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r, _ = readyz(t, base); r.Ready {
			return
		}
	}
	t.Fatalf("not ready: %+v", r)
}

// upstreamStatus is the upstream's status in /readyz.
func upstreamStatus(t *testing.T, base, name string) upstream.Status {
	t.Helper()
	r, _ := readyz(t, base)
	for _, st := range r.Upstream {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no upstream %s in /readyz: %+v", name, r.Upstream)
	return upstream.Status{}
}

// awaitState waits until /readyz shows the upstream in state, and returns
// its status then.
func awaitState(t *testing.T, base, name string, state upstream.State, stderr *mcptest.Buffer) upstream.Status {
	t.Helper()
	var st upstream.Status
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if st = upstreamStatus(t, base, name); st.State == state {
			return st
		}
	}
	t.Fatalf("upstream %s is %+v, not %s\n%s", name, st, state, stderr)
	return st
}

// startPIDs are the PIDs fakemcp wrote to path, one per start.
func startPIDs(t *testing.T, path string) []int {
	t.Helper()
	b, _ := os.ReadFile(path)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	return pids
}

// awaitGone waits until process pid has ended.
func awaitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alivePID(pid) {
			return
		}
	}
	t.Fatalf("process %d is still running", pid)
}

// TestUpstreamLife follows upstreams through their lives, through the
// binary, /readyz and their real processes: one started on demand is
// discovered and stopped when the cache has nothing, not started at all
// when it has, started by a call, stopped when idle, started again after
// it is killed, backed off when it keeps failing (calls told when it is
// tried again), and back when it works; one started eagerly runs from
// the start. Then the upstreams file is edited: what was removed stops,
// what changed is started afresh, what was added is offered, and an
// edit that does not parse changes nothing and names the server and
// field at fault; SIGHUP reloads too.
func TestUpstreamLife(t *testing.T) {
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	lazyPIDs, eagerPIDs, fail := filepath.Join(dir, "lazy.pids"), filepath.Join(dir, "eager.pids"), filepath.Join(dir, "fail")
	servers := map[string]any{
		"lazy":  map[string]any{"command": bin, "args": []string{"-mark", lazyPIDs, "-failfile", fail}, "idleTimeoutMs": 600},
		"eager": map[string]any{"command": bin, "args": []string{"-mark", eagerPIDs}, "startOnDemand": false},
	}
	flags := []string{"--admin", "127.0.0.1:0", "--upstream-backoff", "400ms", "--upstream-backoff-max", "2s"}

	// No cache: lazy is discovered, then stopped; eager runs.
	g := serveGateway(t, dir, servers, nil, flags...)
	base := adminURL(t, g.stderr)
	awaitReady(t, base)
	st := awaitState(t, base, "lazy", upstream.StateStopped, g.stderr)
	if st.Starts != 1 || st.Tools != 1 || !st.OnDemand || st.IdleTimeoutMs != 600 {
		t.Errorf("lazy after its discovery: %+v", st)
	}
	if pids := startPIDs(t, lazyPIDs); len(pids) != 1 {
		t.Fatalf("lazy started %v", pids)
	} else {
		awaitGone(t, pids[0])
	}
	est := awaitState(t, base, "eager", upstream.StateRunning, g.stderr)
	if pids := startPIDs(t, eagerPIDs); len(pids) != 1 || est.PID != pids[0] || !alivePID(est.PID) {
		t.Errorf("eager: %+v, started %v", est, pids)
	}
	if r, code := readyz(t, base); !r.Ready || code != http.StatusOK || r.Roots != "ok" || r.HandleStore != "ok" || r.Upstreams != "ok" {
		t.Errorf("readyz %d %+v", code, r)
	}
	g.cs.Close()

	// The cache has lazy's tools: it is not started until a call. (The
	// client, of the 2026-07-28 era, hears of the reload below.)
	var changed atomic.Int32
	g = serveGateway(t, dir, servers, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) }}, flags...)
	base = adminURL(t, g.stderr)
	awaitState(t, base, "eager", upstream.StateRunning, g.stderr)
	if got := mcptest.ToolNames(t, g.cs); !slices.Contains(got, "lazy__echo") {
		t.Fatalf("tools %v", got)
	}
	if st := upstreamStatus(t, base, "lazy"); st.State != upstream.StateStopped || st.Starts != 0 || len(startPIDs(t, lazyPIDs)) != 1 {
		t.Fatalf("lazy before any call: %+v, started %v", st, startPIDs(t, lazyPIDs))
	}
	if text, isErr := mcptest.CallText(t, g.cs, "lazy__echo", map[string]any{"text": "hi"}); isErr || !strings.Contains(text, "hi") {
		t.Fatalf("lazy__echo: %s", text)
	}
	st = upstreamStatus(t, base, "lazy")
	if pids := startPIDs(t, lazyPIDs); st.State != upstream.StateRunning || len(pids) != 2 || st.PID != pids[1] || !alivePID(st.PID) {
		t.Fatalf("lazy after a call: %+v, started %v", st, pids)
	}

	// Idle: stopped, its process gone.
	pid := st.PID
	awaitState(t, base, "lazy", upstream.StateStopped, g.stderr)
	awaitGone(t, pid)

	// Killed: failed, started again by the next call.
	mcptest.CallText(t, g.cs, "lazy__echo", nil)
	pid = upstreamStatus(t, base, "lazy").PID
	syscall.Kill(pid, syscall.SIGKILL)
	st = awaitState(t, base, "lazy", upstream.StateFailed, g.stderr)
	if st.Exits != 1 || st.Failures != 1 || st.LastError == "" || st.PID != 0 {
		t.Errorf("lazy killed: %+v", st)
	}
	if text, isErr := mcptest.CallText(t, g.cs, "lazy__echo", map[string]any{"text": "again"}); isErr || !strings.Contains(text, "again") {
		t.Fatalf("lazy__echo after the kill: %s", text)
	}
	st = upstreamStatus(t, base, "lazy")
	if st.State != upstream.StateRunning || st.PID == pid || st.Failures != 0 || st.Starts != 3 {
		t.Errorf("lazy started again: %+v", st)
	}

	// Killed, and failing to start: the call that tries fails, and the
	// upstream backs off; calls meanwhile are told when it is tried again.
	os.WriteFile(fail, nil, 0o600)
	syscall.Kill(st.PID, syscall.SIGKILL)
	awaitState(t, base, "lazy", upstream.StateFailed, g.stderr)
	res := mcptest.Call(t, g.cs, "lazy__echo", nil)
	if !res.IsError || !strings.Contains(mcptest.Text(res), "upstream_unavailable") {
		t.Fatalf("a call to an upstream that fails to start: %s", mcptest.Text(res))
	}
	st = upstreamStatus(t, base, "lazy")
	if st.State != upstream.StateBackingOff || st.Failures != 2 || st.RetryAt.IsZero() {
		t.Fatalf("lazy failing: %+v", st)
	}
	res = mcptest.Call(t, g.cs, "lazy__echo", nil)
	if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, "upstream_unavailable") || !strings.Contains(text, "tried again at") {
		t.Fatalf("a call while it backs off: %s", text)
	}
	if n := len(startPIDs(t, lazyPIDs)); n != 4 {
		t.Errorf("lazy was started %d times; a start that fails marks nothing, so want 4", n)
	}
	os.Remove(fail)
	awaitState(t, base, "lazy", upstream.StateFailed, g.stderr) // its backoff ran out
	if text, isErr := mcptest.CallText(t, g.cs, "lazy__echo", map[string]any{"text": "back"}); isErr || !strings.Contains(text, "back") {
		t.Fatalf("lazy__echo once it works: %s", text)
	}
	if st := upstreamStatus(t, base, "lazy"); st.State != upstream.StateRunning || st.Failures != 0 {
		t.Errorf("lazy back: %+v", st)
	}
	metrics := scrape(t, base)
	for _, want := range []string{
		`folio_upstream_state{otel_scope_name="github.com/folio-mcp/folio",otel_scope_schema_url="",otel_scope_version="",state="running",upstream="lazy"} 1`,
		`folio_upstream_exits_total{otel_scope_name="github.com/folio-mcp/folio",otel_scope_schema_url="",otel_scope_version="",upstream="lazy"} 2`,
		`folio_upstream_starts_total{otel_scope_name="github.com/folio-mcp/folio",otel_scope_schema_url="",otel_scope_version="",upstream="lazy"} 4`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}

	// Reload: eager removed, lazy changed, third added.
	eagerPID := upstreamStatus(t, base, "eager").PID
	lazyPID := upstreamStatus(t, base, "lazy").PID
	thirdPIDs := filepath.Join(dir, "third.pids")
	edited := map[string]any{
		"lazy":  map[string]any{"command": bin, "args": []string{"-mark", lazyPIDs, "-tools", "echo,shout"}},
		"third": map[string]any{"command": bin, "args": []string{"-mark", thirdPIDs, "-tools", "ping"}},
	}
	writeUpstreams(t, filepath.Join(dir, "mcp.json"), edited)
	awaitLog(t, g.stderr, "upstreams reloaded")
	awaitGone(t, eagerPID)
	awaitGone(t, lazyPID)
	r, _ := readyz(t, base)
	var names []string
	for _, st := range r.Upstream {
		names = append(names, st.Name)
	}
	if !slices.Equal(names, []string{"lazy", "third"}) {
		t.Fatalf("upstreams after the reload: %v", names)
	}
	if st := upstreamStatus(t, base, "lazy"); st.Tools != 2 || st.Starts != 1 {
		t.Errorf("lazy changed: %+v", st)
	}
	if st := upstreamStatus(t, base, "third"); st.Tools != 1 || len(startPIDs(t, thirdPIDs)) != 1 {
		t.Errorf("third added: %+v", st)
	}
	if text, isErr := mcptest.CallText(t, g.cs, "lazy__echo", nil); isErr {
		t.Errorf("lazy__echo after the reload: %s", text)
	}
	for deadline := time.Now().Add(10 * time.Second); changed.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if changed.Load() == 0 {
		t.Error("the client was not told the tools changed")
	}
	if got := mcptest.ToolNames(t, g.cs); !slices.Contains(got, "third__ping") || !slices.Contains(got, "lazy__shout") || slices.Contains(got, "eager__echo") {
		t.Errorf("tools after the reload: %v", got)
	}

	// An edit that does not parse changes nothing, and says where.
	bad := map[string]any{
		"lazy":  edited["lazy"],
		"third": map[string]any{"command": bin, "idleTimeoutMs": -5},
	}
	writeUpstreams(t, filepath.Join(dir, "mcp.json"), bad)
	awaitLog(t, g.stderr, `server \"third\", idleTimeoutMs`)
	if st := upstreamStatus(t, base, "third"); st.Tools != 1 {
		t.Errorf("third after a bad edit: %+v", st)
	}
	// SIGHUP reloads the file as it is.
	writeUpstreams(t, filepath.Join(dir, "mcp.json"), map[string]any{"lazy": edited["lazy"]})
	awaitLog(t, g.stderr, "removed=third")
	g.cmd.Process.Signal(syscall.SIGHUP)
	awaitLog(t, g.stderr, "why=SIGHUP")
	g.alive(t)
}

// awaitLog waits until folio has logged want.
func awaitLog(t *testing.T, stderr *mcptest.Buffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(stderr.String(), want) {
			return
		}
	}
	t.Fatalf("folio did not log %q:\n%s", want, stderr)
}

// scrape is what /metrics answers.
func scrape(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeLifeFlags: the flags of upstreams' lives and of the admin
// listener that cannot be used are usage errors, naming the flag.
func TestServeLifeFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--admin", "nowhere"}, "--admin"},
		{[]string{"--admin", "127.0.0.1:99999"}, "--admin"},
		{[]string{"--upstream-start", "lazy"}, "--upstream-start is on-demand or eager"},
		{[]string{"--upstream-backoff", "0s"}, "--upstream-backoff must be positive"},
		{[]string{"--upstream-backoff", "10s", "--upstream-backoff-max", "1s"}, "--upstream-backoff-max at least"},
		{[]string{"--upstream-idle-timeout", "-1s"}, "--upstream-idle-timeout must not be negative"},
	} {
		r := folio(t, "", append([]string{"serve", "--root", dir}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, r.code, r.stderr)
		}
	}
	// A port alone is on loopback.
	if addr, err := adminAddress(":0"); err != nil || addr != "127.0.0.1:0" {
		t.Errorf(":0 is %q %v", addr, err)
	}
	if addr, err := adminAddress("9464"); err != nil || addr != "127.0.0.1:9464" {
		t.Errorf("9464 is %q %v", addr, err)
	}
}
