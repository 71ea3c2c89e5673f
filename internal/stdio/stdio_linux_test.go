package stdio

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/sys/unix"
)

// outputs are the kinds of standard output a client gives a server that
// tell what is not yet read: a pipe (as Go's os/exec gives), and a Unix
// socket pair (as Node.js gives): the server's end and the client's.
var outputs = []struct {
	name string
	open func(t *testing.T) (server, client *os.File)
}{
	{"pipe", func(t *testing.T) (*os.File, *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return w, r
	}},
	{"socket", func(t *testing.T) (*os.File, *os.File) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(fds[0]), "server"), os.NewFile(uintptr(fds[1]), "client")
	}},
}

// TestUnreadOf: of a pipe and of a Unix socket, unreadOf tells that bytes
// written are not yet read, and none once they are; of a regular file and
// of a device, it cannot tell.
func TestUnreadOf(t *testing.T) {
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			w, r := o.open(t)
			defer w.Close()
			defer r.Close()
			unread := unreadOf(w)
			if unread == nil {
				t.Fatal("cannot tell")
			}
			if n, ok := unread(); !ok || n != 0 {
				t.Fatalf("nothing written: %d unread (%v)", n, ok)
			}
			w.Write([]byte("hello\n"))
			if n, ok := unread(); !ok || n < len("hello\n") {
				t.Fatalf("6 bytes written: %d unread (%v)", n, ok)
			}
			r.Read(make([]byte, 3))
			if n, ok := unread(); !ok || n == 0 {
				t.Fatalf("3 of 6 bytes read: %d unread (%v)", n, ok)
			}
			r.Read(make([]byte, 3))
			if n, ok := unread(); !ok || n != 0 {
				t.Fatalf("all read: %d unread (%v)", n, ok)
			}
		})
	}
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, f := range []*os.File{file, null} {
		if unreadOf(f) != nil {
			t.Errorf("%s: tells what is unread", f.Name())
		}
	}
}

// TestAnswerAfterNotice: over a pipe and a Unix socket, an answer written
// after a notification is written once the client has read the
// notification, not before (see Server); an answer after an answer is
// written at once; and one whose notification the client does not read
// is written after readWait.
func TestAnswerAfterNotice(t *testing.T) {
	notice := &jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{"progressToken":1,"progress":1}`)}
	answer := func(id int64) *jsonrpc.Response {
		i, _ := jsonrpc.MakeID(float64(id))
		return &jsonrpc.Response{ID: i, Result: []byte(`{}`)}
	}
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			w, r := o.open(t)
			defer r.Close()
			// Read by a goroutine: no second File of a descriptor of
			// the test's (see pollable).
			in, theyW := io.Pipe()
			defer theyW.Close()
			c, err := Server(in, w).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			defer w.Close()
			ctx := context.Background()
			if err := c.Write(ctx, notice); err != nil {
				t.Fatal(err)
			}
			written := make(chan error, 1)
			go func() { written <- c.Write(ctx, answer(1)) }()
			select {
			case err := <-written:
				t.Fatalf("the answer written before its notice was read (%v)", err)
			case <-time.After(100 * time.Millisecond):
			}
			lines := bufio.NewReader(r)
			if l, _ := lines.ReadString('\n'); !strings.Contains(l, "notifications/progress") {
				t.Fatalf("read first %q", l)
			}
			if err := <-written; err != nil {
				t.Fatal(err)
			}
			if l, _ := lines.ReadString('\n'); !strings.Contains(l, `"id":1`) {
				t.Fatalf("read second %q", l)
			}

			start := time.Now()
			if err := c.Write(ctx, answer(2)); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > readWait/2 {
				t.Errorf("an answer after an answer written in %v", took)
			}
			if err := c.Write(ctx, notice); err != nil {
				t.Fatal(err)
			}
			start = time.Now()
			if err := c.Write(ctx, answer(3)); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took < readWait*9/10 || took > 5*readWait {
				t.Errorf("an answer after a notice not read written in %v, want about %v", took, readWait)
			}
		})
	}
}
