package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/internal/sse"
)

// go-sdk's client keeps less of what an upstream sends than folio passes
// on: a tool definition becomes an mcp.Tool, which has no field for
// execution (MCP 2025-11-25) or any later one and sorts a schema's keys,
// and a notification is handed to a goroutine of its own, so that the
// answer read after it may reach its call first. folio reads both off the
// wire: every connection to an upstream is watched, over stdio and SSE as
// its messages pass (watchedConn), over streamable HTTP as the bodies of
// its answers are read (watchBody).

// watch is what folio reads off the connections to one upstream.
type watch struct {
	// progress, when not nil, is told the token of each progress
	// notification as it is read, before go-sdk hands it on.
	progress func(token string)

	mu sync.Mutex
	// defs are the tools of the latest tools/list answer, as they came,
	// by name.
	defs map[string]json.RawMessage
}

// sawTools takes the definitions of a tools/list result in place of the
// last ones: at most one answer's (each bounded by MaxMessageBytes) is
// kept. They are not taken away when a discovery reads them: two
// discoveries of one upstream may overlap (one at start-up, one its
// list_changed asked for), and the one whose answer was read first must
// find its definitions still there, not fall back to go-sdk's form of the
// same tools and so count an unchanged upstream as changed.
func (w *watch) sawTools(result json.RawMessage) {
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil || r.Tools == nil {
		return
	}
	defs := make(map[string]json.RawMessage, len(r.Tools))
	for _, raw := range r.Tools {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &head) == nil {
			if _, twice := defs[head.Name]; !twice {
				defs[head.Name] = raw
			}
		}
	}
	w.mu.Lock()
	w.defs = defs
	w.mu.Unlock()
}

// definition is the definition of the tool named, as the latest tools/list
// answer gave it (compact, so that it is the same after a round through
// the cache), or nil.
func (w *watch) definition(name string) json.RawMessage {
	w.mu.Lock()
	raw := w.defs[name]
	w.mu.Unlock()
	var b bytes.Buffer
	if raw == nil || json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// watchedTransport is a transport whose connections are watched by w:
// over stdio and the old SSE transport. A streamable HTTP connection is
// not wrapped, as go-sdk tells its own type of connection of the session
// (an unexported method: it then opens the stream the server's notices
// come on), which a wrapper would hide; its answers are watched as they
// are read (see watchBody).
type watchedTransport struct {
	mcp.Transport
	w *watch
}

func (t watchedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedConn{Connection: c, w: t.w, lists: map[jsonrpc.ID]bool{}, sizes: map[jsonrpc.ID]*atomic.Int64{}}, nil
}

// watchedConn is a connection to an upstream, watched as its messages
// pass, for the gateway: the tools a tools/list answer gives, the size of
// an answer a call waits for, and progress notifications. It is not
// telemetry's tracedConn, which wraps it when telemetry is on and traces
// the same requests as spans, nor mcpserver's requestIDConn, on a
// client's connection to folio (see tracedConn for why the three stay
// apart).
type watchedConn struct {
	mcp.Connection
	w     *watch
	mu    sync.Mutex
	lists map[jsonrpc.ID]bool // tools/list requests not yet answered
	// sizes are where the requests not yet answered that were written
	// with an answerSizeKey in their context want the size of their
	// answer (given up, once negative: see Call).
	sizes map[jsonrpc.ID]*atomic.Int64
}

// maxSizesKept is how many requests sizes holds before those given up
// are dropped.
const maxSizesKept = 64

// answerSizeKey is where Call leaves, in the context its request is
// written in, an *atomic.Int64 for the size of the answer's result as it
// comes on the wire: so folio bounds what an upstream answers by what it
// sent, without encoding the answer again.
type answerSizeKey struct{}

func (c *watchedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		size, _ := ctx.Value(answerSizeKey{}).(*atomic.Int64)
		if req.Method == "tools/list" || size != nil {
			c.mu.Lock()
			if req.Method == "tools/list" {
				if len(c.lists) >= maxSizesKept {
					// Lists never answered.
					clear(c.lists)
				}
				c.lists[req.ID] = true
			}
			if size != nil {
				if len(c.sizes) >= maxSizesKept {
					// Calls cancelled, whose answers never came.
					maps.DeleteFunc(c.sizes, func(_ jsonrpc.ID, v *atomic.Int64) bool { return v.Load() < 0 })
				}
				c.sizes[req.ID] = size
			}
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

// progressMethod is the method of a progress notification.
const progressMethod = "notifications/progress"

func (c *watchedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		c.mu.Lock()
		list, size := c.lists[m.ID], c.sizes[m.ID]
		delete(c.lists, m.ID)
		delete(c.sizes, m.ID)
		c.mu.Unlock()
		if size != nil {
			size.Store(int64(len(m.Result)))
		}
		if list && m.Error == nil {
			c.w.sawTools(m.Result)
		}
	case *jsonrpc.Request:
		if m.Method == progressMethod && !m.IsCall() {
			c.w.sawProgress(m.Params)
		}
	}
	return msg, nil
}

// sawProgress tells w.progress of the token of a progress notification's
// params, when it is one of folio's and go-sdk will hand the notification
// on: its keys as go-sdk reads them (exactly), each of the type go-sdk
// decodes it to. A notice counted that go-sdk drops would hold its call's
// answer (see progressRoute).
func (w *watch) sawProgress(params json.RawMessage) {
	if w.progress == nil || !bytes.Contains(params, []byte(progressPrefix)) {
		return
	}
	params = jsonvalue.Trim(params)
	if len(params) == 0 || params[0] != '{' || !json.Valid(params) {
		return
	}
	members, err := jsonvalue.Elements(params)
	if err != nil {
		return
	}
	token := ""
	for _, m := range members {
		v := params[m.Start:m.End]
		switch m.Key {
		case "progressToken":
			if json.Unmarshal(v, &token) != nil {
				return
			}
		case "progress", "total":
			var f float64
			if json.Unmarshal(v, &f) != nil {
				return
			}
		case "message":
			var s string
			if json.Unmarshal(v, &s) != nil {
				return
			}
		}
	}
	if strings.HasPrefix(token, progressPrefix) {
		w.progress(token)
	}
}

// sawMessage takes note of one JSON-RPC message read from a streamable
// HTTP answer: a progress notification, or the answer to tools/list when
// list (the request the answer is to asked for it).
func (w *watch) sawMessage(raw []byte, list bool) {
	if !list && !bytes.Contains(raw, []byte(progressMethod)) {
		return
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	switch {
	case m.Method == progressMethod:
		w.sawProgress(m.Params)
	case list && m.Result != nil:
		w.sawTools(m.Result)
	}
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
	_, method, found := bytes.Cut(head[:n], []byte(`"method":`))
	return found && bytes.HasPrefix(method, []byte(`"tools/list"`))
}

// watchBody passes an answer's body on and has w take note of each
// message in it as the message's last byte passes, before go-sdk reads it:
// the whole body when it is JSON, each message event's data when it is an
// event stream. The body is already bounded (an event by MaxMessageBytes,
// as go-sdk bounds it; a JSON body by boundedBody).
type watchBody struct {
	io.ReadCloser
	w      *watch
	list   bool          // the request asked for tools/list
	size   *atomic.Int64 // for the size of the answer's result, or nil
	stream bool
	events sse.Splitter // of a stream
	buf    bytes.Buffer // of a JSON body
	done   bool
}

func (b *watchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case b.stream:
		b.events.Write(p[:n], MaxMessageBytes, func(e sse.Event) {
			if e.Message() { // go-sdk reads no other event
				b.saw(e.Data)
			}
		})
	case !b.done:
		b.buf.Write(p[:n])
		if err == io.EOF {
			b.done = true
			b.saw(b.buf.Bytes())
			b.buf = bytes.Buffer{}
		}
	}
	return n, err
}

// saw has w take note of a message, and size of its result when it is
// the answer.
func (b *watchBody) saw(msg []byte) {
	b.w.sawMessage(msg, b.list)
	if b.size == nil {
		return
	}
	var m struct {
		Method *string          `json:"method"`
		Result *json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Method == nil && m.Result != nil {
		b.size.Store(int64(len(*m.Result)))
	}
}
