// Package upstreamtest builds and starts the upstream servers of folio's
// gateway tests: fakemcp, a real go-sdk MCP server, and rawmcp, a hostile
// one that speaks JSON-RPC by hand. They are built by testmain: a package
// that uses them calls testmain.Main from its TestMain.
package upstreamtest

import (
	"bufio"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/folio-mcp/folio/internal/testmain"
)

// Binary builds fakemcp once per test binary (testmain.Build) and
// returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	return program(t, "fakemcp")
}

// Raw builds rawmcp, the hostile server, once per test binary
// (testmain.Build) and returns its path.
func Raw(t testing.TB) string {
	t.Helper()
	return program(t, "rawmcp")
}

// Prebuild starts building fakemcp and rawmcp in the background
// (testmain.Prebuild), for a TestMain whose tests use them.
func Prebuild() {
	for _, name := range []string{"fakemcp", "rawmcp"} {
		testmain.Prebuild(name, source(name), nil)
	}
}

// program builds the command of this directory's subdirectory name.
func program(t testing.TB, name string) string {
	t.Helper()
	path, err := testmain.Build(name, source(name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// source is the directory of the command name.
func source(name string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), name)
}

// HTTP starts fakemcp over Streamable HTTP on loopback with args and
// returns its endpoint; it is killed when the test ends.
func HTTP(t testing.TB, args ...string) string {
	t.Helper()
	return StartHTTP(t, args...).URL
}

// HTTPServer is fakemcp serving HTTP on loopback (Streamable HTTP, or
// HTTP+SSE with -sse).
type HTTPServer struct {
	// URL is its endpoint.
	URL  string
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartHTTP starts fakemcp over HTTP on loopback with args; it is killed
// when the test ends.
func StartHTTP(t testing.TB, args ...string) *HTTPServer {
	t.Helper()
	s := &HTTPServer{args: args}
	s.URL = s.start(t, "127.0.0.1:0")
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
	return s
}

// Restart starts the server again at the same address with the same
// arguments, killing it first if it is still running: as a server that
// crashed comes back.
func (s *HTTPServer) Restart(t testing.TB) {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.mu.Unlock()
	if got := s.start(t, u.Host); got != s.URL {
		t.Fatalf("fakemcp came back at %s, not %s", got, s.URL)
	}
}

// start starts the process on addr and returns the endpoint it says.
func (s *HTTPServer) start(t testing.TB, addr string) string {
	t.Helper()
	cmd := exec.Command(Binary(t), append([]string{"-http", addr}, s.args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("fakemcp did not say where it listens: %v", err)
	}
	return strings.TrimSpace(line)
}
