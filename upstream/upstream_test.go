package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
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
	t.Setenv("FOLIO_TEST_SECRET", "s")
	withOAuth, err := Parse([]byte(`{"mcpServers":{"a":{"type":"http","url":"http://h","oauth":{"issuer":"https://id.example","clientId":"f","clientSecretEnv":"FOLIO_TEST_SECRET","scopes":["x"]}}}}`), env(nil))
	if err != nil || withOAuth[0].OAuth == nil || withOAuth[0].OAuth.ClientID != "f" || withOAuth[0].OAuth.Scopes[0] != "x" {
		t.Errorf("oauth: %+v %v", withOAuth, err)
	}
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
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","oauth":{"issuer":"https://id.example","clientSecretEnv":"SECRET"}}}}`, `server "a", oauth: needs a clientId`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","oauth":{"clientId":"f","clientSecretEnv":"SECRET"}}}}`, `server "a", oauth: needs the issuer`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","headers":{"authorization":"Bearer x"},"oauth":{"issuer":"https://id.example","clientId":"f","clientSecretEnv":"SECRET"}}}}`, `an Authorization header would replace`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","oauth":{"issuer":"https://id.example","clientId":"f"}}}}`, `server "a", oauth: needs one of`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","oauth":{"issuer":"https://id.example","clientId":"f","clientSecretEnv":"NOPE"}}}}`, `$NOPE is empty`},
		{`{"mcpServers":{"a":{"type":"http","url":"http://h","oauth":{"issuer":"https://id.example","clientId":"f","clientSecretFile":"/nonexistent"}}}}`, `clientSecretFile`},
		{`{"mcpServers":{"a":{"type":"sse","url":"http://h","oauth":{"issuer":"https://id.example","clientId":"f","clientSecretEnv":"SECRET"}}}}`, `only an http server takes oauth`},
	} {
		t.Setenv("SECRET", "s")
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
		"oauth":      func(s *Server) { s.OAuth = &OAuth{ClientID: "folio", SecretEnv: "S"} },
	} {
		base := s
		if name == "url" || name == "headers" || name == "oauth" {
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
	names, errs := ToolNames("gh", []string{"create_issue", "search/code", "ünïcode", "a.b-c"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for offered, own := range map[string]string{"gh__create_issue": "create_issue", "gh__search_code": "search/code", "gh___n_code": "ünïcode", "gh__a.b-c": "a.b-c"} {
		if names[offered] != own {
			t.Errorf("%s: %q, want %q (%v)", offered, names[offered], own, names)
		}
	}
	// Tools whose names collide are all left out, and so is a name that
	// cannot be made valid; the others stay.
	names, errs = ToolNames("gh", []string{"a/b", "ok", "a b", strings.Repeat("x", 61), "a_b"})
	if len(names) != 1 || names["gh__ok"] != "ok" || len(errs) != 2 ||
		!strings.Contains(errs[0].Error(), "not a valid MCP tool name") || !strings.Contains(errs[1].Error(), `"a/b", "a b" and "a_b" would all be offered as "gh__a_b"`) {
		t.Errorf("collisions: %v %v", names, errs)
	}
	for _, bad := range []string{"", strings.Repeat("x", 61)} {
		if _, err := ToolName("gh", bad); err == nil {
			t.Errorf("tool %q was named", bad)
		}
	}
}

// TestCheckNames: servers whose names would make the same tool names are
// refused, naming both; others are not.
func TestCheckNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"e", "e_"}, `servers "e" and "e_"`},
		{[]string{"a__b", "a"}, `servers "a" and "a__b"`},
		{[]string{"a", "a__"}, `servers "a" and "a__"`},
		{[]string{"a", "a_b", "a.b", "b_", "ab", "A"}, ""},
	} {
		var servers []Server
		file := map[string]any{}
		for _, n := range tc.names {
			servers = append(servers, Server{Name: n})
			file[n] = map[string]any{"command": "x"}
		}
		err := CheckNames(servers)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.names, err, tc.want)
		}
		b, _ := json.Marshal(map[string]any{"mcpServers": file})
		if _, perr := Parse(b, env(nil)); (perr == nil) != (err == nil) {
			t.Errorf("%v: Parse says %v, CheckNames %v", tc.names, perr, err)
		}
	}
}

// FuzzToolNamesAreOneToOne: servers that CheckNames accepts never offer
// two tools by one name, whatever the tools are called.
func FuzzToolNamesAreOneToOne(f *testing.F) {
	f.Add("e", "e_", "_x", "x")
	f.Add("a", "a__b", "b__x", "x")
	f.Add("gh", "git", "a/b", "a_b")
	f.Fuzz(func(t *testing.T, s1, s2, t1, t2 string) {
		servers := []Server{{Name: s1}, {Name: s2}}
		if s1 == s2 || !serverName().MatchString(s1) || !serverName().MatchString(s2) || CheckNames(servers) != nil {
			return
		}
		n1, err1 := ToolName(s1, t1)
		n2, err2 := ToolName(s2, t2)
		if err1 == nil && err2 == nil && n1 == n2 {
			t.Fatalf("%s's %q and %s's %q are both offered as %s", s1, t1, s2, t2, n1)
		}
	})
}

func TestCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "folio", "upstreams.json")
	c, err := ReadCache(path)
	if err != nil || len(c.Upstreams) != 0 {
		t.Fatalf("a missing cache: %v, %v", c, err)
	}
	s := Server{Name: "a", Transport: Stdio, Command: "x"}
	err = UpdateCache(path, func(c *Cache) {
		c.Upstreams["a"] = Entry{Fingerprint: s.Fingerprint(), Tools: []json.RawMessage{json.RawMessage(`{"name":"t","description":"<b> & é","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}}`)}}
		c.Upstreams["gone"] = Entry{Fingerprint: "f"}
	})
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v %v", info, err)
	}
	c, err = ReadCache(path)
	if e, ok := c.Lookup(s); err != nil || !ok || string(e.Tools[0]) != `{"name":"t","description":"<b> & é","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}}` {
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

// TestDiscover: a server that never answers is given up at the deadline.
// (What discovery tells of a server that does answer is checked over
// each transport by transporttest: see TestTransports.)
func TestDiscover(t *testing.T) {
	bin := upstreamtest.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Discover(ctx, Server{Name: "hung", Transport: Stdio, Command: bin, Args: []string{"-hang"}}, "test"); err == nil {
		t.Error("a hung server was discovered")
	}
}

// TestStartLeavesOutBadTools: nothing in the cache keeps folio from
// starting. Tools whose names collide or cannot be made valid, whose
// schemas are not objects (or given under a key of another case), whose
// fields do not decode, or that are null, are left out, each logged;
// the upstream's other tools and the other upstreams are offered.
func TestStartLeavesOutBadTools(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	gh, other := Server{Name: "gh", Transport: Stdio, Command: "no-such-server-x"}, Server{Name: "other", Transport: Stdio, Command: "no-such-server-y"}
	object := json.RawMessage(`{"type":"object"}`)
	UpdateCache(path, func(c *Cache) {
		c.Upstreams["gh"] = Entry{Fingerprint: gh.Fingerprint(), Tools: defs(
			&mcp.Tool{Name: "a/b", InputSchema: object}, &mcp.Tool{Name: "a b", InputSchema: object}, &mcp.Tool{Name: "ok", InputSchema: object},
			&mcp.Tool{Name: strings.Repeat("n", 70), InputSchema: object}, &mcp.Tool{Name: "text", InputSchema: "a string"}, &mcp.Tool{Name: "untyped", InputSchema: json.RawMessage(`{}`)},
			&mcp.Tool{Name: "out", InputSchema: object, OutputSchema: json.RawMessage(`[1]`)}, nil,
		)}
		// Keys are exact, as go-sdk's clients read them.
		c.Upstreams["gh"] = Entry{Fingerprint: gh.Fingerprint(), Tools: append(c.Upstreams["gh"].Tools,
			json.RawMessage(`{"name":"cased","InputSchema":{"type":"object"}}`), json.RawMessage(`{"name":"typed","inputSchema":{"type":"object"},"annotations":"x"}`))}
		// An older folio's entry says of tasks apart from the tools.
		c.Upstreams["other"] = Entry{Fingerprint: other.Fingerprint(), Tools: defs(&mcp.Tool{Name: "t", InputSchema: object}, &mcp.Tool{Name: "research", InputSchema: object}),
			TaskRequired: []string{"research"}}
	})
	var logged strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logged.Write(p) }), nil))
	g, err := Start(context.Background(), []Server{gh, other}, Options{CachePath: path, Timeout: time.Second, Logger: log})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer g.Close()
	c, err := g.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range c.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"gh__ok", "other__t"}) {
		t.Errorf("offered %v", names)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{`\"a/b\" and \"a b\" would all be offered`, "not a valid MCP tool name", `tool \"text\": its input schema`, `tool \"untyped\": its input schema`, `tool \"out\": its output schema`, "a tool is null", `tool \"cased\": its input schema`, `tool \"typed\": its definition does not decode`, `tool \"research\" can only be called as a task`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, logged.String())
		}
	}
	// Servers whose names are ambiguous prefixes are refused.
	if _, err := Start(context.Background(), []Server{{Name: "e"}, {Name: "e_"}}, Options{CachePath: path}); err == nil {
		t.Error("Start took e and e_")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRefreshCoalesces: however often an upstream asks to be discovered
// again, one discovery runs and one waits; an unchanged catalog stays the
// same catalog.
func TestRefreshCoalesces(t *testing.T) {
	dir := t.TempDir()
	lists := filepath.Join(dir, "lists")
	s := Server{Name: "up", Transport: Stdio, Command: upstreamtest.Raw(t), Args: []string{"-lists", lists,
		"-tools", `[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]`}}
	g, err := Start(context.Background(), []Server{s}, Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	first, err := g.Catalog(context.Background())
	if err != nil || len(first.Tools) != 2 {
		t.Fatalf("%v %v", first, err)
	}
	l := g.links["up"]
	var rounds int
	g.Watch(func(*Catalog) { rounds++ })
	count := func() int {
		b, _ := os.ReadFile(lists)
		return strings.Count(string(b), "\n")
	}
	for i := 0; count() < 2; i++ { // the two start-up rounds
		if i == 400 {
			t.Fatal("no start-up discoveries")
		}
		time.Sleep(25 * time.Millisecond)
	}
	before := count()
	for range 1000 {
		g.refresh(context.Background(), l)
	}
	for i := 0; ; i++ {
		l.refreshMu.Lock()
		busy := l.refreshing
		l.refreshMu.Unlock()
		if !busy {
			break
		}
		if i == 400 {
			t.Fatal("the discoveries did not end")
		}
		time.Sleep(25 * time.Millisecond)
	}
	if n := count() - before; n != 2 {
		t.Errorf("1,000 asks made %d discoveries, want 2 (one ran, one waited)", n)
	}
	now, _ := g.Catalog(context.Background())
	if now != first || rounds != 0 {
		t.Errorf("an unchanged upstream changed the catalog (%d changes)", rounds)
	}
}

// TestCatalogBounds: past MaxTools, an upstream's tools are left out, and
// so is one defined in more than MaxToolBytes.
func TestCatalogBounds(t *testing.T) {
	object := json.RawMessage(`{"type":"object"}`)
	var tools []*mcp.Tool
	for i := range MaxTools + 500 {
		tools = append(tools, &mcp.Tool{Name: fmt.Sprintf("t%d", i), InputSchema: object})
	}
	tools[0].Description = strings.Repeat("d", MaxToolBytes)
	s := Server{Name: "many"}
	c, problems := newCatalog([]Server{s}, map[string]Entry{"many": {Tools: defs(tools...)}})
	if len(c.Tools) != MaxTools-1 || len(problems["many"]) != 2 ||
		!strings.Contains(problems["many"][1].Error(), "more than 1000 tools") || !strings.Contains(problems["many"][0].Error(), `tool "t0" is defined in`) {
		t.Errorf("%d tools offered; problems %v", len(c.Tools), problems)
	}
}

// TestCatalogTTL: a catalog's TTL is the least its upstreams gave, taken
// within [0, a day] whatever an upstream (or a cache file) says; upstreams
// that gave none leave it unset.
func TestCatalogTTL(t *testing.T) {
	ms := func(n int) *int { return &n }
	servers := []Server{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for _, tc := range []struct {
		ttls   [3]*int
		want   time.Duration
		wantOK bool
	}{
		{[3]*int{nil, nil, nil}, 0, false},
		{[3]*int{ms(5000), nil, ms(60000)}, 5 * time.Second, true},
		{[3]*int{ms(1 << 62), nil, nil}, maxListTTL, true},
		{[3]*int{ms(-5), ms(1000), nil}, 0, true},
		{[3]*int{ms(0), nil, nil}, 0, true},
	} {
		entries := map[string]Entry{}
		for i, s := range servers {
			entries[s.Name] = Entry{ToolsTTLMs: tc.ttls[i]}
		}
		c, _ := newCatalog(servers, entries)
		if got, ok := c.TTL(); got != tc.want || ok != tc.wantOK {
			t.Errorf("%v: %v %v, want %v %v", tc.ttls, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestResourceParam: a client credentials token request gains the
// upstream's resource indicator (and the entry's scopes); others pass
// as they are.
func TestResourceParam(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		got = append(got, r.PostForm.Encode())
	}))
	defer srv.Close()
	c := &http.Client{Transport: resourceParam{resource: "https://up.example/mcp", scopes: []string{"a", "b"}, next: http.DefaultTransport}}
	for _, body := range []string{"grant_type=client_credentials&scope=x", "grant_type=refresh_token&refresh_token=r", "grant_type=client_credentials&resource=https%3A%2F%2Fother"} {
		res, err := c.Post(srv.URL, "application/x-www-form-urlencoded", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	want := []string{
		"grant_type=client_credentials&resource=https%3A%2F%2Fup.example%2Fmcp&scope=a+b",
		"grant_type=refresh_token&refresh_token=r",
		"grant_type=client_credentials&resource=https%3A%2F%2Fother&scope=a+b",
	}
	if !slices.Equal(got, want) {
		t.Errorf("token requests sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSerialHandler: the handler of an upstream's OAuth authorizes many
// requests at once without a race (go test -race), only with the issuer
// it was given, and keeps refreshing after the request that authorized
// it has ended.
func TestSerialHandler(t *testing.T) {
	var mu sync.Mutex
	var tokenRequests []string
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", srv.URL)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q,"authorization_endpoint":%q,"response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}`, srv.URL, srv.URL+"/token", srv.URL+"/auth")
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		tokenRequests = append(tokenRequests, r.PostForm.Get("resource"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":"t","token_type":"Bearer","expires_in":1}`))
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	t.Setenv("FOLIO_TEST_SECRET", "s")
	challenge := func() (*http.Request, *http.Response) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", nil)
		res := &http.Response{StatusCode: 401, Header: http.Header{"Www-Authenticate": {`Bearer resource_metadata="` + srv.URL + `/.well-known/oauth-protected-resource/mcp"`}}, Body: http.NoBody}
		return req, res
	}
	o := &OAuth{Issuer: srv.URL, ClientID: "f", SecretEnv: "FOLIO_TEST_SECRET"}
	h, err := o.handler(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			req, res := challenge()
			if err := h.Authorize(ctx, req, res); err != nil {
				t.Error(err)
			}
			if _, err := h.TokenSource(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	cancel()
	time.Sleep(1100 * time.Millisecond) // the token expires
	ts, _ := h.TokenSource(context.Background())
	if tok, err := ts.Token(); err != nil || tok.AccessToken != "t" {
		t.Errorf("a refresh after the authorizing request ended: %v %v", tok, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokenRequests) < 2 || tokenRequests[0] != srv.URL+"/mcp" {
		t.Errorf("token requests' resources: %q", tokenRequests)
	}

	other := &OAuth{Issuer: "https://someone.else", ClientID: "f", SecretEnv: "FOLIO_TEST_SECRET"}
	h, _ = other.handler(srv.URL + "/mcp")
	req, res := challenge()
	if err := h.Authorize(context.Background(), req, res); err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Errorf("an upstream naming another authorization server: %v", err)
	}
}
