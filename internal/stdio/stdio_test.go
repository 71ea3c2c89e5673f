package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peer is the other end of a connection under test: it writes lines to
// the connection and reads the lines the connection writes.
type peer struct {
	in    io.WriteCloser
	lines chan string
}

// send writes lines, without waiting for them to be read (an io.Pipe
// holds none).
func (p *peer) send(lines ...string) {
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(p.in, l+"\n"); err != nil {
				return
			}
		}
	}()
}

func (p *peer) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatal("no more lines")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line in 10 s")
	}
	return ""
}

// connect connects t over OS pipes (read through the poller) or, with
// goroutine, over io.Pipe (read by a goroutine of the connection's).
func connect(tb testing.TB, t func(r io.ReadCloser, w io.WriteCloser) *Transport, goroutine bool) (mcp.Connection, *peer) {
	tb.Helper()
	var (
		r     io.ReadCloser
		w     io.WriteCloser
		theyW io.WriteCloser
		theyR io.Reader
	)
	if goroutine {
		r, theyW = io.Pipe()
		theyR, w = io.Pipe()
	} else {
		r1, w1, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		r2, w2, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		r, theyW, theyR, w = r1, w1, r2, w2
	}
	c, err := t(r, w).Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(); theyW.Close() })
	p := &peer{in: theyW, lines: make(chan string, 16)}
	go func() {
		s := bufio.NewScanner(theyR)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			p.lines <- s.Text()
		}
		close(p.lines)
	}()
	return c, p
}

func server(r io.ReadCloser, w io.WriteCloser) *Transport { return Server(r, w) }

// each runs f over both ways of reading.
func each(t *testing.T, f func(t *testing.T, goroutine bool)) {
	for _, goroutine := range []bool{false, true} {
		name := "poller"
		if goroutine {
			name = "goroutine"
		}
		t.Run(name, func(t *testing.T) { f(t, goroutine) })
	}
}

// pending is a Read started now, as a server always has one waiting (read
// through the poller, what a line holds is only read, and a bad line only
// answered, while a Read waits): its message, from the channel.
func pending(t *testing.T, c mcp.Connection) <-chan jsonrpc.Message {
	ch := make(chan jsonrpc.Message, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		msg, err := c.Read(ctx)
		if err != nil {
			t.Error(err)
		}
		ch <- msg
	}()
	return ch
}

func read(t *testing.T, c mcp.Connection) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// errorOf is the code and id of an error answer line.
func errorOf(t *testing.T, line string) (code int64, id any) {
	t.Helper()
	var a struct {
		ID    any `json:"id"`
		Error struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &a); err != nil || a.Error.Code == 0 {
		t.Fatalf("%s is no error answer (%v)", line, err)
	}
	return a.Error.Code, a.ID
}

// TestServerStaysUp: a client's line that is not JSON is answered with a
// parse error, a message that is not JSON-RPC with an invalid request
// (to its id, when it has one), a line over the bound with an error, and
// the next message is read as if nothing had happened; blank lines and
// CRLF ends pass.
func TestServerStaysUp(t *testing.T) {
	each(t, func(t *testing.T, goroutine bool) {
		c, p := connect(t, func(r io.ReadCloser, w io.WriteCloser) *Transport {
			return Server(r, w).WithMaxMessageBytes(100)
		}, goroutine)
		next := pending(t, c)
		p.send(
			"hello",
			`{"jsonrpc":"2.0","id":`,
			`{"jsonrpc":"1.0","id":7,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
			`{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"`+strings.Repeat("x", 100)+`"}}`,
			"",
			`  {"jsonrpc":"2.0","id":9,"method":"ping"}`+"\r",
		)
		for _, want := range []struct {
			code int64
			id   any
		}{{jsonrpc.CodeParseError, nil}, {jsonrpc.CodeParseError, nil}, {jsonrpc.CodeInvalidRequest, 7.0}, {jsonrpc.CodeInvalidRequest, nil}, {jsonrpc.CodeInvalidRequest, nil}} {
			if code, id := errorOf(t, p.next(t)); code != want.code || id != want.id {
				t.Errorf("answered %d to %v, want %d to %v", code, id, want.code, want.id)
			}
		}
		req, ok := (<-next).(*jsonrpc.Request)
		if !ok || req.Method != "ping" || req.ID.Raw() != int64(9) {
			t.Fatalf("%#v", req)
		}
	})
}

// TestBatches: before 2025-06-18 a batch is read message by message, and
// its answers go out together, in the batch's order, once the last is
// written; once a session says 2025-06-18 or later (in its initialize
// answer, or a request's _meta), a batch is refused.
func TestBatches(t *testing.T) {
	each(t, func(t *testing.T, goroutine bool) {
		c, p := connect(t, server, goroutine)
		ctx := context.Background()
		p.send(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"notifications/n"},{"jsonrpc":"2.0","id":"two","method":"b"}]`)
		var ids []jsonrpc.ID
		for range 3 {
			if req := read(t, c).(*jsonrpc.Request); req.IsCall() {
				ids = append(ids, req.ID)
			}
		}
		for i := len(ids) - 1; i >= 0; i-- {
			if err := c.Write(ctx, &jsonrpc.Response{ID: ids[i], Result: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := p.next(t), `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"two","result":{}}]`; got != want {
			t.Errorf("%s, want %s", got, want)
		}

		next := pending(t, c)
		p.send(`[{"jsonrpc":"2.0","id":3,"method":"c","params":{"_meta":{"` + mcp.MetaKeyProtocolVersion + `":"2026-07-28"}}}]`)
		if code, _ := errorOf(t, p.next(t)); code != jsonrpc.CodeInvalidRequest {
			t.Errorf("a batch of the 2026-07-28 era: %d", code)
		}

		p.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}`)
		init := (<-next).(*jsonrpc.Request)
		c.Write(ctx, &jsonrpc.Response{ID: init.ID, Result: json.RawMessage(`{"protocolVersion":"2025-06-18"}`)})
		p.next(t)
		next = pending(t, c)
		p.send(`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
		if code, _ := errorOf(t, p.next(t)); code != jsonrpc.CodeInvalidRequest {
			t.Errorf("a batch after 2025-06-18 was negotiated: %d", code)
		}
		if req := (<-next).(*jsonrpc.Request); req.ID.Raw() != int64(6) {
			t.Errorf("%#v", req)
		}
	})
}

// TestClientSkipsBanners: a line of an upstream's that cannot be a
// message (a banner, a log line, "[INFO] ready") is skipped, the first
// told; batches and long lines pass whole; a line that looks like a
// message but is none ends the connection with an error that quotes it.
func TestClientSkipsBanners(t *testing.T) {
	each(t, func(t *testing.T, goroutine bool) {
		var told []string
		c, p := connect(t, func(r io.ReadCloser, w io.WriteCloser) *Transport {
			return Client(r, w, func(line []byte) { told = append(told, string(line)) })
		}, goroutine)
		long := strings.Repeat("x", 200<<10)
		p.send(
			"Secure MCP Filesystem Server running on stdio",
			`{"jsonrpc":"2.0","id":0,"result":{}}`,
			"[INFO] ready",
			`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
			`{"jsonrpc":"2.0","id":1,"result":{"text":"`+long+`"}}`,
			"bye",
			`{"jsonrpc":"2.0","id":3,"result":`,
		)
		for _, want := range []int64{0, 2, 1} {
			resp, ok := read(t, c).(*jsonrpc.Response)
			if !ok || resp.ID.Raw() != want {
				t.Fatalf("%#v, want the answer to %d", resp, want)
			}
			if want == 1 && len(resp.Result) < len(long) {
				t.Errorf("the long line came cut: %d bytes", len(resp.Result))
			}
		}
		_, err := c.Read(context.Background())
		if err == nil || !strings.Contains(err.Error(), "not JSON") || !strings.Contains(err.Error(), "result") {
			t.Errorf("a broken message: %v", err)
		}
		if len(told) != 1 || told[0] != "Secure MCP Filesystem Server running on stdio" {
			t.Errorf("told %q", told)
		}
	})
}

// TestCloseEndsRead: a Read waiting for a line returns once the
// connection closes, and one whose context ends returns that context's
// error.
func TestCloseEndsRead(t *testing.T) {
	each(t, func(t *testing.T, goroutine bool) {
		c, _ := connect(t, server, goroutine)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := c.Read(ctx); done <- err }()
		time.Sleep(10 * time.Millisecond)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("after cancel: %v", err)
		}
		c2, _ := connect(t, server, goroutine)
		go func() { _, err := c2.Read(context.Background()); done <- err }()
		time.Sleep(10 * time.Millisecond)
		c2.Close()
		select {
		case err := <-done:
			if !errors.Is(err, io.EOF) {
				t.Errorf("after Close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Read still waits after Close")
		}
	})
}

// TestPollerOwnsItsDescriptor: a pipe given to Server is read through the
// poller (it once fell back to a reading goroutine when the pipe was
// already non-blocking), from a descriptor of its own: the caller's File
// collected closes nothing of the server's, and closing the connection
// closes the caller's end too.
func TestPollerOwnsItsDescriptor(t *testing.T) {
	r, theyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer theyW.Close()
	c, err := Server(r, io.Discard).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.(*conn).deadline == nil {
		t.Fatal("the pipe is read by a goroutine, not through the poller")
	}
	r = nil
	for range 3 {
		runtime.GC()
	}
	if _, err := theyW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if req, ok := read(t, c).(*jsonrpc.Request); !ok || req.Method != "ping" {
		t.Fatalf("%#v", req)
	}
	c.Close()
	if _, err := theyW.Write([]byte("{}\n")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("writing after Close: %v, want EPIPE (a read end still open)", err)
	}
}

// TestLongLines: a line many times the reader's buffer is read whole, at
// the end of the stream without its newline too, and costs about twice
// its size in allocations (19 MB for 3.7 MB when append grew it); one over
// the bound is passed (errTooLong, "" below), and the line after it read.
func TestLongLines(t *testing.T) {
	long := `{"pad":"` + strings.Repeat("x", 4<<20) + `"}`
	for _, tc := range []struct {
		name, in string
		max      int
		want     []string
	}{
		{"one", long + "\r\n", DefaultMaxMessageBytes, []string{long}},
		{"at the end", " " + long, DefaultMaxMessageBytes, []string{long}},
		{"over the bound", long + "\n{}\n", 1 << 20, []string{"", "{}"}},
		{"short", "{}\n \n[]", 100, []string{"{}", " ", "[]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &conn{max: tc.max}
			r := bufio.NewReaderSize(strings.NewReader(tc.in), 64<<10)
			for _, want := range tc.want {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				line, err := c.readLine(r)
				runtime.ReadMemStats(&after)
				if want == "" {
					if !errors.Is(err, errTooLong) {
						t.Errorf("a line over the bound: %.40q, %v", line, err)
					}
					continue
				}
				if err != nil || string(line) != strings.TrimSpace(want) {
					t.Fatalf("read %.40q (%v), want %.40q", line, err, want)
				}
				if allocated := after.TotalAlloc - before.TotalAlloc; len(line) > 1<<20 && allocated > uint64(5*len(line)/2) {
					t.Errorf("a line of %d bytes: %d bytes allocated", len(line), allocated)
				}
			}
			if _, err := c.readLine(r); err != io.EOF {
				t.Errorf("after the last line: %v", err)
			}
		})
	}
}
