package upstream

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// TestParseLifeSettings: startOnDemand and idleTimeoutMs are read, bounded,
// and not part of the fingerprint: changing them restarts nothing.
func TestParseLifeSettings(t *testing.T) {
	servers, err := Parse([]byte(`{"mcpServers":{
		"a":{"command":"x","startOnDemand":false,"idleTimeoutMs":1500},
		"b":{"command":"x"},
		"c":{"command":"x","idleTimeoutMs":0}}}`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := servers[0], servers[1], servers[2]
	if a.OnDemand == nil || *a.OnDemand || a.IdleTimeout == nil || *a.IdleTimeout != 1500*time.Millisecond {
		t.Errorf("a: %+v", a)
	}
	if b.OnDemand != nil || b.IdleTimeout != nil {
		t.Errorf("b takes the gateway's settings: %+v", b)
	}
	if c.IdleTimeout == nil || *c.IdleTimeout != 0 {
		t.Errorf("c is never stopped for being idle: %+v", c)
	}
	plain := Server{Name: "a", Transport: Stdio, Command: "x"}
	if a.Fingerprint() != plain.Fingerprint() {
		t.Error("the life settings changed the fingerprint")
	}
	for _, file := range []string{
		`{"mcpServers":{"a":{"command":"x","idleTimeoutMs":-1}}}`,
		`{"mcpServers":{"a":{"command":"x","idleTimeoutMs":604800001}}}`,
		`{"mcpServers":{"a":{"command":"x","idleTimeoutMs":"5s"}}}`,
		`{"mcpServers":{"a":{"command":"x","startOnDemand":"yes"}}}`,
	} {
		if _, err := Parse([]byte(file), env(nil)); err == nil || !strings.Contains(err.Error(), `server "a"`) {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestBackoffWait: nothing after one failure, then the backoff, doubled
// with each failure more, up to the most; never overflowing.
func TestBackoffWait(t *testing.T) {
	l := &link{backoff: time.Second, backoffMax: time.Minute}
	for failures, want := range map[int]time.Duration{0: 0, 1: 0, 2: time.Second, 3: 2 * time.Second, 4: 4 * time.Second, 7: 32 * time.Second, 8: time.Minute, 40: time.Minute, 1 << 30: time.Minute} {
		if got := l.wait(failures); got != want {
			t.Errorf("%d failures: wait %v, want %v", failures, got, want)
		}
	}
}

// TestReload: a reload adds, removes and restarts what changed, keeps what
// did not (its process too), tells the watchers of the new catalog, and
// refuses names that make ambiguous prefixes without changing
// anything. Calls in flight meanwhile go on (the race detector watches).
func TestReload(t *testing.T) {
	bin := upstreamtest.Binary(t)
	path := t.TempDir() + "/cache.json"
	a := Server{Name: "a", Transport: Stdio, Command: bin, Args: []string{"-tools", "one"}}
	b := Server{Name: "b", Transport: Stdio, Command: bin, Args: []string{"-tools", "two"}}
	g, err := Start(context.Background(), []Server{a, b}, Options{CachePath: path, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var told atomic.Int32
	g.Watch(func(*Catalog) { told.Add(1) })
	c, err := g.Catalog(context.Background())
	if err != nil || len(c.Tools) != 2 {
		t.Fatalf("catalog %v %v", c, err)
	}
	tool, _ := c.Lookup("a__one")
	if _, _, err := g.Call(context.Background(), tool, nil, Round{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	pid := g.Statuses()[0].PID

	stop := make(chan struct{})
	var calls sync.WaitGroup
	calls.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				g.Call(context.Background(), tool, nil, Round{}, nil, nil)
			}
		}
	})
	idle := 5 * time.Minute
	a2 := a
	a2.IdleTimeout = &idle
	c3 := Server{Name: "c", Transport: Stdio, Command: bin, Args: []string{"-tools", "three,four"}}
	r, err := g.Reload([]Server{a2, c3})
	close(stop)
	calls.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Added, []string{"c"}) || !slices.Equal(r.Removed, []string{"b"}) || len(r.Changed) != 0 {
		t.Errorf("reloaded %+v", r)
	}
	c, _ = g.Catalog(context.Background())
	var names []string
	for _, t := range c.Tools {
		names = append(names, t.Name)
	}
	if !slices.Equal(names, []string{"a__one", "c__four", "c__three"}) {
		t.Errorf("tools after the reload: %v", names)
	}
	st := g.Statuses()
	if len(st) != 2 || st[0].Name != "a" || st[0].PID != pid || st[0].IdleTimeoutMs != idle.Milliseconds() || st[1].Name != "c" || st[1].Tools != 2 {
		t.Errorf("statuses after the reload: %+v (a's process was %d)", st, pid)
	}
	if told.Load() == 0 {
		// (More than once when the discoveries after start-up were
		// still running: each change of the catalog is told.)
		t.Error("the watchers were not told")
	}
	if _, _, err := g.Call(context.Background(), Tool{Name: "b__two", Upstream: "b", Original: "two"}, nil, Round{}, nil, nil); !errors.Is(err, ErrConnect) {
		t.Errorf("a call of a removed upstream: %v", err)
	}

	// Changed: restarted, with a process of its own.
	a3 := a
	a3.Args = []string{"-tools", "one,five"}
	if r, err := g.Reload([]Server{a3, c3}); err != nil || !slices.Equal(r.Changed, []string{"a"}) {
		t.Fatalf("reloaded %+v %v", r, err)
	}
	if st := g.Statuses()[0]; st.PID == pid || st.Tools != 2 {
		t.Errorf("a changed: %+v (was process %d)", st, pid)
	}

	// Removed alone: its entry leaves the cache.
	if r, err := g.Reload([]Server{a3}); err != nil || !slices.Equal(r.Removed, []string{"c"}) {
		t.Fatalf("reloaded %+v %v", r, err)
	}
	if cache, err := ReadCache(path); err != nil || len(cache.Upstreams) != 1 {
		t.Errorf("the cache after c was removed: %v %v", cache, err)
	}

	// Refused: nothing changes.
	bad := Server{Name: "c_", Transport: Stdio, Command: bin}
	if _, err := g.Reload([]Server{a3, c3, bad}); err == nil {
		t.Error("ambiguous names were taken")
	}
	if st := g.Statuses(); len(st) != 1 {
		t.Errorf("a refused reload changed the upstreams: %+v", st)
	}
}

// FuzzParse: any mcpServers file is servers or an error naming what is
// wrong, never a panic; what parses has names that make unambiguous
// prefixes, and bounded idle timeouts.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers":{"a":{"command":"x","args":["${V}"],"idleTimeoutMs":5,"startOnDemand":true}}}`,
		`{"mcpServers":{"d":{"type":"http","url":"http://h/${V}","headers":{"A":"b"},"alwaysListed":["t"]}}}`,
		`{"mcpServers":{"e":{"command":"x"},"e_":{"command":"y"}}}`,
		`{"mcpServers":{"a":{"command":"x","idleTimeoutMs":1e30}}}`,
		`{"mcpServers":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := Parse(data, env(map[string]string{"V": "v"}))
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("an error that is not ErrConfig: %v", err)
			}
			return
		}
		if err := CheckNames(servers); err != nil {
			t.Fatalf("parsed, yet %v", err)
		}
		again, _ := Parse(data, env(map[string]string{"V": "v"}))
		for i, s := range servers {
			if s.IdleTimeout != nil && (*s.IdleTimeout < 0 || *s.IdleTimeout > maxIdleTimeoutMs*time.Millisecond) {
				t.Fatalf("idle timeout %v", *s.IdleTimeout)
			}
			// Maps built again iterate in another order: the
			// fingerprint must not follow it.
			if s.Fingerprint() != again[i].Fingerprint() {
				t.Fatal("the fingerprint is not stable")
			}
		}
	})
}
