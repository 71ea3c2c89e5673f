// Package mcptest holds what folio's tests share: calling tools through a
// real go-sdk client, the codes of errors, a clock the test moves,
// Go's own source tree as a corpus, and free loopback addresses.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/toolerr"
)

// ToolNames lists a session's tools, sorted.
func ToolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// Call calls a tool and returns its result; a protocol error fails the
// test (a tool error is a result).
func Call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// CallText calls a tool and returns the text of its first content block,
// and whether it is a tool error.
func CallText(t testing.TB, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res := Call(t, cs, name, args)
	return Text(res), res.IsError
}

// Text is the text of a result's first content block, "" when it has
// none that is text.
func Text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

// Code is the code of err when it is a *toolerr.Error, "" for nil, and
// says so when it is another error.
func Code(err error) string {
	var e *toolerr.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return "not a tool error: " + err.Error()
}

// Buffer is a log sink (a process's stderr, a server's log) that a test
// reads while it is written.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Eventually waits, up to ten seconds, for cond to hold, and fails the
// test with what when it does not.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i == 200 {
			t.Fatal(what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Clock is a clock the test moves; its Now is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock that reads now until moved.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// GoSource is a directory of Go's own source tree (parts under
// GOROOT/src): a real corpus every machine that runs the tests has.
func GoSource(t testing.TB, parts ...string) string {
	t.Helper()
	root, err := GoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root, "src"}, parts...)...)
}

// GoRoot is the Go installation's root, as `go env GOROOT` names it.
func GoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	root := strings.TrimSpace(string(out))
	if err != nil || root == "" {
		return "", fmt.Errorf("go env GOROOT: %v", err)
	}
	return root, nil
}

// FreeAddr is a loopback address (host:port) nothing listens on now, for
// a server a test starts.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ToolCatalog is the tools of real MCP servers, by server, as
// testdata/toolcatalogs/catalogs.json has them.
type ToolCatalog struct {
	Name    string
	Servers map[string][]json.RawMessage
}

// ToolCatalogs are the first catalog's 19 servers (the servers of
// testdata/toolcatalogs/REQUESTS.md's first requests) and the whole 43,
// read from catalogs.json at path.
func ToolCatalogs(t testing.TB, path string) []ToolCatalog {
	t.Helper()
	var fixture struct {
		Servers []struct {
			Name  string
			Tools []json.RawMessage
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &fixture) != nil {
		t.Fatalf("the fixture %s: %v", path, err)
	}
	first := strings.Fields("brave context7 everart everything exa filesystem firecrawl github gitlab kubernetes maps memory notion playwright postgres puppeteer slack tavily thinking")
	catalogs := []ToolCatalog{{"first catalog", map[string][]json.RawMessage{}}, {"whole catalog", map[string][]json.RawMessage{}}}
	for _, s := range fixture.Servers {
		if slices.Contains(first, s.Name) {
			catalogs[0].Servers[s.Name] = s.Tools
		}
		catalogs[1].Servers[s.Name] = s.Tools
	}
	if len(catalogs[0].Servers) != len(first) || len(catalogs[1].Servers) != 43 {
		t.Fatalf("the fixture has %d of the first catalog's %d servers, and %d in all, not 43", len(catalogs[0].Servers), len(first), len(catalogs[1].Servers))
	}
	return catalogs
}
