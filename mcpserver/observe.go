package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/folio-mcp/folio/telemetry"
	"github.com/folio-mcp/folio/upstream"
)

// An observation is a request's span and, for an initialize, the
// session it begins (see startObserving).
type observation struct {
	ctx     context.Context
	span    *telemetry.Span
	op      telemetry.Operation
	ss      *mcp.ServerSession
	session *telemetry.Session
}

// startObserving starts each request's span, as the MCP conventions have
// them (see telemetry), continuing the caller's trace from the request's
// _meta, and the duration of each session that an initialize begins: ctx
// is the request's context with its span. What go-sdk's request does not
// say (the request's id; the HTTP version and the client's address) it
// reads from the wire (see wireOf). Without telemetry it is not in the
// way at all (nil).
func (s *Server) startObserving(ctx context.Context, rec *callRecord, method string, req mcp.Request) (context.Context, *observation) {
	in := s.cfg.Telemetry
	if in == nil {
		return ctx, nil
	}
	o := &observation{}
	o.op, o.ss = s.operation(rec, method, req)
	o.ctx, o.span = in.StartServer(ctx, o.op, rec.Start)
	if method == "initialize" {
		o.session = s.startSession(o.ss, o.op)
	}
	return o.ctx, o
}

// endObserving ends the request's span, which started at its record's
// Start, its record's Duration later, which the span records as the
// request's duration (one measurement with the log's and the audit
// log's), and counts the pages, tokens and folds of its answer, res, as
// its record tells them.
func (s *Server) endObserving(o *observation, rec *callRecord, res mcp.Result) {
	if o == nil {
		return
	}
	if o.op.Unknown && rec.called != nil && rec.Err == nil && s.offers(rec.called) {
		// An upstream tool called before the gateway knew its
		// catalog, which the call waited for: it is one now.
		o.span.SetKnown()
	}
	if init, ok := res.(*mcp.InitializeResult); ok && init != nil && rec.Err == nil {
		o.span.SetProtocolVersion(init.ProtocolVersion)
		if o.session != nil {
			o.session.SetProtocolVersion(init.ProtocolVersion)
			session, ss := o.session, o.ss
			go func() { session.End(context.Background(), sessionError(ss.Wait())) }()
		}
	}
	if answer, _ := res.(*mcp.CallToolResult); answer != nil && rec.Outcome == "ok" && s.counts != nil {
		s.counts.answer(o.ctx, rec)
	}
	o.span.EndAfter(o.ctx, rec.Duration, rec.Outcome == "tool_error", rec.Err)
}

// operation is what a request's span and metrics say of it, read before
// it is handled: its method, transport and wire (see wireOf), its
// session and protocol version, what it names (see nameOperation), its
// _meta, and whether that name is one folio offers (see offers); and the
// session it came on (nil for none), whose initialize may begin a
// session's duration.
func (s *Server) operation(rec *callRecord, method string, req mcp.Request) (telemetry.Operation, *mcp.ServerSession) {
	op := telemetry.Operation{Method: method, Transport: telemetry.TransportPipe}
	extra := req.GetExtra()
	if extra != nil && extra.Header != nil {
		op.Transport = telemetry.TransportTCP
	}
	s.wireOf(extra, &op)
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss != nil {
		op.SessionID = ss.ID()
		if p := ss.InitializeParams(); p != nil {
			op.ProtocolVersion = p.ProtocolVersion
		}
	}
	nameOperation(&op, req.GetParams())
	if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
		op.Meta = p.GetMeta()
	}
	if op.ProtocolVersion == "" {
		// A server/discover of the sessionless era, whose version
		// go-sdk takes in only as it answers it.
		op.ProtocolVersion, _ = op.Meta[mcp.MetaKeyProtocolVersion].(string)
	}
	op.Unknown = (rec.Called != "" && !s.offers(rec.called)) || (op.Prompt != "" && op.Prompt != filePrompt)
	return op, ss
}

// nameOperation sets on op what the request's params name, by their
// kind: the tool called, the prompt got, the resource read or subscribed
// to, or the protocol version an initialize asks for. Params of any
// other kind name nothing.
func nameOperation(op *telemetry.Operation, params mcp.Params) {
	switch p := params.(type) {
	case *mcp.CallToolParamsRaw:
		if p != nil {
			op.Tool = p.Name
		}
	case *mcp.GetPromptParams:
		if p != nil {
			op.Prompt = p.Name
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			op.ResourceURI = p.URI
		}
	case *mcp.SubscribeParams:
		if p != nil {
			op.ResourceURI = p.URI
		}
	case *mcp.InitializeParams:
		// The session has no version before its initialize is
		// answered: the one asked for, until the answer says.
		if p != nil {
			op.ProtocolVersion = p.ProtocolVersion
		}
	}
}

// startSession starts the session ss that its initialize, op, begins,
// whose duration is recorded when it ends, once its initialize is
// answered: a session over stdio, or an HTTP session with an ID of its
// own (a sessionless server's initialize begins none); nil for none.
func (s *Server) startSession(ss *mcp.ServerSession, op telemetry.Operation) *telemetry.Session {
	if ss == nil || (op.Transport != telemetry.TransportPipe && op.SessionID == "") {
		return nil
	}
	return s.cfg.Telemetry.StartSession(op, true)
}

// sessionError is what ended a session, as its duration tells it, from
// what its Wait returned: nil when its client left or ended it, it was
// idle too long, or folio closed it (a read of a connection folio closed
// fails, and that is no failure); telemetry.ErrSessionLost when its
// connection failed.
func sessionError(err error) error {
	if err == nil || errors.Is(err, os.ErrClosed) || errors.Is(err, net.ErrClosed) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("%w: %v", telemetry.ErrSessionLost, err)
}

// offers reports whether the target t names a tool folio offers now: its
// own, the search mode's, or one of the upstreams' catalog as the gateway
// has it now (not the session's: a name is a series of its own as soon
// as any session may call it). Any other name is a client's to make up,
// and is not a metric's series of its own.
func (s *Server) offers(t *callTarget) bool {
	if t.kind == targetOwn {
		return true
	}
	g := s.cfg.Gateway
	if g == nil || !g.Ready() {
		return false
	}
	if t.kind == targetMeta {
		return true
	}
	c, err := g.Catalog(context.Background()) // ready: it does not wait
	if err != nil {
		return false
	}
	_, ok := c.Lookup(t.name)
	return ok
}

// counts are folio's own metrics beside the MCP conventions': what its
// answers gave, and what it holds.
type counts struct {
	pages, tokens, folds metric.Int64Counter
	tokenizer            attribute.KeyValue
}

// addMetrics makes folio's own metrics: the counters of pages, tokens and
// folds, and gauges of the sessions open, the handle store's size and the
// upstreams' lives.
func (s *Server) addMetrics() error {
	m := s.cfg.Telemetry.Meter()
	if m == nil {
		return nil
	}
	c := &counts{tokenizer: attribute.String("tokenizer", s.cfg.Counter.Name())}
	var err error
	if c.pages, err = m.Int64Counter("folio.pages", metric.WithUnit("{page}"), metric.WithDescription("Pages and line windows read answered.")); err != nil {
		return err
	}
	if c.tokens, err = m.Int64Counter("folio.tokens", metric.WithUnit("{token}"), metric.WithDescription("Tokens of the pages answered and of the folded answers' previews, by the server's tokenizer.")); err != nil {
		return err
	}
	if c.folds, err = m.Int64Counter("folio.folds", metric.WithUnit("{fold}"), metric.WithDescription("Answers folded into handles, by tool.")); err != nil {
		return err
	}
	sessions, err := m.Int64ObservableGauge("folio.sessions", metric.WithUnit("{session}"), metric.WithDescription("Sessions open."))
	if err != nil {
		return err
	}
	observed := []metric.Observable{sessions}
	var held metric.Int64ObservableGauge
	if s.cfg.Fold != nil {
		if _, ok := s.cfg.Fold.HeldBytes(); ok {
			if held, err = m.Int64ObservableGauge("folio.handle_store.size", metric.WithUnit("By"), metric.WithDescription("Bytes of folded answers the handle store holds.")); err != nil {
				return err
			}
			observed = append(observed, held)
		}
	}
	var ups upstreamGauges
	if s.cfg.Gateway != nil {
		if ups, err = newUpstreamGauges(m); err != nil {
			return err
		}
		observed = append(observed, ups.state, ups.starts, ups.exits, ups.failures, ups.tools)
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(sessions, int64(s.sessions.count()))
		if held != nil {
			n, _ := s.cfg.Fold.HeldBytes()
			o.ObserveInt64(held, n)
		}
		if s.cfg.Gateway != nil {
			ups.observe(o, s.cfg.Gateway.Statuses())
		}
		return nil
	}, observed...)
	if err != nil {
		return err
	}
	s.counts = c
	return nil
}

// answer counts what a tool's answer gave, as its record tells it: a
// page or window of read (and its tokens), a fold (and its preview's
// tokens). The tool is the one called (call_tool, in search mode).
func (c *counts) answer(ctx context.Context, rec *callRecord) {
	if rec.called == nil {
		return
	}
	switch t := rec.called; {
	case t.kind == targetOwn && t.own.pages:
		c.pages.Add(ctx, 1)
	case rec.Folded:
		c.folds.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", t.name)))
	}
	if rec.Tokens > 0 {
		c.tokens.Add(ctx, int64(rec.Tokens), metric.WithAttributes(c.tokenizer))
	}
}

// upstreamGauges tell the upstreams' lives (see upstream.Status).
type upstreamGauges struct {
	state           metric.Int64ObservableGauge
	starts, exits   metric.Int64ObservableCounter
	failures, tools metric.Int64ObservableGauge
}

func newUpstreamGauges(m metric.Meter) (upstreamGauges, error) {
	var g upstreamGauges
	var err error
	if g.state, err = m.Int64ObservableGauge("folio.upstream.state", metric.WithDescription("1 for the state each upstream is in, 0 for the others: stopped, starting, running, backing_off, failed.")); err != nil {
		return g, err
	}
	if g.starts, err = m.Int64ObservableCounter("folio.upstream.starts", metric.WithUnit("{start}"), metric.WithDescription("Starts of each upstream that succeeded; more than one is a restart.")); err != nil {
		return g, err
	}
	if g.exits, err = m.Int64ObservableCounter("folio.upstream.exits", metric.WithUnit("{exit}"), metric.WithDescription("Times each upstream exited, or its connection ended, unasked.")); err != nil {
		return g, err
	}
	if g.failures, err = m.Int64ObservableGauge("folio.upstream.failures", metric.WithUnit("{failure}"), metric.WithDescription("Failures of each upstream in a row: past one, it backs off.")); err != nil {
		return g, err
	}
	if g.tools, err = m.Int64ObservableGauge("folio.upstream.tools", metric.WithUnit("{tool}"), metric.WithDescription("Tools of each upstream the catalog offers.")); err != nil {
		return g, err
	}
	return g, nil
}

func (g upstreamGauges) observe(o metric.Observer, statuses []upstream.Status) {
	for _, st := range statuses {
		name := attribute.String("upstream", st.Name)
		for _, state := range upstream.States {
			v := int64(0)
			if st.State == state {
				v = 1
			}
			o.ObserveInt64(g.state, v, metric.WithAttributes(name, attribute.String("state", string(state))))
		}
		o.ObserveInt64(g.starts, st.Starts, metric.WithAttributes(name))
		o.ObserveInt64(g.exits, st.Exits, metric.WithAttributes(name))
		o.ObserveInt64(g.failures, int64(st.Failures), metric.WithAttributes(name))
		o.ObserveInt64(g.tools, int64(st.Tools), metric.WithAttributes(name))
	}
}
