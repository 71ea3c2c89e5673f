package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Endpoint is what is known of an MCP server folio connects to, for the
// spans and metrics of its requests and of its session.
type Endpoint struct {
	// Transport is network.transport: TransportPipe for a process's
	// stdio, TransportTCP for HTTP.
	Transport string
	// Network is network.protocol.name ("http"), empty over stdio.
	Network string
	// Address and Port are server.address and server.port (Port 0:
	// none).
	Address string
	Port    int
}

// ClientTransport wraps t, a transport folio connects to the MCP server
// at e by, so that what is only known on the wire is told:
//
//   - a request written under the span StartClient made for it (the same
//     method, in the context the request is sent with) gives that span its
//     jsonrpc.request.id, and what the span does not say of the
//     connection: its mcp.session.id, and e;
//   - any other request (initialize or server/discover, tools/list, and
//     any folio's code does not trace itself) is a client span of its
//     own, from its writing to its answer, its trace context put in its
//     _meta: with the same attributes, the protocol version the
//     connection agreed on included;
//   - when the connection closes, the session's duration is recorded
//     (mcp.client.session.duration), once it had agreed on a protocol
//     version; SessionLost is its error.type when the connection ended
//     before folio closed it.
//
// A nil *Instruments gives t back.
//
// Like any wrapper of go-sdk connections (its own LoggingTransport
// included), it hides what go-sdk tells its own connection types of the
// session (an unexported method): a streamable HTTP connection, which
// then never opens the stream of a session's notices, is told of at the
// HTTP layer instead (see ClientHTTP).
func (in *Instruments) ClientTransport(t mcp.Transport, e Endpoint) mcp.Transport {
	if in == nil {
		return t
	}
	return tracedTransport{Transport: t, in: in, e: e}
}

// tracedTransport is the transport ClientTransport makes: its
// connections are tracedConns.
type tracedTransport struct {
	mcp.Transport
	in *Instruments
	e  Endpoint
}

func (t tracedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tracedConn{Connection: c, calls: newClientCalls(t.in, t.e)}, nil
}

// tracedConn is a connection of tracedTransport's: folio's, to an MCP
// server, each request it writes traced as a span until its answer is
// read. It is one of three wrappers of a go-sdk connection that read the
// messages passing, each for its own owner, and they stay apart:
// tracedConn (here) traces folio's requests to a server, and is there
// only when telemetry is on; upstream's watchedConn, under it on a
// gateway's connection, keeps what the gateway must know of an
// upstream's answers (its tools/list, an answer's size, progress);
// mcpserver's requestIDConn is on the other side, a client's connection
// to folio, and keeps the id of each request folio answers, for observe.
// They share only their shape (a request written or read, matched with
// its answer by id); what each does at each message is its own.
type tracedConn struct {
	mcp.Connection
	calls *clientCalls

	mu sync.Mutex
	// closing: folio closes the connection; lost: it ended before.
	closing, lost bool
}

// clientCalls is what is traced of one connection folio makes to an MCP
// server, wherever its messages are read: by the connection (tracedConn),
// or in its HTTP exchanges (clientHTTP).
type clientCalls struct {
	in      *Instruments
	e       Endpoint
	session *Session

	mu sync.Mutex
	// calls are the requests the connection made spans of, until
	// answered; nil once the connection closed.
	calls map[jsonrpc.ID]*call
	// version is the protocol version the connection agreed on.
	version string
}

func newClientCalls(in *Instruments, e Endpoint) *clientCalls {
	op := Operation{Transport: e.Transport, Network: e.Network, Address: e.Address, Port: e.Port}
	return &clientCalls{in: in, e: e, session: in.StartSession(op, false), calls: map[jsonrpc.ID]*call{}}
}

// call is a request whose span the connection made.
type call struct {
	ctx    context.Context
	span   *Span
	method string
	// version is the protocol version a handshake asked for.
	version string
	// meta is the trace context put in the request's _meta.
	meta map[string]any
}

// Methods of the handshake, and of a cancellation.
const (
	methodInitialize = "initialize"
	methodDiscover   = "server/discover"
	methodCancelled  = "notifications/cancelled"
)

func (c *tracedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
		return c.Connection.Write(ctx, msg)
	case !req.IsCall():
		if req.Method == methodCancelled {
			c.calls.cancelled(req.Params)
		}
		return c.Connection.Write(ctx, msg)
	}
	session := c.Connection.SessionID()
	if c.calls.claim(ctx, req.Method, IDText(req.ID), session) {
		return c.Connection.Write(ctx, msg)
	}
	c.calls.start(ctx, req, session)
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.calls.finish(req.ID, nil, err)
	}
	return err
}

// claim gives the span StartClient left in ctx what the wire tells of
// the request of method written in ctx, whose id is id, in the session
// named (if any): see Span.claim. It reports false when ctx holds no span
// of that request's.
func (c *clientCalls) claim(ctx context.Context, method, id, session string) bool {
	s, _ := ctx.Value(clientSpanKey{}).(*Span)
	return s != nil && s.claim(method, id, session, c.e)
}

// claim gives s, the span of a request of method, what the wire tells:
// the request's id, the session's and the connection's endpoint, where s
// lacks them. It reports false when s is not that request's span: another
// method's, or one whose request, another id's, was written already (the
// same request sent again, as an HTTP client does after authorizing, is
// still s's).
func (s *Span) claim(method, id, session string, e Endpoint) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.server || s.op.Method != method {
		return false
	}
	if s.op.RequestID != "" {
		return s.op.RequestID == cut(id)
	}
	op := &s.op
	op.RequestID = cut(id)
	// Only what the span lacked is added to it.
	attrs := make([]attribute.KeyValue, 1, 6) // room for all: one allocation
	attrs[0] = semconv.JSONRPCRequestID(op.RequestID)
	if op.SessionID == "" && session != "" {
		op.SessionID = cut(session)
		attrs = append(attrs, semconv.McpSessionID(op.SessionID))
	}
	if op.Transport == "" && e.Transport != "" {
		op.Transport = e.Transport
		attrs = append(attrs, semconv.NetworkTransportKey.String(op.Transport))
	}
	if op.Network == "" && op.Address == "" {
		op.Network, op.Address, op.Port = e.Network, cut(e.Address), e.Port
		if op.Network != "" {
			attrs = append(attrs, semconv.NetworkProtocolName(op.Network))
		}
		if op.Address != "" {
			attrs = append(attrs, semconv.ServerAddress(op.Address))
			if op.Port > 0 {
				attrs = append(attrs, semconv.ServerPort(op.Port))
			}
		}
	}
	if s.span != nil {
		s.span.SetAttributes(attrs...)
	}
	return true
}

// start makes the span of req, sent in ctx in the session named (if
// any), and puts its trace context in req's _meta: traced reports it
// did.
func (c *clientCalls) start(ctx context.Context, req *jsonrpc.Request, session string) (traced bool) {
	var p struct {
		Name            string         `json:"name"`
		URI             string         `json:"uri"`
		ProtocolVersion string         `json:"protocolVersion"`
		Meta            map[string]any `json:"_meta"`
	}
	if len(req.Params) > 0 {
		json.Unmarshal(req.Params, &p)
	}
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	op := Operation{Method: req.Method, RequestID: IDText(req.ID), ProtocolVersion: version, SessionID: session,
		Transport: c.e.Transport, Network: c.e.Network, Address: c.e.Address, Port: c.e.Port, Meta: map[string]any{}}
	asked := ""
	switch req.Method {
	case methodInitialize:
		asked = p.ProtocolVersion
	case methodDiscover:
		asked, _ = p.Meta[mcp.MetaKeyProtocolVersion].(string)
	case "tools/call":
		op.Tool = p.Name
	case "prompts/get":
		op.Prompt = p.Name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		op.ResourceURI = p.URI
	}
	if asked != "" {
		op.ProtocolVersion = asked
	}
	meta := op.Meta
	sctx, span := c.in.StartClient(ctx, op)
	if len(meta) > 0 {
		if params, err := withMeta(req.Params, meta); err == nil {
			req.Params, traced = params, true
		}
	}
	c.mu.Lock()
	if c.calls != nil {
		c.calls[req.ID] = &call{ctx: sctx, span: span, method: req.Method, version: asked, meta: meta}
		span = nil
	}
	c.mu.Unlock()
	span.End(sctx, false, mcp.ErrConnectionClosed) // closed already: never answered
	return traced
}

// withMeta is params (a JSON object, or nothing) with meta's members in
// its _meta, beside those it has.
func withMeta(params json.RawMessage, meta map[string]any) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &obj); err != nil || obj == nil {
			return nil, errors.New("params are not an object")
		}
	}
	m := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return nil, errors.New("_meta is not an object")
		}
	}
	for k, v := range meta {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = b
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = b
	return json.Marshal(obj)
}

// finish ends the span of the request id, if the connection made one:
// res is its answer's result, err its error.
func (c *clientCalls) finish(id jsonrpc.ID, res json.RawMessage, err error) {
	c.mu.Lock()
	call := c.calls[id]
	delete(c.calls, id)
	c.mu.Unlock()
	if call == nil {
		return
	}
	toolError := false
	if err == nil {
		var r struct {
			ProtocolVersion   string   `json:"protocolVersion"`
			SupportedVersions []string `json:"supportedVersions"`
			IsError           bool     `json:"isError"`
		}
		switch call.method {
		case methodInitialize, methodDiscover, "tools/call":
			json.Unmarshal(res, &r)
		}
		agreed := r.ProtocolVersion
		if call.method == methodDiscover {
			agreed = ""
			for _, v := range r.SupportedVersions {
				if v == call.version {
					agreed = v
				}
			}
		}
		if agreed != "" {
			c.mu.Lock()
			c.version = agreed
			c.mu.Unlock()
			call.span.SetProtocolVersion(agreed)
			c.session.SetProtocolVersion(agreed)
		}
		toolError = r.IsError
	}
	call.span.End(call.ctx, toolError, err)
}

// cancelled ends the span of the request a cancellation names: its
// answer will not come.
func (c *clientCalls) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
		c.finish(id, nil, context.Canceled)
	}
}

// pending reports whether a request the connection made a span of is
// not answered yet.
func (c *clientCalls) pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls) > 0
}

// close ends the spans of the requests not answered (the connection
// closed under them) and, once the connection had agreed on a protocol
// version, the session: lost tells it ended before folio closed it.
func (c *clientCalls) close(lost bool) {
	c.mu.Lock()
	calls, agreed := c.calls, c.version != ""
	c.calls = nil
	c.mu.Unlock()
	for _, call := range calls {
		call.span.End(call.ctx, false, mcp.ErrConnectionClosed)
	}
	if agreed {
		var why error
		if lost {
			why = ErrSessionLost
		}
		c.session.End(context.Background(), why)
	}
}

func (c *tracedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.mu.Lock()
		c.lost = c.lost || !c.closing
		c.mu.Unlock()
		return msg, err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.calls.finish(resp.ID, resp.Result, resp.Error)
	}
	return msg, nil
}

func (c *tracedConn) Close() error {
	c.mu.Lock()
	c.closing = true
	lost := c.lost
	c.mu.Unlock()
	err := c.Connection.Close()
	c.calls.close(lost)
	return err
}
