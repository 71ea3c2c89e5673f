// Package upstreamtest builds and starts fakemcp, a real go-sdk MCP server,
// for the tests of folio's upstreams.
package upstreamtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	build    sync.Once
	binary   string
	buildErr error
)

// Binary builds fakemcp once per test process and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	build.Do(func() {
		_, here, _, _ := runtime.Caller(0)
		dir, err := os.MkdirTemp("", "fakemcp")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "fakemcp")
		out, err := exec.Command("go", "build", "-o", binary, filepath.Join(filepath.Dir(here), "fakemcp")).CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "building fakemcp: " + e.err.Error() + ": " + e.out }

// HTTP starts fakemcp over Streamable HTTP on loopback with args and
// returns its endpoint; it is killed when the test ends.
func HTTP(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(Binary(t), append([]string{"-http", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("fakemcp did not say where it listens: %v", err)
	}
	return strings.TrimSpace(line)
}
