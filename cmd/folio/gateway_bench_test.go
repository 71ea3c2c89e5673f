package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/upstream"
)

// gatewayConfig writes an mcpServers file of four fakemcp upstreams over
// stdio and one that never answers, and returns it with its cache path.
func gatewayConfig(b *testing.B) (config, cache string, servers map[string]any) {
	bin := upstreamtest.Binary(b)
	dir := b.TempDir()
	config, cache = filepath.Join(dir, "mcp.json"), filepath.Join(dir, "cache.json")
	servers = map[string]any{"dead": map[string]any{"command": bin, "args": []string{"-hang"}}}
	for i := range 4 {
		servers[fmt.Sprintf("s%d", i)] = map[string]any{"command": bin, "args": []string{"-tools", "alpha,beta,gamma"}}
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": servers})
	os.WriteFile(config, raw, 0o600)
	return config, cache, servers
}

// BenchmarkGatewayStart is process start to the first tools/list answer
// of folio serve with five upstreams, one of which never answers: all
// cached (the dead one from an earlier run), and none cached (then the
// per-upstream timeout, 1 s here, bounds it).
func BenchmarkGatewayStart(b *testing.B) {
	config, cache, _ := gatewayConfig(b)
	if r := folioCmd(b, "upstreams", "refresh", "--upstreams", config, "--schema-cache", cache, "--upstream-timeout", "1s"); r.Run() == nil {
		b.Fatal("the dead upstream was discovered")
	}
	servers, err := upstream.Load(config)
	if err != nil {
		b.Fatal(err)
	}
	upstream.UpdateCache(cache, func(c *upstream.Cache) {
		for _, s := range servers {
			if s.Name == "dead" {
				c.Upstreams["dead"] = upstream.Entry{Fingerprint: s.Fingerprint(), Tools: []json.RawMessage{json.RawMessage(`{"name":"ghost","inputSchema":{"type":"object"}}`)}}
			}
		}
	})
	dir := b.TempDir()
	for _, tc := range []struct{ name, cache string }{{"cached", cache}, {"uncached", filepath.Join(dir, "none.json")}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				os.Remove(filepath.Join(dir, "none.json"))
				start := time.Now()
				cmd := folioCmd(b, "serve", "--root", dir, "--upstreams", config, "--schema-cache", tc.cache, "--upstream-timeout", "1s", "--log-level", "error")
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					b.Fatal(err)
				}
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil || len(res.Tools) < 16 {
					b.Fatalf("%v: %d tools", err, len(res.Tools))
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms-to-tools")
				cs.Close()
			}
		})
	}
}

// BenchmarkGatewayManyCached is process start to the first tools/list
// answer, and that answer's own time (the request written to its answer
// read, by a client that only reads lines, so that its own parsing is not
// counted), with 20 upstreams all fresh in the cache: the cache is there
// so that the list is there at once, whatever the upstreams are doing.
// "burners" are 20 fakemcp processes (340 tools) that each keep a core
// busy for a second when they start, as a Node.js server does; "node" are
// real Node.js servers from the npm registry, server-everything and
// server-filesystem ten times each, run when FOLIO_BENCH_NODE_MODULES
// names the node_modules that holds them.
func BenchmarkGatewayManyCached(b *testing.B) {
	b.Run("burners", func(b *testing.B) {
		bin := upstreamtest.Binary(b)
		names := make([]string, 17)
		for i := range names {
			names[i] = fmt.Sprintf("tool%d", i)
		}
		servers := map[string]any{}
		for i := range 20 {
			servers[fmt.Sprintf("s%02d", i)] = map[string]any{"command": bin, "args": []string{"-tools", strings.Join(names, ","), "-burn", "1s"}}
		}
		benchManyCached(b, servers, 4+340)
	})
	b.Run("node", func(b *testing.B) {
		modules := os.Getenv("FOLIO_BENCH_NODE_MODULES")
		if modules == "" {
			b.Skip("FOLIO_BENCH_NODE_MODULES is not set")
		}
		dir := b.TempDir()
		servers := map[string]any{}
		for i := range 10 {
			servers[fmt.Sprintf("everything%d", i)] = map[string]any{"command": "node",
				"args": []string{filepath.Join(modules, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}}
			servers[fmt.Sprintf("files%d", i)] = map[string]any{"command": "node",
				"args": []string{filepath.Join(modules, "@modelcontextprotocol/server-filesystem/dist/index.js"), dir}}
		}
		benchManyCached(b, servers, 0)
	})
}

// benchManyCached runs BenchmarkGatewayManyCached with servers, whose
// tools and folio's come to tools (any number, when 0).
func benchManyCached(b *testing.B, servers map[string]any, tools int) {
	dir := b.TempDir()
	config, cache := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "cache.json")
	raw, _ := json.Marshal(map[string]any{"mcpServers": servers})
	os.WriteFile(config, raw, 0o600)
	if out, err := folioCmd(b, "upstreams", "refresh", "--upstreams", config, "--schema-cache", cache, "--upstream-timeout", "60s").CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	for b.Loop() {
		start := time.Now()
		cmd := folioCmd(b, "serve", "--root", dir, "--upstreams", config, "--schema-cache", cache, "--log-level", "error")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		lines := bufio.NewReaderSize(stdout, 1<<20)
		answer := func(msg string) []byte {
			io.WriteString(stdin, msg+"\n")
			line, err := lines.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			return line
		}
		answer(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		asked := time.Now()
		list := answer(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms-to-tools")
		b.ReportMetric(float64(time.Since(asked).Microseconds())/1000, "ms-list")
		var res struct {
			Result struct{ Tools []json.RawMessage }
		}
		if err := json.Unmarshal(list, &res); err != nil || tools > 0 && len(res.Result.Tools) != tools {
			b.Fatalf("%v: %d tools", err, len(res.Result.Tools))
		}
		b.ReportMetric(float64(len(res.Result.Tools)), "tools")
		stdin.Close()
		cmd.Wait()
	}
}

// BenchmarkGatewayCall is the latency of one tools/call of an upstream,
// called directly and through folio (over stdio), with the upstream over
// stdio and over HTTP; p50 and p99 in ms. FOLIO_BENCH_UPSTREAM, when set,
// is the command line of the stdio upstream in place of fakemcp's (say
// "node …/server-everything/dist/index.js stdio"), FOLIO_BENCH_CALL its
// tool and arguments ("echo {\"message\":\"hello\"}").
func BenchmarkGatewayCall(b *testing.B) {
	bin := upstreamtest.Binary(b)
	stdio, tool, args := []string{bin, "-tools", "echo"}, "echo", map[string]any{"text": "hello"}
	if up := strings.Fields(os.Getenv("FOLIO_BENCH_UPSTREAM")); len(up) > 0 {
		stdio = up
		name, raw, _ := strings.Cut(os.Getenv("FOLIO_BENCH_CALL"), " ")
		tool, args = name, nil
		if err := json.Unmarshal([]byte(raw), &args); err != nil || tool == "" {
			b.Fatalf("FOLIO_BENCH_CALL %q: a tool and its arguments as JSON", os.Getenv("FOLIO_BENCH_CALL"))
		}
	}
	dir := b.TempDir()
	url := upstreamtest.HTTP(b, "-tools", "echo")
	connect := func(t mcp.Transport) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		return cs
	}
	viaFolio := func(entry map[string]any) *mcp.ClientSession {
		config := filepath.Join(b.TempDir(), "mcp.json")
		raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"up": entry}})
		os.WriteFile(config, raw, 0o600)
		return connect(&mcp.CommandTransport{Command: folioCmd(b, "serve", "--root", dir, "--upstreams", config,
			"--schema-cache", filepath.Join(b.TempDir(), "c.json"), "--log-level", "error")})
	}
	for _, tc := range []struct {
		name string
		cs   func() *mcp.ClientSession
		tool string
	}{
		{"stdio/direct", func() *mcp.ClientSession {
			return connect(&mcp.CommandTransport{Command: exec.Command(stdio[0], stdio[1:]...)})
		}, tool},
		{"stdio/folio", func() *mcp.ClientSession {
			return viaFolio(map[string]any{"command": stdio[0], "args": stdio[1:]})
		}, "up__" + tool},
		{"http/direct", func() *mcp.ClientSession { return connect(&mcp.StreamableClientTransport{Endpoint: url}) }, "echo"},
		{"http/folio", func() *mcp.ClientSession { return viaFolio(map[string]any{"type": "http", "url": url}) }, "up__echo"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cs := tc.cs()
			params := &mcp.CallToolParams{Name: tc.tool, Arguments: args}
			if _, err := cs.CallTool(context.Background(), params); err != nil { // connects folio's link
				b.Fatal(err)
			}
			var lat []time.Duration
			for b.Loop() {
				t := time.Now()
				if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// TestGatewayToolsListCost: the tools/list of folio with folio itself as
// an upstream (four tools with real descriptions and schemas) costs no
// more than 2% over the upstream's own list for the upstream's tools: the
// prefixes, without reference arguments (whose cost it logs).
func TestGatewayToolsListCost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"folio": map[string]any{"command": folioBin, "args": []string{"serve", "--root", dir, "--log-level", "error"}}}})
	os.WriteFile(config, raw, 0o600)
	list := func(cmd *exec.Cmd) []*mcp.Tool {
		cs := dial(t, &mcp.CommandTransport{Command: cmd})
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools
	}
	own := list(folioCmd(t, "serve", "--root", dir, "--log-level", "error"))
	upstreamTools := func(extra ...string) []*mcp.Tool {
		args := append([]string{"serve", "--root", dir, "--upstreams", config, "--schema-cache", filepath.Join(dir, "c.json"), "--log-level", "error"}, extra...)
		var offered []*mcp.Tool
		for _, tool := range list(folioCmd(t, args...)) {
			if strings.HasPrefix(tool.Name, "folio__") {
				offered = append(offered, tool)
			}
		}
		return offered
	}
	offered, withRefs := upstreamTools("--no-reference-args"), upstreamTools()
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	count := func(tools []*mcp.Tool) int {
		b, _ := json.Marshal(map[string]any{"tools": tools})
		return c.Count(string(b))
	}
	upstreamTokens, offeredTokens, refTokens := count(own), count(offered), count(withRefs)
	t.Logf("the upstream's tools: %d tokens on their own, %d as folio offers them (+%.1f%%), %d with reference arguments (+%.1f%%)",
		upstreamTokens, offeredTokens, 100*float64(offeredTokens-upstreamTokens)/float64(upstreamTokens),
		refTokens, 100*float64(refTokens-upstreamTokens)/float64(upstreamTokens))
	if len(offered) != len(own) || float64(offeredTokens) > 1.02*float64(upstreamTokens) {
		t.Errorf("%d of %d tools offered; %d tokens against %d", len(offered), len(own), offeredTokens, upstreamTokens)
	}
}
