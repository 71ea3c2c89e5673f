package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/upstream"
)

// TestToolSearch: in search mode tools/list offers folio's own tools, the
// always-listed ones and three meta-tools; find_tools finds, describe_tools
// gives a definition as tools/list would, and call_tool is the same call
// as of a listed tool: the token's tool filter, references, schema
// checks, folding, progress and cancellation hold. Off, nothing changes; auto searches past its threshold.
func TestToolSearch(t *testing.T) {
	bin := upstreamtest.Binary(t)
	dir := t.TempDir()
	cancelFile := filepath.Join(dir, "cancelled")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	g, err := upstream.Start(ctx, []upstream.Server{
		{Name: "data", Transport: upstream.Stdio, Command: bin, Args: []string{"-datatools", "-calltools", "-cancelfile", cancelFile}},
		{Name: "plain", Transport: upstream.Stdio, Command: bin, Args: []string{"-tools", "alpha,beta"}, AllListed: true},
	}, upstream.Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	e := newEnv(t)
	alice, bob := e.addToken(t, "alice"), e.addTokenTools(t, "bob", "read", "data__series")
	url := serveHTTP(t, e.server(t, serverOpts{gateway: g, toolSearch: SearchOn, threshold: 2048}))
	cs := dialHTTP(t, url, alice, nil)
	want := []string{"call_tool", "describe_tools", "find_tools", "grep", "list", "outline", "plain__alpha", "plain__beta", "read", "result_query"}
	if got := mcptest.ToolNames(t, cs); !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
	found := call(t, cs, "find_tools", map[string]any{"query": "add up the values in a list of rows"})
	if found.isError || !strings.Contains(found.text, "\ndata__ingest: ") && !strings.HasPrefix(found.text, "data__ingest: ") {
		t.Errorf("find_tools: %s", found.text)
	}
	desc := call(t, cs, "describe_tools", map[string]any{"names": []string{"data__ingest"}})
	var defs []*mcp.Tool
	if desc.isError || json.Unmarshal([]byte(desc.text), &defs) != nil || len(defs) != 1 || defs[0].Name != "data__ingest" || !strings.Contains(desc.text, "data_uri") {
		t.Errorf("describe_tools: %s", desc.text)
	}
	// call_tool: a call that folds, then one that takes its reference.
	series := call(t, cs, "call_tool", map[string]any{"name": "data__series"})
	uri := foldedURI(t, series)
	if r := call(t, cs, "call_tool", map[string]any{"name": "data__ingest", "arguments": map[string]any{"data_uri": uri + "#/series"}}); r.isError || r.text != "rows 240 sum 28800" {
		t.Errorf("call_tool with a reference: %s", r.text)
	}
	// Progress comes back under the caller's token.
	var notes int
	withProgress := dialHTTP(t, url, alice, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { notes++ }})
	if _, err := withProgress.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "data__progress"}, Meta: mcp.Meta{"progressToken": 7}}); err != nil {
		t.Fatal(err)
	}
	mcptest.Eventually(t, "progress through call_tool", func() bool { return notes == 3 })
	// The upstream's own schema judges the arguments, as for a listed
	// tool; and a cancelled call is cancelled upstream.
	if r := call(t, cs, "call_tool", map[string]any{"name": "data__ingest", "arguments": map[string]any{"data": "not a list"}}); !r.isError || !strings.Contains(r.text, "invalid_argument") {
		t.Errorf("call_tool with arguments its schema refuses: %s", r.text)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	cs.CallTool(cctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "data__block"}})
	cancel()
	mcptest.Eventually(t, "the upstream call cancelled", func() bool { _, err := os.Stat(cancelFile); return err == nil })
	// Bob may use data__series alone: he finds nothing else, and cannot
	// call another.
	b := dialHTTP(t, url, bob, nil)
	if r := call(t, b, "find_tools", map[string]any{"query": "add up the values in a list of rows"}); strings.Contains(r.text, "data__ingest") {
		t.Errorf("bob found %s", r.text)
	}
	if _, err := b.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "data__ingest", "arguments": map[string]any{"data": []int{1}}}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("bob called data__ingest: %v", err)
	}
	for _, args := range []map[string]any{{"name": "call_tool"}, {}, {"name": "data__ingest", "arguments": "x"}, {"name": "read", "arguments": []int{1}}} {
		if r := call(t, cs, "call_tool", args); !r.isError || !strings.Contains(r.text, "invalid_argument") {
			t.Errorf("call_tool %v answered %s", args, r.text)
		}
	}
	// Off: the tools as they are, no meta-tools.
	off := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{gateway: g, toolSearch: SearchOff})), alice, nil)
	if names := mcptest.ToolNames(t, off); slices.Contains(names, "find_tools") || !slices.Contains(names, "data__ingest") {
		t.Errorf("off: %v", names)
	}
	// Auto: these few tools cost less than the threshold.
	auto := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{gateway: g})), alice, nil)
	if names := mcptest.ToolNames(t, auto); slices.Contains(names, "find_tools") {
		t.Errorf("auto, under the threshold: %v", names)
	}
}

// TestToolSearchCost: on the tools of real servers (testdata/
// toolcatalogs, served from the schema cache, none started), the 19 of
// the first catalog and all 43, search mode's tools/list, as the server
// writes it, costs at most toolsListBudget (1,700) tokens, a search of 5
// tools at most 300, and one tool's definition what its entry in
// tools/list costs plus at most 30 (go test -run ToolSearchCost -v
// ./mcpserver).
func TestToolSearchCost(t *testing.T) {
	for _, tc := range mcptest.ToolCatalogs(t, "../testdata/toolcatalogs/catalogs.json") {
		t.Run(tc.Name, func(t *testing.T) {
			catalog := tc.Servers
			toolSearchCost(t, catalog)
		})
	}
}

// toolSearchCost is TestToolSearchCost over the servers of catalog, by
// name.
func toolSearchCost(t *testing.T, catalog map[string][]json.RawMessage) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.json")
	var servers []upstream.Server
	for name := range catalog {
		// Never started: the cache is all folio knows of them.
		servers = append(servers, upstream.Server{Name: name, Transport: upstream.Stdio, Command: "/bin/false"})
	}
	if err := upstream.UpdateCache(cache, func(c *upstream.Cache) {
		for _, s := range servers {
			c.Upstreams[s.Name] = upstream.Entry{Fingerprint: s.Fingerprint(), Tools: catalog[s.Name], Fetched: time.Now()}
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	g, err := upstream.Start(ctx, servers, upstream.Options{CachePath: cache, Timeout: time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	e := newEnv(t)
	c := counter(t, "o200k_base")
	// folio's own tools as the binary offers them (search_docs too), in
	// each era: the 2026-07-28 one's results carry more.
	// It says how many servers find_tools' description names, too.
	listTokens := func(mode, era string) (tokens, tools, named int) {
		written := writtenToolsList(t, e.server(t, serverOpts{local: true, docs: true, gateway: g, toolSearch: mode}), era)
		var list mcp.ListToolsResult
		if err := json.Unmarshal(written, &list); err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if _, lines, ok := strings.Cut(tool.Description, " Servers:\n"); ok && tool.Name == "find_tools" {
				named = strings.Count(lines, "\n") + 1 - strings.Count(lines, "\n(and ")
			}
		}
		return c.Count(string(written)), len(list.Tools), named
	}
	for _, era := range []string{sessionEra, sessionlessProtocol} {
		offTokens, offTools, _ := listTokens(SearchOff, era)
		onTokens, onTools, named := listTokens(SearchOn, era)
		autoTokens, _, _ := listTokens(SearchAuto, era)
		t.Logf("%d servers, %s: tools/list of %d tools: %d tokens; in search mode %d tools, %d tokens (%.1f%% of it), %d servers named", len(servers), era, offTools, offTokens, onTools, onTokens, 100*float64(onTokens)/float64(offTokens), named)
		if onTokens > toolsListBudget || autoTokens != onTokens || offTools < 200 {
			t.Errorf("%s: search mode's tools/list: %d tokens (auto %d), over %d", era, onTokens, autoTokens, toolsListBudget)
		}
	}
	cs := dialMemory(t, e.server(t, serverOpts{local: true, gateway: g, toolSearch: SearchOn}), nil)
	found := call(t, cs, "find_tools", map[string]any{"query": "open a pull request on github"})
	if n := c.Count(found.text); found.isError || strings.Count(found.text, "\n") != 5 || n > 300 {
		t.Errorf("find_tools of 5 tools: %d tokens: %s", n, found.text)
	}
	off := dialMemory(t, e.server(t, serverOpts{local: true, gateway: g, toolSearch: SearchOff}), nil)
	list, err := off.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0
	for _, tool := range list.Tools {
		if !strings.Contains(tool.Name, upstream.Separator) {
			continue
		}
		d := call(t, cs, "describe_tools", map[string]any{"names": []string{tool.Name}})
		worst = max(worst, c.Count(d.text)-c.Count(string(mustJSON(tool))))
	}
	t.Logf("find_tools of 5: %d tokens; describe_tools of one tool: at most %d tokens over its entry", c.Count(found.text), worst)
	if worst > 30 {
		t.Errorf("describe_tools costs up to %d tokens over a tool's entry", worst)
	}
}

// writtenToolsList is the result of tools/list as s writes it, byte for
// byte, to a client connected in memory in era.
func writtenToolsList(t *testing.T, s *Server, era string) json.RawMessage {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	w := &writtenResults{Transport: st}
	ss, err := s.Connect(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	w.mu.Lock()
	w.results = nil
	w.mu.Unlock()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.results) != 1 {
		t.Fatalf("%d results written for one tools/list", len(w.results))
	}
	return w.results[0]
}

// writtenResults is a transport that keeps the result of each response
// its connection writes.
type writtenResults struct {
	mcp.Transport
	mu      sync.Mutex
	results []json.RawMessage
}

func (w *writtenResults) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	return writtenConn{Connection: c, w: w}, err
}

type writtenConn struct {
	mcp.Connection
	w *writtenResults
}

func (c writtenConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Result != nil {
		c.w.mu.Lock()
		c.w.results = append(c.w.results, slices.Clone(r.Result))
		c.w.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}
