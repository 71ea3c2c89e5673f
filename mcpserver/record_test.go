package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/audit"
)

// TestCallRecordOnce: the audit log and the log read one record of each
// call: the same tool, outcome and duration (each stage timed the call
// for itself before).
func TestCallRecordOnce(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "# A\n\nsome text\n")
	path := filepath.Join(t.TempDir(), "audit.log")
	al, err := audit.Open(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cs := dialMemory(t, e.server(t, serverOpts{local: true, audit: al, log: log}), nil)
	calls := []struct {
		tool    string
		args    map[string]any
		outcome string
	}{
		{"read", map[string]any{"path": "a.md"}, "ok"},
		{"read", map[string]any{"path": "missing.md"}, "tool_error"},
		{"list", map[string]any{"path": "."}, "ok"},
	}
	for _, c := range calls {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	var logged []map[string]any
	sc := bufio.NewScanner(&logs)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["method"] == "tools/call" {
			logged = append(logged, line)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var audited []audit.Record
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r audit.Record
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		audited = append(audited, r)
	}
	if len(logged) != len(calls) || len(audited) != len(calls) {
		t.Fatalf("%d calls, %d logged, %d audited:\n%s", len(calls), len(logged), len(audited), raw)
	}
	for i, c := range calls {
		r, l := audited[i], logged[i]
		toolError, _ := l["tool_error"].(bool)
		if r.Tool != c.tool || l["tool"] != c.tool || r.Outcome != c.outcome || toolError != (c.outcome == "tool_error") {
			t.Errorf("call %d (%s): audited %+v, logged %v", i, c.tool, r, l)
		}
		if l["ms"] != r.Ms {
			t.Errorf("call %d (%s): logged %v ms, audited %v ms: not one record", i, c.tool, l["ms"], r.Ms)
		}
	}
}
