package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's client keeps less of what an upstream sends than folio passes
// on: a tool definition becomes an mcp.Tool, which has no field for
// execution (MCP 2025-11-25) or any later one and sorts a schema's keys,
// and a notification is handed to a goroutine of its own, so that the
// answer read after it may reach its call first. folio reads both off the
// wire as the messages pass: every connection to an upstream is watched.

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
// kept, until a discovery takes them.
func (w *watch) sawTools(result json.RawMessage) {
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
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
// the cache), or nil; it is given once.
func (w *watch) definition(name string) json.RawMessage {
	w.mu.Lock()
	raw := w.defs[name]
	delete(w.defs, name)
	w.mu.Unlock()
	var b bytes.Buffer
	if raw == nil || json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// watchedTransport is a transport whose connections are watched by w.
type watchedTransport struct {
	mcp.Transport
	w *watch
}

func (t watchedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedConn{Connection: c, w: t.w, lists: map[jsonrpc.ID]bool{}}, nil
}

// watchedConn is a connection to an upstream, watched as its messages
// pass.
type watchedConn struct {
	mcp.Connection
	w     *watch
	mu    sync.Mutex
	lists map[jsonrpc.ID]bool // tools/list requests not yet answered
}

func (c *watchedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.IsCall() {
		c.mu.Lock()
		c.lists[req.ID] = true
		c.mu.Unlock()
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
		list := c.lists[m.ID]
		delete(c.lists, m.ID)
		c.mu.Unlock()
		if list && m.Error == nil {
			c.w.sawTools(m.Result)
		}
	case *jsonrpc.Request:
		if m.Method == progressMethod && !m.IsCall() && c.w.progress != nil && bytes.Contains(m.Params, []byte(progressPrefix)) {
			var p struct {
				Token string `json:"progressToken"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				c.w.progress(p.Token)
			}
		}
	}
	return msg, nil
}
