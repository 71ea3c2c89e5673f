package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool may declare that it can only be called as a task (MCP 2025-11-25:
// "execution": {"taskSupport": "required"}). go-sdk v1.8.0 neither sends
// task-augmented calls nor keeps the execution field of a tool it lists,
// so folio, which calls through it, reads the field off the wire as an
// upstream's tool list passes (taskNotes), and leaves such tools out
// rather than offer tools that fail on every call. A tool whose tasks are
// optional is called plainly, and offered without the field: folio does
// not offer tasks to its own clients.

// taskNotes are what the tool lists of one upstream said of tasks: the
// tools that can only be called as tasks, as the last list that named
// each tool said.
type taskNotes struct {
	mu       sync.Mutex
	required map[string]bool
}

// toolsResult is what a tools/list answer says of tasks.
type toolsResult struct {
	Tools []struct {
		Name      string `json:"name"`
		Execution *struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	} `json:"tools"`
}

// seeResult takes note of the result of a tools/list answer.
func (n *taskNotes) seeResult(raw []byte) {
	if !n.worthReading(raw) {
		return
	}
	var r toolsResult
	if json.Unmarshal(raw, &r) == nil {
		n.note(r)
	}
}

// seeMessage takes note of a whole JSON-RPC message that answers
// tools/list.
func (n *taskNotes) seeMessage(raw []byte) {
	if !n.worthReading(raw) {
		return
	}
	var m struct {
		Result *toolsResult `json:"result"`
	}
	if json.Unmarshal(raw, &m) == nil && m.Result != nil {
		n.note(*m.Result)
	}
}

// worthReading reports whether raw can change the notes: it speaks of
// tasks, or the notes name tools that it may now list without.
func (n *taskNotes) worthReading(raw []byte) bool {
	if bytes.Contains(raw, []byte(`"taskSupport"`)) {
		return true
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.required) > 0
}

func (n *taskNotes) note(r toolsResult) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, t := range r.Tools {
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			// Only the first MaxTools of an upstream's tools are
			// offered: no more need noting.
			if n.required == nil {
				n.required = map[string]bool{}
			}
			if len(n.required) <= MaxTools {
				n.required[t.Name] = true
			}
		} else {
			delete(n.required, t.Name)
		}
	}
}

// taskRequired returns the names among tools that can only be called as
// tasks.
func (n *taskNotes) taskRequired(tools []*mcp.Tool) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var names []string
	for _, t := range tools {
		if t != nil && n.required[t.Name] {
			names = append(names, t.Name)
		}
	}
	return names
}

// noteTasks is a connection whose tools/list answers are noted.
type noteTasks struct {
	mcp.Connection
	notes *taskNotes
	mu    sync.Mutex
	lists map[jsonrpc.ID]bool // tools/list requests not yet answered
}

func (c *noteTasks) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.IsCall() {
		c.mu.Lock()
		c.lists[req.ID] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *noteTasks) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		list := c.lists[resp.ID]
		delete(c.lists, resp.ID)
		c.mu.Unlock()
		if list && resp.Error == nil {
			c.notes.seeResult(resp.Result)
		}
	}
	return msg, err
}

// listsTools reports whether r, a POST of streamable HTTP, asks tools/list.
// go-sdk writes a request's method within its first bytes.
func listsTools(r *http.Request) bool {
	if r.Method != http.MethodPost || r.GetBody == nil {
		return false
	}
	body, err := r.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	head := make([]byte, 128)
	n, _ := io.ReadFull(body, head)
	return bytes.Contains(head[:n], []byte(`"method":"tools/list"`))
}

// noteBody passes an answer's body on and, at its end, has the notes read
// the message it held: the whole body when it is JSON, each event's data
// when it is an event stream. The body is already bounded.
type noteBody struct {
	io.ReadCloser
	notes    *taskNotes
	stream   bool
	buf      bytes.Buffer
	searched int
	done     bool
}

func (b *noteBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.buf.Write(p[:n])
	if b.stream {
		b.events()
	}
	if err == io.EOF && !b.done {
		b.done = true
		if !b.stream {
			b.notes.seeMessage(b.buf.Bytes())
		}
		b.buf.Reset()
	}
	return n, err
}

// events has the notes read each complete event in the buffer, and keeps
// the rest (searched of it already looked through for an event's end).
func (b *noteBody) events() {
	for {
		data := b.buf.Bytes()
		from := max(b.searched-3, 0)
		end, sep := eventEnd(data[from:])
		if end < 0 {
			b.searched = len(data)
			return
		}
		end += from
		var msg bytes.Buffer
		for line := range strings.Lines(string(data[:end])) {
			line = strings.TrimRight(line, "\r\n")
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				msg.WriteString(strings.TrimPrefix(v, " "))
				msg.WriteByte('\n')
			}
		}
		if msg.Len() > 0 {
			b.notes.seeMessage(msg.Bytes())
		}
		b.buf.Next(end + sep)
		b.searched = 0
	}
}

// eventEnd finds the blank line that ends an event in data: where it
// starts and how long it is, or -1.
func eventEnd(data []byte) (int, int) {
	for i := 0; i < len(data); i++ {
		if data[i] != '\n' {
			continue
		}
		rest := data[i+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("\n")):
			return i, 2
		case bytes.HasPrefix(rest, []byte("\r\n")):
			return i, 3
		}
	}
	return -1, 0
}
