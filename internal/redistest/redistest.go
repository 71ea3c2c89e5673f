// Package redistest runs real Redis servers for tests: the one that
// FOLIO_TEST_REDIS names (.ci/run starts it), or a redis-server process of
// the test's own.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Server is a running Redis server.
type Server struct {
	// URL is redis://127.0.0.1:PORT/DB.
	URL string
	cmd *exec.Cmd
}

// Shared returns the server that FOLIO_TEST_REDIS names (a redis:// URL),
// or starts one with Start.
func Shared(t testing.TB) *Server {
	if url := os.Getenv("FOLIO_TEST_REDIS"); url != "" {
		return &Server{URL: url}
	}
	return Start(t)
}

// Start runs a redis-server of the test's own on a free loopback port, with
// no persistence, and stops it when the test ends. Without redis-server on
// PATH the test is skipped, unless FOLIO_REQUIRE_REDIS is set (as in CI),
// when it fails.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_REDIS") != "" {
			t.Fatalf("redis-server is required (FOLIO_REQUIRE_REDIS is set): %v", err)
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port),
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--protected-mode", "yes")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), cmd: cmd}
	t.Cleanup(s.Kill)
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "Ready to accept connections") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("redis-server stopped before it was ready")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("redis-server was not ready within 10 s")
	}
	return s
}

// Kill stops a server that Start began, at once.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
