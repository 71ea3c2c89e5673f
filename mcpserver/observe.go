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
	"github.com/folio-mcp/folio/wire"
)

// observe makes each request's span and records its duration, as the MCP
// conventions have them (see telemetry), continuing the caller's trace
// from the request's _meta, records the duration of each session that an
// initialize begins, and counts the pages, tokens and folds of the
// answers. What go-sdk's request does not say (the request's id; the
// HTTP version and the client's address) it reads from the wire (see
// wireOf). Without telemetry it is not in the way at all.
func (s *Server) observe(next mcp.MethodHandler) mcp.MethodHandler {
	in := s.cfg.Telemetry
	if in == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		op, ss := s.operation(method, req)
		ctx, span := in.StartServer(ctx, op)
		var session *telemetry.Session
		if method == "initialize" {
			session = s.startSession(ss, op)
		}
		res, err := next(ctx, method, req)
		if op.Unknown && op.Tool != "" && err == nil && s.offers(op.Tool) {
			// An upstream tool called before the gateway knew its
			// catalog, which the call waited for: it is one now.
			span.SetKnown()
		}
		if init, ok := res.(*mcp.InitializeResult); ok && init != nil && err == nil {
			span.SetProtocolVersion(init.ProtocolVersion)
			if session != nil {
				session.SetProtocolVersion(init.ProtocolVersion)
				go func() { session.End(context.Background(), sessionError(ss.Wait())) }()
			}
		}
		answer, _ := res.(*mcp.CallToolResult)
		toolError := answer != nil && answer.IsError
		if answer != nil && !toolError && s.counts != nil {
			s.counts.answer(ctx, op.Tool, answer)
		}
		span.End(ctx, toolError, err)
		return res, err
	}
}

// operation is what a request's span and metrics say of it, read before
// it is handled: its method, transport and wire (see wireOf), its
// session and protocol version, what it names (see nameOperation), its
// _meta, and whether that name is one folio offers (see offers); and the
// session it came on (nil for none), whose initialize may begin a
// session's duration.
func (s *Server) operation(method string, req mcp.Request) (telemetry.Operation, *mcp.ServerSession) {
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
	op.Unknown = (op.Tool != "" && !s.offers(op.Tool)) || (op.Prompt != "" && op.Prompt != filePrompt)
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

// offers reports whether name is a tool folio offers now: its own, the
// search mode's, or one of the upstreams' catalog. Any other name is a
// client's to make up, and is not a metric's series of its own.
func (s *Server) offers(name string) bool {
	if ownTool(name) != nil {
		return true
	}
	g := s.cfg.Gateway
	if g == nil || !g.Ready() {
		return false
	}
	if metaTool(name) {
		return true
	}
	c, err := g.Catalog(context.Background()) // ready: it does not wait
	if err != nil {
		return false
	}
	_, ok := c.Lookup(name)
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

// answer counts what a tool's answer gave: a page or window of read (and
// its tokens), a fold (and its preview's tokens).
func (c *counts) answer(ctx context.Context, tool string, res *mcp.CallToolResult) {
	tokens, _ := res.Meta[wire.MetaTokens].(int)
	_, folded := res.Meta[wire.MetaResultHandle]
	switch own := ownTool(tool); {
	case own != nil && own.pages:
		c.pages.Add(ctx, 1)
	case folded:
		c.folds.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", tool)))
	}
	if tokens > 0 {
		c.tokens.Add(ctx, int64(tokens), metric.WithAttributes(c.tokenizer))
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
