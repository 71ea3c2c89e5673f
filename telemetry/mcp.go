package telemetry

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
)

// scope is the instrumentation scope of folio's spans and metrics.
const scope = "github.com/folio-mcp/folio"

// Transports, as network.transport names them.
const (
	TransportPipe = "pipe" // stdio
	TransportTCP  = "tcp"  // Streamable HTTP
)

// ToolError is the error.type of a tool call answered with isError, as
// the MCP conventions have it.
const ToolError = "tool_error"

// Instruments make the spans and the operation-duration metrics of MCP
// requests, as OpenTelemetry's MCP semantic conventions have them
// (semconv v1.41.0, the last release that holds them before they moved
// to the GenAI conventions). A nil *Instruments is off: it makes nothing.
type Instruments struct {
	tracer trace.Tracer // nil: no spans
	meter  metric.Meter // nil: no metrics
	server mcpconv.ServerOperationDuration
	client mcpconv.ClientOperationDuration
	// serverSession and clientSession are the durations of sessions.
	serverSession mcpconv.ServerSessionDuration
	clientSession mcpconv.ClientSessionDuration
}

// durationBuckets are the bucket boundaries the MCP conventions advise
// for every MCP duration, operations' and sessions' (seconds).
var durationBuckets = metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)

// Instruments are t's MCP instruments, nil when traces and metrics are
// both off.
func (t *Telemetry) Instruments() (*Instruments, error) {
	if t == nil || (t.Tracer == nil && t.Meter == nil) {
		return nil, nil
	}
	in := &Instruments{}
	if t.Tracer != nil {
		in.tracer = t.Tracer.Tracer(scope)
	}
	if t.Meter != nil {
		in.meter = t.Meter.Meter(scope)
		var err error
		if in.server, err = mcpconv.NewServerOperationDuration(in.meter, durationBuckets); err != nil {
			return nil, err
		}
		if in.client, err = mcpconv.NewClientOperationDuration(in.meter, durationBuckets); err != nil {
			return nil, err
		}
		if in.serverSession, err = mcpconv.NewServerSessionDuration(in.meter, durationBuckets); err != nil {
			return nil, err
		}
		if in.clientSession, err = mcpconv.NewClientSessionDuration(in.meter, durationBuckets); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Meter is the meter folio's own metrics are made with, nil when metrics
// are off.
func (in *Instruments) Meter() metric.Meter {
	if in == nil {
		return nil
	}
	return in.meter
}

// Operation is one MCP request, as its span and metrics tell it.
type Operation struct {
	// Method is mcp.method.name; Tool (gen_ai.tool.name) or Prompt
	// (gen_ai.prompt.name) the target it names, when it names one.
	Method, Tool, Prompt string
	// ResourceURI is mcp.resource.uri, of a request about a resource.
	ResourceURI string
	// ProtocolVersion, SessionID and Transport: mcp.protocol.version,
	// mcp.session.id and network.transport, when known.
	ProtocolVersion, SessionID, Transport string
	// RequestID is jsonrpc.request.id: the request's id as its text (a
	// string's value, a number's digits), empty for a notification. It is
	// on the span only.
	RequestID string
	// Network and NetworkVersion are network.protocol.name and
	// network.protocol.version: the protocol that carried the request
	// ("http", "1.1"), empty over stdio.
	Network, NetworkVersion string
	// Address and Port are the peer's: client.address and client.port
	// of a request received (on its span only), server.address and
	// server.port of one sent (on its metric too). Port 0 is none.
	Address string
	Port    int
	// Meta is the request's params._meta: where a received request's
	// trace context comes from (traceparent, tracestate), and where a
	// sent one's goes.
	Meta map[string]any
	// Unknown says the tool or prompt named is none the server offers: a
	// name any client can make up, which the span name and the metrics
	// leave out (each would be a series of its own), and the span keeps,
	// cut to MaxAttributeLen.
	Unknown bool
}

// MaxAttributeLen bounds the string attributes taken from a request
// (names, URIs): they are other people's input.
const MaxAttributeLen = 256

// Other is what an unknown method, tool or prompt is recorded as.
const Other = "_OTHER"

// knownMethod reports whether m is an MCP method, which spans and metrics
// name as it is; any other is Other.
func knownMethod(m string) bool {
	switch m {
	case "initialize", "ping", "server/discover", "subscriptions/listen",
		"tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list",
		"resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
		"completion/complete", "logging/setLevel", "tasks/get", "tasks/list", "tasks/result", "tasks/cancel",
		"notifications/initialized", "notifications/cancelled", "notifications/progress",
		"notifications/roots/list_changed", "roots/list", "sampling/createMessage", "elicitation/create":
		return true
	}
	return false
}

// knownVersion reports whether v is a version of MCP.
func knownVersion(v string) bool {
	switch v {
	case "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28":
		return true
	}
	return false
}

// cut is s cut to MaxAttributeLen bytes, at a code point.
func cut(s string) string {
	if len(s) <= MaxAttributeLen {
		return s
	}
	n := MaxAttributeLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// bounded is op with what a client can make up bounded: an unknown
// method is Other, and names and URIs are cut.
func (op Operation) bounded() Operation {
	if !knownMethod(op.Method) {
		op.Method = Other
	}
	op.Tool, op.Prompt, op.ResourceURI, op.SessionID, op.ProtocolVersion = cut(op.Tool), cut(op.Prompt), cut(op.ResourceURI), cut(op.SessionID), cut(op.ProtocolVersion)
	op.RequestID, op.Address = cut(op.RequestID), cut(op.Address)
	op.Meta = nil // read by the start of a span, kept by none
	return op
}

// Span is an operation under way: End ends it, or EndAfter with the
// duration its caller measured. What is learnt of it after it starts
// (its id, as its request is written; the protocol version an
// initialize agrees on) is added before it ends, by one goroutine at a
// time.
type Span struct {
	in     *Instruments
	span   trace.Span
	start  time.Time
	server bool

	mu sync.Mutex
	op Operation // bounded
}

// name is the span's: "{mcp.method.name} {target}", the target a tool's
// or a prompt's name (a resource's URI is left out, as the conventions
// advise, for its cardinality).
func (op Operation) name() string {
	switch {
	case op.Unknown:
		return op.Method
	case op.Tool != "":
		return op.Method + " " + op.Tool
	case op.Prompt != "":
		return op.Method + " " + op.Prompt
	}
	return op.Method
}

// attributes are op's, the metric's and the span's; server tells a
// received request's (its peer is the client) from a sent one's.
func (op Operation) attributes(server bool) (metricAttrs, spanAttrs []attribute.KeyValue) {
	return op.attrs(server, true), op.attrs(server, false)
}

// attrs are op's attributes: its metric's (mcp.method.name left to the
// metric's Record), or its span's.
func (op Operation) attrs(server, metric bool) []attribute.KeyValue {
	// Room for all there may be: one allocation, not a slice grown.
	room := 12
	if metric {
		room = 8
	}
	a := attrList{list: make([]attribute.KeyValue, 0, room), metric: metric}
	a.add(semconv.McpMethodNameKey.String(op.Method), true)
	a.target(&op)
	if op.ResourceURI != "" {
		a.add(semconv.McpResourceURI(op.ResourceURI), true)
	}
	if op.ProtocolVersion != "" {
		// A version a client makes up is no series of its own.
		known := knownVersion(op.ProtocolVersion)
		a.add(semconv.McpProtocolVersion(op.ProtocolVersion), !known)
		if !known {
			a.other(semconv.McpProtocolVersion(Other))
		}
	}
	if op.SessionID != "" {
		a.add(semconv.McpSessionID(op.SessionID), true)
	}
	if op.Transport != "" {
		a.add(semconv.NetworkTransportKey.String(op.Transport), false)
	}
	if op.RequestID != "" {
		a.add(semconv.JSONRPCRequestID(op.RequestID), true)
	}
	if op.Network != "" {
		a.add(semconv.NetworkProtocolName(op.Network), false)
		if op.NetworkVersion != "" {
			a.add(semconv.NetworkProtocolVersion(op.NetworkVersion), false)
		}
	}
	a.peer(&op, server)
	return a.list
}

// attrList gathers the attributes of an operation's metric (metric) or of
// its span.
type attrList struct {
	list   []attribute.KeyValue
	metric bool
}

// add adds kv to the span's, and to the metric's unless spanOnly.
func (a *attrList) add(kv attribute.KeyValue, spanOnly bool) {
	if !a.metric || !spanOnly {
		a.list = append(a.list, kv)
	}
}

// other adds kv to the metric's alone.
func (a *attrList) other(kv attribute.KeyValue) {
	if a.metric {
		a.list = append(a.list, kv)
	}
}

// target adds the tool or the prompt op names: by its name on the span,
// and on the metric unless it is unknown (then it is Other there).
func (a *attrList) target(op *Operation) {
	if op.Tool != "" {
		a.add(semconv.GenAIToolName(op.Tool), op.Unknown)
		a.add(semconv.GenAIOperationNameExecuteTool, false)
	}
	if op.Prompt != "" {
		a.add(semconv.GenAIPromptName(op.Prompt), op.Unknown)
	}
	if op.Unknown {
		if op.Tool != "" {
			a.other(semconv.GenAIToolName(Other))
		} else if op.Prompt != "" {
			a.other(semconv.GenAIPromptName(Other))
		}
	}
}

// peer adds op's peer, of a request received (server) or sent.
func (a *attrList) peer(op *Operation, server bool) {
	if op.Address == "" {
		return
	}
	// A client's address is on its span only; the upstream a
	// request went to is a series of its metric too.
	if server {
		a.add(semconv.ClientAddress(op.Address), true)
		if op.Port > 0 {
			a.add(semconv.ClientPort(op.Port), true)
		}
	} else {
		a.add(semconv.ServerAddress(op.Address), false)
		if op.Port > 0 {
			a.add(semconv.ServerPort(op.Port), false)
		}
	}
}

// StartServer starts the span of a request folio received, continuing the
// caller's trace from op.Meta. The span starts at start, when the caller
// took the request in (a call's record, in mcpserver), not when it is
// made: the caller times the request, and ends the span with EndAfter
// and the duration it measured.
func (in *Instruments) StartServer(ctx context.Context, op Operation, start time.Time) (context.Context, *Span) {
	if in == nil {
		return ctx, nil
	}
	if op.Meta != nil {
		ctx = propagation.TraceContext{}.Extract(ctx, metaCarrier(op.Meta))
	}
	return in.start(ctx, op, true, start)
}

// StartClient starts the span of a request folio sends (to an upstream)
// and puts its trace context into op.Meta, which must not be nil when
// traces are on.
//
// The request's connection, when ClientTransport made it, gives the span
// what is learnt as the request is written: its id, and what op does not
// say of the connection (the session, the server's address).
func (in *Instruments) StartClient(ctx context.Context, op Operation) (context.Context, *Span) {
	if in == nil {
		return ctx, nil
	}
	meta := op.Meta
	ctx, s := in.start(ctx, op, false, time.Now())
	if in.tracer != nil && meta != nil {
		propagation.TraceContext{}.Inject(ctx, metaCarrier(meta))
	}
	return context.WithValue(ctx, clientSpanKey{}, s), s
}

// clientSpanKey is where StartClient leaves its span in the context, for
// the connection that writes the request (see tracedConn.Write).
type clientSpanKey struct{}

// start starts the span of op, received (server) or sent, at start.
func (in *Instruments) start(ctx context.Context, op Operation, server bool, start time.Time) (context.Context, *Span) {
	op = op.bounded()
	s := &Span{in: in, start: start, server: server, op: op}
	if in.tracer != nil {
		kind := trace.SpanKindClient
		if server {
			kind = trace.SpanKindServer
		}
		ctx, s.span = in.tracer.Start(ctx, op.name(), trace.WithSpanKind(kind), trace.WithTimestamp(start), trace.WithAttributes(op.attrs(server, false)...))
	}
	return ctx, s
}

// SetProtocolVersion gives the span the protocol version v, when it is
// learnt after the span starts: the version an initialize agreed on.
func (s *Span) SetProtocolVersion(v string) {
	if s == nil || v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op.ProtocolVersion = cut(v)
	if s.span != nil {
		s.span.SetAttributes(semconv.McpProtocolVersion(s.op.ProtocolVersion))
	}
}

// SetKnown says that the tool the span's request names, taken for none
// the server offers when the span started, is one after all (a gateway's
// tool called before its catalog was known): the span and the duration
// metric name it, as they do any offered tool.
func (s *Span) SetKnown() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.op.Unknown {
		return
	}
	s.op.Unknown = false
	if s.span != nil {
		s.span.SetName(s.op.name())
	}
}

// End ends the span now: toolError tells a tool call answered with
// isError, err a request that failed (a JSON-RPC error, or the call not
// made). Its duration, the span's and the metric's, is the time since it
// started.
func (s *Span) End(ctx context.Context, toolError bool, err error) {
	if s == nil {
		return
	}
	s.EndAfter(ctx, time.Since(s.start), toolError, err)
}

// EndAfter ends the span d after it started, as End does: d is the
// request's duration as its caller measured it (a call's record, in
// mcpserver), and the span's duration and the operation-duration
// metric's value are d exactly, so that they and the caller's own
// records (its log, its audit log) tell one measurement.
func (s *Span) EndAfter(ctx context.Context, d time.Duration, toolError bool, err error) {
	if s == nil {
		return
	}
	var errAttrs []attribute.KeyValue
	switch rpc := (*jsonrpc.Error)(nil); {
	case err != nil && errors.As(err, &rpc):
		code := strconv.FormatInt(rpc.Code, 10)
		errAttrs = append(errAttrs, semconv.ErrorTypeKey.String(code), semconv.RPCResponseStatusCode(code))
	case err != nil:
		errAttrs = append(errAttrs, semconv.ErrorType(err))
	case toolError:
		errAttrs = append(errAttrs, semconv.ErrorTypeKey.String(ToolError))
	}
	if s.span != nil {
		s.span.SetAttributes(errAttrs...)
		switch {
		case err != nil:
			s.span.SetStatus(codes.Error, err.Error())
		case toolError:
			s.span.SetStatus(codes.Error, ToolError)
		}
		s.span.End(trace.WithTimestamp(s.start.Add(d)))
	}
	if s.in.meter != nil {
		seconds := d.Seconds()
		s.mu.Lock()
		attrs := s.op.attrs(s.server, true)
		method := s.op.Method
		s.mu.Unlock()
		attrs = append(attrs, errAttrs...)
		if s.server {
			s.in.server.Record(ctx, seconds, mcpconv.MethodNameAttr(method), attrs...)
		} else {
			s.in.client.Record(ctx, seconds, mcpconv.MethodNameAttr(method), attrs...)
		}
	}
}

// metaCarrier carries trace context in an MCP request's params._meta,
// as the MCP conventions place it: string members named as the W3C
// headers are (traceparent, tracestate).
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	v, _ := m[key].(string)
	return v
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
