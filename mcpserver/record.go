package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/upstream"
	"github.com/folio-mcp/folio/wire"
)

// A callRecord is one request as folio handled it: made by recordCalls
// as the request comes in, filled once as its answer comes back (see
// finish), and then read, never measured again, by the log (logRequest),
// the span and the metrics (endObserving: the span starts at Start and
// lasts Duration) and the audit log (auditCall). For a tool
// call it holds what the call was for (its target) and how it went.
type callRecord struct {
	// Method is the request's method; Start when folio took it in, and
	// Duration how long until its answer came back.
	Method   string
	Start    time.Time
	Duration time.Duration

	// Called is the tool's name as the client called it (call_tool, for
	// a call through search mode); empty for a request that is no tool
	// call. Tool is the tool's name once the call was answered: the one
	// call_tool named, in search mode.
	Called, Tool string
	// Client is the name the session's MCP client gave; Subject and
	// ClientID who called (see caller), known only once auditCalls has
	// asked.
	Client, Subject, ClientID string
	// ArgBytes is the size of the call's arguments as they came (later
	// stages may replace references in them); Args are those arguments,
	// kept only when there is an audit log to write them to.
	ArgBytes int
	Args     json.RawMessage

	// Err is the error the request failed with (nil for an answer, a
	// tool error included); Outcome is "ok", "tool_error" (the tool
	// answered with isError) or "refused" (Err is not nil).
	Err     error
	Outcome string
	// AnswerBytes is the size of the text of the answer's content;
	// Tokens its tokens as the answer says them (wire.MetaTokens), and
	// Folded whether it is folded into a handle. Of a tool call's answer
	// only, and 0 or false for an answer that is a tool error.
	AnswerBytes int
	Tokens      int
	Folded      bool

	// called is the target of the call as it came (see Called); target
	// the one it is for now, a new one when call_tool has made the call
	// the one it names (see targetOf).
	called, target *callTarget
	// audited: the call passed auditCalls, and is written to the audit
	// log.
	audited bool
}

// recordKey is where recordCalls leaves a request's *callRecord in its
// context.
type recordKey struct{}

// recordOf is the record of the request ctx belongs to; nil outside the
// pipeline.
func recordOf(ctx context.Context) *callRecord {
	rec, _ := ctx.Value(recordKey{}).(*callRecord)
	return rec
}

// recordCalls makes each request's record (see callRecord), traces and
// measures the request (see startObserving), fills the record once the
// answer comes back, and hands it to the audit log, the metrics and the
// log, in that order.
func (s *Server) recordCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		rec := s.newRecord(method, req)
		ctx = context.WithValue(ctx, recordKey{}, rec)
		ctx, obs := s.startObserving(ctx, rec, method, req)
		res, err := next(ctx, method, req)
		rec.finish(req, res, err)
		if rec.audited {
			s.auditCall(rec)
		}
		s.endObserving(obs, rec, res)
		s.logRequest(rec)
		return res, err
	}
}

// newRecord is the record of a request as it comes in.
func (s *Server) newRecord(method string, req mcp.Request) *callRecord {
	rec := &callRecord{Method: method, Start: time.Now()}
	call, ok := req.(*mcp.CallToolRequest)
	if method != "tools/call" || !ok || call.Params == nil {
		return rec
	}
	rec.Called = call.Params.Name
	rec.called = newTarget(call)
	rec.target = rec.called
	rec.ArgBytes = len(call.Params.Arguments)
	if s.cfg.Audit != nil {
		// The arguments as they came: later stages may replace
		// references in them.
		rec.Args = slices.Clone(call.Params.Arguments)
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			rec.Client = p.ClientInfo.Name
		}
	}
	return rec
}

// finish fills the record with the request's answer, res, or its error.
func (rec *callRecord) finish(req mcp.Request, res mcp.Result, err error) {
	rec.Duration = time.Since(rec.Start)
	rec.Err, rec.Outcome = err, "ok"
	if rec.called != nil {
		call := req.(*mcp.CallToolRequest)
		rec.Tool = call.Params.Name
		if rec.target.name != rec.Tool {
			rec.target = newTarget(call)
		}
	}
	switch result, _ := res.(*mcp.CallToolResult); {
	case err != nil:
		rec.Outcome = "refused"
	case result == nil:
	case result.IsError:
		rec.Outcome = "tool_error"
		rec.AnswerBytes = textBytes(result)
	default:
		rec.AnswerBytes = textBytes(result)
		rec.Tokens, _ = result.Meta[wire.MetaTokens].(int)
		_, rec.Folded = result.Meta[wire.MetaResultHandle]
	}
}

// textBytes is the size of the text of res's content.
func textBytes(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len(t.Text)
		}
	}
	return n
}

// ms is a duration in milliseconds, to the microsecond, as the log and
// the audit log write it.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// targetKind is what a tool call's name names.
type targetKind int

const (
	// targetNone: no tool folio offers by the name (go-sdk answers it).
	targetNone targetKind = iota
	// targetOwn: one of folio's own tools (see ownTool).
	targetOwn
	// targetMeta: one of search mode's meta-tools (see metaTool).
	targetMeta
	// targetUpstream: a name of an upstream's tool, its upstream's name
	// and the separator first; whether the session's catalog has it is
	// told by catalog.
	targetUpstream
)

// A callTarget is what a tool call is for, worked out once for the call
// and carried, in its record, to every stage: the kind of tool its name
// names and, for a meta-tool or an upstream's tool, the session's catalog
// and the tool in it, got from the gateway when first asked (see catalog).
type callTarget struct {
	// name is the tool's name as called.
	name string
	kind targetKind
	// own is the tool of folio's table (own or meta), nil for the others.
	own *tool
	// upstream is the upstream a targetUpstream's name names.
	upstream string
	// session is the call's session, whose catalog the target is of.
	session mcp.Session

	once sync.Once
	// cat is the session's catalog (see sessionCatalog), or err why there
	// is none; tool and found the tool of that name in it.
	cat   *upstream.Catalog
	err   error
	tool  upstream.Tool
	found bool
}

// newTarget is the target of call, by its name; its catalog is not asked
// for yet.
func newTarget(call *mcp.CallToolRequest) *callTarget {
	t := &callTarget{name: call.Params.Name, session: call.GetSession()}
	switch own := toolNamed(t.name); {
	case own != nil && own.meta:
		t.kind, t.own = targetMeta, own
	case own != nil:
		t.kind, t.own = targetOwn, own
	default:
		if up, _, ok := strings.Cut(t.name, upstream.Separator); ok {
			t.kind, t.upstream = targetUpstream, up
		}
	}
	return t
}

// targetOf is what call is for: the target its record holds, or, when
// the call's name has changed since (call_tool made it the call it
// names), the target of the name now, which the record holds from then
// on. Outside the pipeline, a target of its own.
func targetOf(ctx context.Context, call *mcp.CallToolRequest) *callTarget {
	rec := recordOf(ctx)
	if rec == nil || rec.target == nil {
		return newTarget(call)
	}
	if rec.target.name != call.Params.Name {
		rec.target = newTarget(call)
	}
	return rec.target
}

// catalog is the session's catalog of upstream tools (see
// sessionCatalog), asked of the gateway once for the target, and the
// tool of the target's name in it (found false for none). It waits for
// the gateway, as sessionCatalog does: a stage asks only for a target
// that may be an upstream's tool or a meta-tool, with a gateway.
func (t *callTarget) catalog(ctx context.Context, s *Server) (*upstream.Catalog, upstream.Tool, bool, error) {
	t.once.Do(func() {
		t.cat, t.err = s.sessionCatalog(ctx, t.session)
		if t.err == nil {
			t.tool, t.found = t.cat.Lookup(t.name)
		}
	})
	return t.cat, t.tool, t.found, t.err
}

// judged gives the target the catalog its call was judged by already
// (search mode's, for the tool call_tool names), unless it has one.
func (t *callTarget) judged(c *upstream.Catalog) {
	t.once.Do(func() {
		t.cat = c
		t.tool, t.found = c.Lookup(t.name)
	})
}
