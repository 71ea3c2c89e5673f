package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/upstream"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/tools_list/*.json from the binary's answers")

// TestToolsListGolden holds the tools/list that folio writes, byte for
// byte, to files in testdata/tools_list: its own tools with the defaults
// and with every flag that shapes them, and an upstream's tools offered
// directly and behind tool search. A change to what a client is offered
// shows up here as a diff to review (go test -run ToolsListGolden
// -update rewrites them).
func TestToolsListGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	tools := []string{
		`{"name":"echo","title":"Echo","description":"says it back","inputSchema":{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}},"annotations":{"readOnlyHint":true}}`,
		`{"name":"shape","inputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}}}`,
		`{"name":"ingest","description":"takes rows","inputSchema":{"type":"object","properties":{"data":{"type":"array","items":{"type":"object"}}}}}`,
	}
	writeUpstreams(t, config, map[string]any{"raw": map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-tools", "[" + strings.Join(tools, ",") + "]"}}})
	base := []string{"--root", dir, "--log-level", "error"}
	gateway := append(append([]string{}, base...), "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"), "--upstream-start", "eager")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"defaults", base},
		{"shaped", append(append([]string{}, base...), "--page-format", "text", "--tokenizer", "cl100k_base", "--line-max-tokens", "1000")},
		{"gateway", gateway},
		{"gateway_search", append(append([]string{}, gateway...), "--tool-search", "on")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := bytes.ReplaceAll(wireToolsList(t, c.args...), []byte(dir), []byte("ROOT"))
			golden := filepath.Join("testdata", "tools_list", c.name+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("tools/list differs from %s:\n got %s\nwant %s", golden, got, want)
			}
		})
	}
}

// TestToolSearchCostOnTheWire holds the binary to what TestToolSearchCost
// (mcpserver) holds the server to in memory: folio serve over stdio, with
// no flag but its root, the upstreams, the schema cache and the log level
// (so --tool-search is auto), in front of
// the real servers of testdata/toolcatalogs (the 19 of the first catalog,
// and all 43) whose tools the cache gives, answers tools/list in search
// mode (the meta-tools, none of the upstream tools) within 1,700 tokens
// (o200k_base) of its result as it writes it, in both eras. No upstream
// is started: each is a script that leaves a file beside itself when it
// runs, so the catalog can only be the cache's (go test ./cmd/folio -run
// ToolSearchCostOnTheWire -v logs the figures).
func TestToolSearchCostOnTheWire(t *testing.T) {
	t.Parallel()
	const budget = 1700 // mcpserver's toolsListBudget
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range mcptest.ToolCatalogs(t, "../../testdata/toolcatalogs/catalogs.json") {
		t.Run(tc.Name, func(t *testing.T) {
			catalog := tc.Servers
			dir := t.TempDir()
			args := cachedCatalog(t, dir, catalog)
			// Run after every folio below has ended (cleanups run last
			// first).
			t.Cleanup(func() {
				if started, _ := filepath.Glob(filepath.Join(dir, "*.started")); len(started) > 0 {
					t.Errorf("upstreams started: %v", started)
				}
			})
			for _, era := range []string{"2025-11-25", "2026-07-28"} {
				in, sc := serveWire(t, args...)
				result := askToolsList(t, in, sc, era)
				in.Close()
				var list struct {
					Tools []struct{ Name, Description string }
				}
				if err := json.Unmarshal(result, &list); err != nil {
					t.Fatal(err)
				}
				var names []string
				named, unsaid := 0, 0
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
					if _, lines, ok := strings.Cut(tool.Description, " Servers:\n"); ok && tool.Name == "find_tools" {
						for line := range strings.Lines(lines) {
							if _, err := fmt.Sscanf(line, "(and %d more)", &unsaid); err != nil {
								named++
							}
						}
					}
				}
				n := c.Count(string(result))
				t.Logf("%d servers, %s: tools/list on the wire: %d tools, %d bytes, %d tokens (o200k_base); find_tools names %d servers (and %d more)", len(catalog), era, len(list.Tools), len(result), n, named, unsaid)
				if n > budget {
					t.Errorf("%s: search mode's tools/list is %d tokens on the wire, over %d", era, n, budget)
				}
				for _, meta := range []string{"find_tools", "describe_tools", "call_tool"} {
					if !slices.Contains(names, meta) {
						t.Errorf("%s: search mode is off: no %s in %v", era, meta, names)
					}
				}
				for _, name := range names {
					if strings.Contains(name, upstream.Separator) {
						t.Errorf("%s: upstream tool %s listed in search mode", era, name)
					}
				}
				if named == 0 || named+unsaid != len(catalog) {
					t.Errorf("%s: find_tools names %d servers and %d more, of %d cached", era, named, unsaid, len(catalog))
				}
			}
		})
	}
}

// cachedCatalog writes to dir an mcpServers file of the servers of
// catalog, each a script that leaves NAME.started in dir if it is ever
// run, and a schema cache that gives each its tools, fresh; it returns
// folio serve's arguments for them.
func cachedCatalog(t *testing.T, dir string, catalog map[string][]json.RawMessage) []string {
	t.Helper()
	config, cache := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "cache.json")
	servers := map[string]any{}
	for name := range catalog {
		script := filepath.Join(dir, name)
		if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch \"$0.started\"\nexit 1\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		servers[name] = map[string]any{"command": script}
	}
	writeUpstreams(t, config, servers)
	configured, err := upstream.Load(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := upstream.UpdateCache(cache, func(c *upstream.Cache) {
		for _, s := range configured {
			c.Upstreams[s.Name] = upstream.Entry{Fingerprint: s.Fingerprint(), Tools: catalog[s.Name], Fetched: time.Now()}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return []string{"--root", dir, "--upstreams", config, "--schema-cache", cache, "--log-level", "error"}
}
