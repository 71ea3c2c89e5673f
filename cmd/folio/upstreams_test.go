package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/upstream"
)

// writeUpstreams writes an mcpServers file of the given entries.
func writeUpstreams(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func listUpstreams(t *testing.T, args ...string) map[string]upstreamState {
	t.Helper()
	r := folio(t, "", append([]string{"upstreams", "list", "--json"}, args...)...)
	var states []upstreamState
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &states) != nil {
		t.Fatalf("upstreams list: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	out := map[string]upstreamState{}
	for _, s := range states {
		out[s.Name] = s
	}
	return out
}

// TestUpstreamsCommands: refresh discovers stdio and HTTP upstreams at
// once (the stdio one speaks 2026-07-28; the HTTP one, with sessions,
// 2025-11-25), keeps going past one that never answers, and list tells fresh,
// stale and missing entries apart; an edited entry is stale, and a
// server dropped from the file is pruned.
func TestUpstreamsCommands(t *testing.T) {
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	config, cache := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "cache", "upstreams.json")
	url := upstreamtest.HTTP(t, "-tools", "x,y,z", "-version", "3.0.0")
	t.Setenv("FAKE_TOOLS", "alpha,beta")
	servers := map[string]any{
		"local":  map[string]any{"command": bin, "args": []string{"-tools", "${FAKE_TOOLS}"}},
		"remote": map[string]any{"type": "http", "url": url},
		"dead":   map[string]any{"command": bin, "args": []string{"-hang"}},
	}
	writeUpstreams(t, config, servers)
	files := []string{"--upstreams", config, "--schema-cache", cache}

	r := folio(t, "", append([]string{"upstreams", "refresh", "--upstream-timeout", "2s"}, files...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "local: 2 tools (fakemcp 1.0.0, MCP 2026-07-28)") || !strings.Contains(r.stdout, "remote: 3 tools (fakemcp 3.0.0, MCP 2025-11-25)") || !strings.Contains(r.stderr, "dead: did not start") {
		t.Fatalf("refresh: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	states := listUpstreams(t, files...)
	if states["local"].Cache != "fresh" || states["local"].Tools != 2 || states["remote"].Cache != "fresh" || states["dead"].Cache != "missing" {
		t.Fatalf("after refresh: %+v", states)
	}
	if info, err := os.Stat(cache); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v", err)
	}
	// An edit (here, through the environment) makes the entry stale.
	t.Setenv("FAKE_TOOLS", "alpha,beta,gamma")
	if s := listUpstreams(t, files...)["local"]; s.Cache != "stale" || s.Tools != 2 {
		t.Errorf("after an edit: %+v", s)
	}
	// Dropping remote from the file prunes its entry; dead keeps none.
	delete(servers, "remote")
	writeUpstreams(t, config, servers)
	folio(t, "", append([]string{"upstreams", "refresh", "--upstream-timeout", "1s"}, files...)...)
	c, err := upstream.ReadCache(cache)
	if err != nil || len(c.Upstreams) != 1 || len(c.Upstreams["local"].Tools) != 3 {
		t.Errorf("after pruning: %v %+v", err, c.Upstreams)
	}
	// An empty configuration prunes everything.
	writeUpstreams(t, config, map[string]any{})
	if r := folio(t, "", append([]string{"upstreams", "refresh"}, files...)...); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if c, _ := upstream.ReadCache(cache); len(c.Upstreams) != 0 {
		t.Errorf("an empty configuration kept %v", c.Upstreams)
	}
	// A timeout that cannot be used is a usage error.
	if r := folio(t, "", append([]string{"upstreams", "refresh", "--upstream-timeout", "0s"}, files...)...); r.code != 2 || !strings.Contains(r.stderr, "--upstream-timeout must be positive") {
		t.Errorf("--upstream-timeout 0s: exit %d, %s", r.code, r.stderr)
	}
	// A bad file names the server and the field.
	writeUpstreams(t, config, map[string]any{"bad": map[string]any{"type": "http"}})
	if r := folio(t, "", append([]string{"upstreams", "list"}, files...)...); r.code == 0 || !strings.Contains(r.stderr, `server "bad", url`) {
		t.Errorf("a bad file: exit %d, %s", r.code, r.stderr)
	}
}

// TestUpstreamsCacheUnderFire: two folio processes refreshing one cache at
// once lose none of its entries, and a refresh killed (SIGKILL) at any
// moment leaves a cache that reads.
func TestUpstreamsCacheUnderFire(t *testing.T) {
	t.Parallel()
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	config, cache := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "upstreams.json")
	servers := map[string]any{}
	for i := range 4 {
		servers[fmt.Sprintf("s%d", i)] = map[string]any{"command": bin, "args": []string{"-tools", fmt.Sprintf("t%d", i)}}
	}
	writeUpstreams(t, config, servers)
	files := []string{"--upstreams", config, "--schema-cache", cache}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if r := folio(t, "", append([]string{"upstreams", "refresh"}, files...)...); r.code != 0 {
				t.Error(r.stderr)
			}
		})
	}
	wg.Wait()
	if c, err := upstream.ReadCache(cache); err != nil || len(c.Upstreams) != 4 {
		t.Fatalf("after two refreshes at once: %v, %d entries", err, len(c.Upstreams))
	}
	for i := range 15 {
		cmd := folioCmd(t, append([]string{"upstreams", "refresh"}, files...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		if c, err := upstream.ReadCache(cache); err != nil || len(c.Upstreams) != 4 {
			t.Fatalf("kill %d: the cache reads %v, %d entries", i, err, len(c.Upstreams))
		}
	}
}

// marks counts the starts fakemcp recorded in path, and gives the last pid.
func marks(t *testing.T, path string) (int, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, 0
	}
	lines := strings.Fields(string(b))
	pid := 0
	if len(lines) > 0 {
		fmt.Sscan(lines[len(lines)-1], &pid)
	}
	return len(lines), pid
}

// TestServeUpstreams: folio serve offers its upstreams' tools as
// NAME__tool beside its own and calls them; an upstream that never answers
// is left out. With a fresh cache, the tools are offered before any
// upstream is ready, the background discovery and many calls at once
// start exactly one process, and a process that dies is started again.
func TestServeUpstreams(t *testing.T) {
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	config, cache, mark, slow := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "cache.json"), filepath.Join(dir, "marks"), filepath.Join(dir, "slow")
	writeUpstreams(t, config, map[string]any{
		"local":  map[string]any{"command": bin, "args": []string{"-tools", "a,b", "-mark", mark, "-sleepfile", slow}},
		"remote": map[string]any{"type": "http", "url": upstreamtest.HTTP(t, "-tools", "x")},
		"dead":   map[string]any{"command": bin, "args": []string{"-hang"}},
		"absent": map[string]any{"command": filepath.Join(dir, "no-such-server")},
	})
	serve := func() *mcp.ClientSession {
		cmd := exec.Command(folioBin, "serve", "--root", dir, "--upstreams", config, "--schema-cache", cache, "--upstream-timeout", "2500ms", "--log-level", "error")
		cmd.Env = testmain.Env(t)
		return dial(t, &mcp.CommandTransport{Command: cmd})
	}
	want := []string{"grep", "list", "local__a", "local__b", "outline", "read", "remote__x", "result_query", "search_docs"}

	// No cache: discovered at start, the dead one left out.
	cs := serve()
	if got := mcptest.ToolNames(t, cs); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	if text, isErr := mcptest.CallText(t, cs, "local__a", map[string]any{"text": "hi"}); isErr || text != `a {"text":"hi"}` {
		t.Errorf("local__a: %q", text)
	}
	if text, isErr := mcptest.CallText(t, cs, "remote__x", nil); isErr || !strings.HasPrefix(text, "x") {
		t.Errorf("remote__x: %q", text)
	}
	cs.Close()

	// Fresh cache: offered while the upstream takes 1 s to start.
	os.WriteFile(slow, []byte("1s"), 0o644)
	before, _ := marks(t, mark)
	cs = serve()
	if got := mcptest.ToolNames(t, cs); !slices.Equal(got, want) {
		t.Fatalf("cached tools %v, want %v", got, want)
	}
	if n, _ := marks(t, mark); n != before {
		t.Fatalf("the tools waited for the upstream: %d ready before tools/list answered", n-before)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if text, isErr := mcptest.CallText(t, cs, "local__b", nil); isErr {
				t.Error(text)
			}
		})
	}
	wg.Wait()
	n, pid := marks(t, mark)
	if n != before+1 {
		t.Fatalf("the background discovery and 20 calls at once started %d processes", n-before)
	}
	os.Remove(slow)
	// The process dies: a later call starts it again.
	syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; ; i++ {
		if _, isErr := mcptest.CallText(t, cs, "local__a", nil); !isErr {
			break
		}
		if i == 50 {
			t.Fatal("the upstream was not started again")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n, _ := marks(t, mark); n != before+2 {
		t.Errorf("%d starts after the kill, want one", n-before-1)
	}
}
