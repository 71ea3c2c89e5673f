package upstream

import (
	"context"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/stdio"
)

// TerminateWait is how long a stdio upstream has to exit once its stdin is
// closed, and again once it is sent SIGTERM, before its process group is
// killed: an upstream ends within twice this after folio lets it go.
const TerminateWait = 300 * time.Millisecond

// stdioTransport runs a stdio upstream: its process, in a process group of
// its own so that whatever it starts ends with it, and MCP over its stdin
// and stdout (see stdio.Client). A line on stdout that is not a JSON-RPC
// message (a banner some servers print first) is skipped, the first one
// logged.
type stdioTransport struct {
	cmd  *exec.Cmd
	name string
	log  *slog.Logger
	// started, when not nil, is told the PID of the process.
	started func(pid int)
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A context that ends kills the whole group, not just the process.
	t.cmd.Cancel = func() error { return killGroup(t.cmd) }
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	if t.started != nil {
		t.started(t.cmd.Process.Pid)
	}
	p := &process{cmd: t.cmd, stdin: stdin, exited: make(chan struct{})}
	go func() {
		t.cmd.Wait()
		close(p.exited)
	}()
	return stdio.Client(stdout, p, func(line []byte) {
		t.log.Warn("upstream wrote a line that is not JSON-RPC: skipped (and any more like it)", "upstream", t.name, "line", string(line))
	}).Connect(ctx)
}

// killGroup kills the process group cmd leads.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// process is a stdio upstream's stdin; closing it ends the upstream: stdin
// is closed, and a process still there after TerminateWait is sent
// SIGTERM, and after TerminateWait more its group is killed. Its group is
// killed in any case, for what it started.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	once   sync.Once
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

func (p *process) Close() error {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(TerminateWait):
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(TerminateWait):
			}
		}
		killGroup(p.cmd)
		<-p.exited
	})
	return nil
}
