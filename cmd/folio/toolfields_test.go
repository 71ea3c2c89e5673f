package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// wireToolsList starts folio serve over stdio with args, speaks JSON-RPC
// to it by hand (so that nothing a client library drops is lost) and
// returns its tools/list answer's result, the bytes folio wrote.
func wireToolsList(t *testing.T, args ...string) json.RawMessage {
	t.Helper()
	in, sc := serveWire(t, args...)
	return askToolsList(t, in, sc, "2025-11-25")
}

// askToolsList asks folio serve, over its stdin (in) and stdout (sc), for
// tools/list as a client of era does, and returns the answer's result,
// the bytes folio wrote: a 2025-11-25 client initializes first; a
// 2026-07-28 one, which has no session, asks server/discover, then
// tools/list with its version and capabilities in _meta, as go-sdk's
// client does.
func askToolsList(t *testing.T, in io.Writer, sc *bufio.Scanner, era string) json.RawMessage {
	t.Helper()
	switch era {
	case "2025-11-25":
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
		fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	case "2026-07-28":
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wire","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`)
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`)
	default:
		t.Fatalf("no era %q", era)
	}
	for sc.Scan() {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == 0 {
			continue
		}
		switch {
		case msg.Error != nil:
			t.Fatalf("%s: request %d: %s", era, msg.ID, msg.Error)
		case msg.ID == 2 && msg.Result != nil:
			return msg.Result
		}
	}
	t.Fatal("no tools/list answer")
	return nil
}

// serveWire starts folio serve over stdio with args, for a test to
// write to its stdin and read its stdout a line at a time; it ends with
// the test.
func serveWire(t *testing.T, args ...string) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(folioBin, append([]string{"serve"}, args...)...)
	cmd.Env = testmain.Env(t)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 4<<20)
	return in, lines
}

// wireList is wireToolsList's tools, each as the bytes folio wrote, by
// name.
func wireList(t *testing.T, args ...string) map[string]json.RawMessage {
	t.Helper()
	var result struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(wireToolsList(t, args...), &result); err != nil {
		t.Fatal(err)
	}
	tools := map[string]json.RawMessage{}
	for _, raw := range result.Tools {
		var head struct{ Name string }
		json.Unmarshal(raw, &head)
		tools[head.Name] = raw
	}
	return tools
}

// members are the members of the JSON object raw, as its bytes, in order.
func members(t *testing.T, raw []byte) ([]string, map[string]string) {
	t.Helper()
	var keys []string
	values := map[string]string{}
	elems, err := jsonvalue.Elements(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	for _, e := range elems {
		keys = append(keys, e.Key)
		values[e.Key] = string(raw[e.Start:e.End])
	}
	return keys, values
}

// TestUpstreamToolFieldsPass: an upstream tool is offered with every
// field its upstream gave, byte for byte and in its order (execution,
// annotations without the hints go-sdk would add, _meta, a field of some
// later revision, HTML characters and key orders in its schemas), but for
// the name and folio's documented additions (an output schema that admits
// the folded form, the X_uri arguments); so from the upstream at first,
// and so from the schema cache after a restart with the upstream gone. A
// tool whose tasks are required is still left out.
func TestUpstreamToolFieldsPass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	echo := `{"name":"echo","title":"Echo","description":"says <it> & more","inputSchema":{"type":"object","required":["text"],"properties":{"text":{"type":"string","description":"a <b>"}}},"execution":{"taskSupport":"forbidden"},"annotations":{"title":"E","readOnlyHint":true},"x-later":{"b":1,"a":[2,1]},"_meta":{"k":"v"}}`
	shape := `{"inputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"name":"shape","outputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"execution":{"taskSupport":"optional"}}`
	ingest := `{"name":"ingest","inputSchema":{"type":"object","properties":{"data":{"type":"array"}}}}`
	research := `{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`
	// A copy of the upstream, to be removed: then all folio knows of it
	// is the cache.
	bin := filepath.Join(dir, "rawmcp")
	if b, err := os.ReadFile(upstreamtest.Raw(t)); err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "mcp.json")
	writeUpstreams(t, config, map[string]any{"raw": map[string]any{"command": bin, "args": []string{"-tools", "[" + strings.Join([]string{echo, shape, ingest, research}, ",") + "]"}}})
	serve := []string{"--root", dir, "--upstreams", config, "--schema-cache", filepath.Join(dir, "cache.json"), "--log-level", "error"}
	// With refs, input schemas may have X_uri arguments (the rest of
	// each is held byte for byte where refs are off).
	check := func(t *testing.T, tools map[string]json.RawMessage, refs bool) {
		t.Helper()
		if _, ok := tools["raw__research"]; ok {
			t.Error("a tool that can only be called as a task is offered")
		}
		for offered, sent := range map[string]string{"raw__echo": echo, "raw__shape": shape, "raw__ingest": ingest} {
			got, ok := tools[offered]
			if !ok {
				t.Errorf("%s is not offered: %v", offered, tools)
				continue
			}
			wantKeys, want := members(t, []byte(sent))
			gotKeys, have := members(t, got)
			if strings.Join(gotKeys, ",") != strings.Join(wantKeys, ",") {
				t.Errorf("%s: fields %v, the upstream's %v", offered, gotKeys, wantKeys)
			}
			for _, k := range wantKeys {
				switch {
				case k == "name":
					if have[k] != `"`+offered+`"` {
						t.Errorf("%s: name %s", offered, have[k])
					}
				case k == "outputSchema":
					// Admits the folded form: the upstream's schema is
					// its first branch.
					if !strings.HasPrefix(have[k], `{"type":"object","anyOf":[`+want[k]+`,{"type":"object","properties":{"preview":{"anyOf":[{"type":"object"}`) {
						t.Errorf("%s: outputSchema %s", offered, have[k])
					}
				case k == "inputSchema" && refs:
					if offered == "raw__ingest" && !strings.Contains(have[k], `"data_uri":`) {
						t.Errorf("%s: no reference argument in %s", offered, have[k])
					}
				case have[k] != want[k]:
					t.Errorf("%s: %s is %s, the upstream's %s", offered, k, have[k], want[k])
				}
			}
		}
	}
	t.Run("discovered", func(t *testing.T) { check(t, wireList(t, append(serve, "--no-reference-args")...), false) })
	cache, err := os.ReadFile(filepath.Join(dir, "cache.json"))
	if err != nil || !bytes.Contains(cache, []byte(`"execution": {`)) || !bytes.Contains(cache, []byte(`says <it> & more`)) {
		t.Fatalf("the schema cache does not keep the definitions as they came (%v):\n%s", err, cache)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	t.Run("cached", func(t *testing.T) { check(t, wireList(t, append(serve, "--upstream-start", "on-demand")...), true) })
}
