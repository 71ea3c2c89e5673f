package upstream

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestJSONLines: an upstream's stdout passes line for line when its lines
// are JSON-RPC messages or batches, and lines that are not (banners, log
// lines, blank lines) are skipped, the first one told; a line longer than
// the buffer passes whole.
func TestJSONLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 200<<10) + `"}}`
	in := strings.Join([]string{
		"Secure MCP Filesystem Server running on stdio",
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		"",
		"[INFO] ready",
		`  {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`[ ]`,
		long,
		"bye",
	}, "\n") + "\n"
	var told []string
	j := &jsonLines{r: bufio.NewReaderSize(strings.NewReader(in), 64<<10), stdout: io.NopCloser(nil), skipped: func(line []byte) { told = append(told, string(line)) }}
	out, err := io.ReadAll(j)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`[ ]`,
		long,
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("passed %d bytes:\n%.300s\nwant %d bytes:\n%.300s", len(out), out, len(want), want)
	}
	if len(told) != 1 || told[0] != "Secure MCP Filesystem Server running on stdio" {
		t.Errorf("told of %q", told)
	}
}
