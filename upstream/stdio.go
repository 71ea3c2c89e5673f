package upstream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TerminateWait is how long a stdio upstream has to exit once its stdin is
// closed, and again once it is sent SIGTERM, before its process group is
// killed: an upstream ends within twice this after folio lets it go.
const TerminateWait = 300 * time.Millisecond

// stdioTransport runs a stdio upstream: its process, in a process group of
// its own so that whatever it starts ends with it, and MCP over its stdin
// and stdout. A line on stdout that is not a JSON-RPC message (a banner
// some servers print first) is skipped, the first one logged.
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
	lines := &jsonLines{r: bufio.NewReaderSize(stdout, 64<<10), stdout: stdout, skipped: func(line []byte) {
		t.log.Warn("upstream wrote a line that is not JSON-RPC: skipped (and any more like it)", "upstream", t.name, "line", string(line[:min(len(line), 200)]))
	}}
	return (&mcp.IOTransport{Reader: lines, Writer: p}).Connect(ctx)
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

// jsonLines reads an upstream's stdout as go-sdk does, newline-delimited
// JSON, but passes only the lines that can be JSON-RPC messages (objects,
// or arrays of them): the others are skipped, and skipped is told of the
// first.
type jsonLines struct {
	r       *bufio.Reader
	stdout  io.Closer
	skipped func(line []byte)
	// passing: the rest of the current line goes through.
	passing bool
	told    bool
	pending []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for {
		if len(j.pending) > 0 {
			n := copy(p, j.pending)
			j.pending = j.pending[n:]
			return n, nil
		}
		if j.passing {
			chunk, err := j.r.ReadSlice('\n')
			if len(chunk) > 0 {
				j.passing = !bytes.HasSuffix(chunk, []byte("\n"))
				n := copy(p, chunk)
				j.pending = append(j.pending[:0], chunk[n:]...)
				return n, nil
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return 0, err
		}
		// At the start of a line: look past white space at its first byte.
		b, err := j.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			j.r.ReadByte()
			continue
		case '{':
			j.passing = true
			continue
		case '[':
			// A batch is a list of messages; "[INFO] ready" is a banner.
			if batch(j.r) {
				j.passing = true
				continue
			}
		}
		line, err := j.skipLine()
		if !j.told {
			j.told = true
			j.skipped(line)
		}
		if err != nil {
			return 0, err
		}
	}
}

// batch reports whether the "[" at r's head opens a list of messages:
// white space, then "{" or "]".
func batch(r *bufio.Reader) bool {
	for n := 2; n <= 64; n++ {
		b, _ := r.Peek(n)
		if len(b) < n {
			return false
		}
		switch b[n-1] {
		case ' ', '\t', '\r':
			continue
		case '{', ']':
			return true
		}
		return false
	}
	return false
}

// skipLine passes the rest of the line, and returns its start.
func (j *jsonLines) skipLine() ([]byte, error) {
	var start []byte
	for {
		chunk, err := j.r.ReadSlice('\n')
		if start == nil {
			start = bytes.Clone(chunk[:min(len(chunk), 200)])
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(start, "\r\n"), err
	}
}

func (j *jsonLines) Close() error { return j.stdout.Close() }
