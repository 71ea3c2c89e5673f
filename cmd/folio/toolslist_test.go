package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/upstreamtest"
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
