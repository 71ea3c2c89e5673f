package upstream

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/upstreamtest"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParse(t *testing.T) {
	file := `{"mcpServers":{
		"github":{"command":"npx","args":["-y","server-github","--token=${GH_TOKEN}"],"env":{"GITHUB_TOKEN":"${GH_TOKEN}"},"cwd":"/tmp","disabled":false},
		"docs":{"type":"http","url":"https://${HOST}/mcp","headers":{"Authorization":"Bearer ${API_KEY}"}},
		"old":{"type":"sse","url":"http://localhost:9/sse"}}}`
	servers, err := Parse([]byte(file), env(map[string]string{"GH_TOKEN": "ghp_x", "HOST": "docs.example", "API_KEY": "k1"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 3 || servers[0].Name != "docs" || servers[1].Name != "github" || servers[2].Transport != SSE {
		t.Fatalf("%+v", servers)
	}
	d, g := servers[0], servers[1]
	if d.Transport != HTTP || d.URL != "https://docs.example/mcp" || d.Headers["Authorization"] != "Bearer k1" {
		t.Errorf("docs: %+v", d)
	}
	if g.Transport != Stdio || g.Command != "npx" || g.Args[2] != "--token=ghp_x" || g.Env["GITHUB_TOKEN"] != "ghp_x" || g.Cwd != "/tmp" {
		t.Errorf("github: %+v", g)
	}
	for _, tc := range []struct{ file, want string }{
		{`[]`, "not an mcpServers file"},
		{`{}`, `no "mcpServers"`},
		{`{"mcpServers":{"a b":{"command":"x"}}}`, `server "a b", name`},
		{`{"mcpServers":{"a":{}}}`, `server "a", command`},
		{`{"mcpServers":{"a":{"command":"x","url":"http://h"}}}`, `server "a", url`},
		{`{"mcpServers":{"a":{"type":"http"}}}`, `server "a", url`},
		{`{"mcpServers":{"a":{"type":"http","url":"ftp://h"}}}`, `server "a", url`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","command":"x"}}}`, `server "a", command`},
		{`{"mcpServers":{"a":{"type":"websocket","url":"ws://h"}}}`, `server "a", type`},
		{`{"mcpServers":{"a":{"command":"x","args":["${NOPE}"]}}}`, `server "a", args[0]: ${NOPE} is not set`},
		{`{"mcpServers":{"a":{"command":"x","env":{"K":"${NOPE}"}}}}`, `server "a", env.K`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","headers":{"X":"${NOPE}"}}}}`, `server "a", headers.X`},
		{`{"mcpServers":{"a":{"command":"x","args":"notalist"}}}`, `server "a", entry`},
	} {
		_, err := Parse([]byte(tc.file), env(nil))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
}

// TestFingerprint pins the fingerprint of one configuration, and shows
// that each field moves it and map order does not.
func TestFingerprint(t *testing.T) {
	s := Server{Name: "github", Transport: Stdio, Command: "npx", Args: []string{"-y", "server-github"},
		Env: map[string]string{"B": "2", "A": "1"}, Cwd: "/work"}
	// printf '%s' '["folio upstream 1","github","stdio","npx",["-y","server-github"],[["A","1"],["B","2"]],"/work","",[]]' | sha256sum
	const vector = "eab8e02c30bf7396247a9be1e235302cae7f56c41c7ff7b39b4105a76582fed3"
	if got := s.Fingerprint(); got != vector {
		t.Fatalf("fingerprint %s, want the pinned %s", got, vector)
	}
	same := s
	same.Env = map[string]string{"A": "1", "B": "2"}
	if same.Fingerprint() != vector {
		t.Error("map order moved the fingerprint")
	}
	if strings.Contains(vector, "npx") {
		t.Error("the fingerprint shows the configuration")
	}
	h := Server{Name: "docs", Transport: HTTP, URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer k1"}}
	for name, change := range map[string]func(*Server){
		"name":       func(s *Server) { s.Name = "github2" },
		"transport":  func(s *Server) { s.Transport = HTTP },
		"command":    func(s *Server) { s.Command = "npm" },
		"args":       func(s *Server) { s.Args = []string{"-y", "server-gitlab"} },
		"args split": func(s *Server) { s.Args = []string{"-y server-github"} },
		"env":        func(s *Server) { s.Env = map[string]string{"A": "1", "B": "3"} },
		"cwd":        func(s *Server) { s.Cwd = "/other" },
		"url":        func(s *Server) { s.URL = "https://h/mcp2" },
		"headers":    func(s *Server) { s.Headers = map[string]string{"Authorization": "Bearer k2"} },
	} {
		base := s
		if name == "url" || name == "headers" {
			base = h
		}
		changed := base
		change(&changed)
		if changed.Fingerprint() == base.Fingerprint() {
			t.Errorf("a change of %s keeps the fingerprint", name)
		}
	}
}

func TestToolNames(t *testing.T) {
	names, err := ToolNames("gh", []string{"create_issue", "search/code", "ünïcode", "a.b-c"})
	if err != nil {
		t.Fatal(err)
	}
	for offered, own := range map[string]string{"gh__create_issue": "create_issue", "gh__search_code": "search/code", "gh___n_code": "ünïcode", "gh__a.b-c": "a.b-c"} {
		if names[offered] != own {
			t.Errorf("%s: %q, want %q (%v)", offered, names[offered], own, names)
		}
	}
	if _, err := ToolNames("gh", []string{"a/b", "a b"}); err == nil || !strings.Contains(err.Error(), `"a/b" and "a b"`) {
		t.Errorf("collision: %v", err)
	}
	for _, bad := range []string{"", strings.Repeat("x", 61)} {
		if _, err := ToolName("gh", bad); err == nil {
			t.Errorf("tool %q was named", bad)
		}
	}
}

func TestCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "folio", "upstreams.json")
	c, err := ReadCache(path)
	if err != nil || len(c.Upstreams) != 0 {
		t.Fatalf("a missing cache: %v, %v", c, err)
	}
	s := Server{Name: "a", Transport: Stdio, Command: "x"}
	err = UpdateCache(path, func(c *Cache) {
		c.Upstreams["a"] = Entry{Fingerprint: s.Fingerprint(), Tools: []*mcp.Tool{{Name: "t"}}}
		c.Upstreams["gone"] = Entry{Fingerprint: "f"}
	})
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v %v", info, err)
	}
	c, err = ReadCache(path)
	if e, ok := c.Lookup(s); err != nil || !ok || e.Tools[0].Name != "t" {
		t.Fatalf("lookup: %v %v %v", e, ok, err)
	}
	edited := s
	edited.Args = []string{"--new"}
	if _, ok := c.Lookup(edited); ok {
		t.Error("an edited configuration found the old entry")
	}
	UpdateCache(path, func(c *Cache) { c.Keep([]Server{s}) })
	if c, _ := ReadCache(path); len(c.Upstreams) != 1 {
		t.Errorf("after pruning: %v", c.Upstreams)
	}
	UpdateCache(path, func(c *Cache) { c.Keep(nil) })
	if c, _ := ReadCache(path); len(c.Upstreams) != 0 {
		t.Errorf("an empty configuration kept %v", c.Upstreams)
	}
	for _, bad := range []string{"{", `{"upstreams":3}`, `{}`} {
		os.WriteFile(path, []byte(bad), 0o600)
		if c, err := ReadCache(path); err == nil || len(c.Upstreams) != 0 {
			t.Errorf("cache %q: %v, %v", bad, c, err)
		}
	}
	// Writers at once lose none of each other's entries.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := UpdateCache(path, func(c *Cache) { c.Upstreams[fmt.Sprint(i)] = Entry{Fingerprint: "f"} }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if c, err := ReadCache(path); err != nil || len(c.Upstreams) != 20 {
		t.Errorf("%d entries after 20 writers: %v", len(c.Upstreams), err)
	}
}

func TestDiscover(t *testing.T) {
	bin := upstreamtest.Binary(t)
	ctx := context.Background()
	for _, s := range []Server{
		{Name: "local", Transport: Stdio, Command: bin, Args: []string{"-tools", "alpha,beta", "-version", "2.1.0"}},
		{Name: "remote", Transport: HTTP, URL: upstreamtest.HTTP(t, "-tools", "alpha,beta", "-version", "2.1.0"), Headers: map[string]string{"X-Test": "1"}},
		{Name: "older", Transport: SSE, URL: upstreamtest.HTTP(t, "-sse", "-tools", "alpha,beta", "-version", "2.1.0")},
	} {
		e, err := Discover(ctx, s, "test")
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if len(e.Tools) != 2 || e.Tools[0].Name != "alpha" || e.Server != "fakemcp" || e.Version != "2.1.0" || e.Fingerprint != s.Fingerprint() || e.Fetched.IsZero() {
			t.Errorf("%s: %+v", s.Name, e)
		}
	}
	// A server that never answers is given up at the deadline.
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := Discover(ctx, Server{Name: "hung", Transport: Stdio, Command: bin, Args: []string{"-hang"}}, "test"); err == nil {
		t.Error("a hung server was discovered")
	}
}

// TestStartRefusesCollisions: cached tools whose offered names collide
// are a start-up error naming both.
func TestStartRefusesCollisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	s := Server{Name: "gh", Transport: Stdio, Command: "x"}
	UpdateCache(path, func(c *Cache) {
		c.Upstreams["gh"] = Entry{Fingerprint: s.Fingerprint(), Tools: []*mcp.Tool{{Name: "a/b"}, {Name: "a b"}}}
	})
	_, err := Start(context.Background(), []Server{s}, Options{CachePath: path, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), `"a/b" and "a b"`) {
		t.Fatalf("Start: %v", err)
	}
}
