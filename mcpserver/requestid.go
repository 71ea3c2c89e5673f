package mcpserver

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/telemetry"
)

// What the MCP conventions ask of a request's span that go-sdk's request
// does not say, folio reads off the wire, for observe: the request's
// JSON-RPC id (go-sdk keeps it in a context key of its own), and over
// HTTP the HTTP version and the client's address. Over HTTP, guardHTTP,
// which reads each POST's body whole, has noteWire leave them in the
// request's header, which go-sdk hands on with the message; over any
// other transport, the connection (see wired) gives each request it reads
// a RequestExtra by which observe finds its id. Without telemetry, none
// of it is done.

// wireHeader carries, from noteWire to observe, what an HTTP request told
// of the message it carries: its HTTP version, the client's address and
// the message's id (none for a notification), a space between each.
// Whatever a client sends in it is replaced.
const wireHeader = "Folio-Wire"

// noteWire leaves in r's header what observe reads of the message that
// body, r's body, is (see wireHeader).
func (s *Server) noteWire(r *http.Request, body []byte) {
	if s.cfg.Telemetry == nil {
		return
	}
	id, _ := telemetry.RequestID(body)
	r.Header[wireHeader] = []string{httpVersion(r) + " " + r.RemoteAddr + " " + id}
}

// httpVersion is the version of HTTP r came by, as
// network.protocol.version has it ("1.1", "2").
func httpVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "1.0"
	case r.ProtoMinor == 0:
		return strconv.Itoa(r.ProtoMajor)
	}
	return strconv.Itoa(r.ProtoMajor) + "." + strconv.Itoa(r.ProtoMinor)
}

// wireOf gives op what the wire told of the request extra came with: over
// HTTP, what noteWire left; over a connection wired made, its id. The
// client's address is the peer of folio's listener (a proxy, behind one:
// folio trusts no forwarding header).
func (s *Server) wireOf(extra *mcp.RequestExtra, op *telemetry.Operation) {
	if extra == nil {
		return
	}
	if extra.Header == nil {
		op.RequestID = s.ids.of(extra)
		return
	}
	note := extra.Header.Get(wireHeader)
	if note == "" {
		return
	}
	version, rest, _ := strings.Cut(note, " ")
	addr, id, _ := strings.Cut(rest, " ")
	op.Network, op.NetworkVersion, op.RequestID = "http", version, id
	if host, port, err := net.SplitHostPort(addr); err == nil {
		op.Address = host
		op.Port, _ = strconv.Atoi(port)
	}
}

// requestIDs are the ids of the requests read by wired connections and
// not yet answered, by the RequestExtra each was given.
type requestIDs struct {
	mu sync.Mutex
	by map[*mcp.RequestExtra]string
}

// of is the id of the request extra came with, "" if none.
func (ids *requestIDs) of(extra *mcp.RequestExtra) string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	return ids.by[extra]
}

// wired is t, with each request (not notification) its connections read
// given a RequestExtra of its own under which its id is kept until its
// answer is written: when telemetry is on and t's requests come without
// one (stdio).
func (s *Server) wired(t mcp.Transport) mcp.Transport {
	if s.cfg.Telemetry == nil {
		return t
	}
	return requestIDTransport{Transport: t, ids: &s.ids}
}

// requestIDTransport is a transport whose connections are
// requestIDConns.
type requestIDTransport struct {
	mcp.Transport
	ids *requestIDs
}

func (t requestIDTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &requestIDConn{Connection: c, ids: t.ids, open: map[jsonrpc.ID]*mcp.RequestExtra{}}, nil
}

// requestIDConn is a connection of requestIDTransport's: a client's to
// folio, that keeps the id of each request read until folio writes its
// answer. Of the three wrappers of go-sdk connections that read the
// messages passing, it is the one on the server's side; telemetry's
// tracedConn and upstream's watchedConn wrap folio's connections to
// upstream servers, for other ends (see tracedConn).
type requestIDConn struct {
	mcp.Connection
	ids  *requestIDs
	mu   sync.Mutex
	open map[jsonrpc.ID]*mcp.RequestExtra // the requests not yet answered
}

func (c *requestIDConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() && req.Extra == nil {
		extra := &mcp.RequestExtra{}
		req.Extra = extra
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.open[req.ID] != nil {
			// An id in use: go-sdk refuses the request, with an
			// answer that has no id; the one in flight keeps its own.
			return msg, err
		}
		c.open[req.ID] = extra
		c.ids.mu.Lock()
		if c.ids.by == nil {
			c.ids.by = map[*mcp.RequestExtra]string{}
		}
		c.ids.by[extra] = telemetry.IDText(req.ID)
		c.ids.mu.Unlock()
	}
	return msg, err
}

func (c *requestIDConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.mu.Lock()
		if extra := c.open[resp.ID]; extra != nil {
			delete(c.open, resp.ID)
			c.forget(extra)
		}
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *requestIDConn) Close() error {
	c.mu.Lock()
	for id, extra := range c.open {
		delete(c.open, id)
		c.forget(extra)
	}
	c.mu.Unlock()
	return c.Connection.Close()
}

// forget drops extra's id.
func (c *requestIDConn) forget(extra *mcp.RequestExtra) {
	c.ids.mu.Lock()
	delete(c.ids.by, extra)
	c.ids.mu.Unlock()
}
