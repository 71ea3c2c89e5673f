// Package haproxytest runs a real HAProxy (Debian's haproxy package) in
// front of HTTP servers for tests: round robin over them, each request
// balanced on its own, as a team's load balancer would.
package haproxytest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/mcptest"
)

// ReplicaHeader names the response header that says which server answered:
// r0 for the first of Start's list, r1 for the next, and so on.
const ReplicaHeader = "X-Test-Replica"

// Proxy is a running HAProxy.
type Proxy struct {
	// Addr is the host:port it listens on.
	Addr string
	cmd  *exec.Cmd
}

// Start runs HAProxy on a free loopback port in front of the servers
// (host:port each), balancing them round robin. A server that refuses a
// connection is passed over for the next one (retries with redispatch),
// and a dead server is taken out by a check every 200 ms; a request
// already sent to a server that dies fails (502). Each request has a
// connection of its own to its server, so that none is sent on a
// connection that died while idle. It is stopped when the
// test ends. Without haproxy on PATH the test is skipped, unless
// FOLIO_REQUIRE_HAPROXY is set (as in CI), when it fails.
func Start(t testing.TB, servers ...string) *Proxy {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_HAPROXY") != "" {
			t.Fatalf("haproxy is required (FOLIO_REQUIRE_HAPROXY is set): %v", err)
		}
		t.Skip("haproxy is not installed (apt-get install haproxy)")
	}
	addr := mcptest.FreeAddr(t)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `global
	maxconn 2000
defaults
	mode http
	timeout connect 1s
	timeout client 60s
	timeout server 60s
	retries 3
	option redispatch 1
frontend mcp
	bind %s
	default_backend replicas
backend replicas
	balance roundrobin
	http-reuse never
	http-response set-header %s %%[srv_name]
`, addr, ReplicaHeader)
	for i, s := range servers {
		fmt.Fprintf(&cfg, "\tserver r%d %s check inter 200ms fall 1 rise 2\n", i, s)
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", path)
	logPath := filepath.Join(filepath.Dir(path), "haproxy.log")
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: addr, cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return p
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("haproxy did not listen within 10 s:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
