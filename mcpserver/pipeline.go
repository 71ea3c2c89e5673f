package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipeline is every request's way through folio, outermost stage first:
// each stage sees what the ones before it let through, and the answers of
// the ones after it. This is the one place the order is set.
func (s *Server) pipeline() []mcp.Middleware {
	return []mcp.Middleware{
		// What go-sdk's types cannot hold (a 2026-07-28 result's
		// resultType, an upstream tool's own fields) is written into
		// the answer as it leaves: outermost, so that every stage
		// works with the SDK's types.
		s.outgoing,
		// Each request's record (see callRecord), as its client sees
		// it, refusals by later stages included: made as it comes in,
		// with a tool call's target, filled once as its answer comes
		// back, and then read by the audit log, the metrics and the
		// trace (nothing without telemetry), and the log. No other
		// stage times a request or measures its answer.
		s.recordCalls,
		// Ends a request's work when its HTTP client leaves: before any
		// work is done.
		s.followClient,
		// What folio does not do (log to the 2026-07-28 era) it does
		// not declare.
		s.discoverNoLogging,
		// Who is calling, resolved once per request on first use, and
		// the state of the session: every later stage and handler asks
		// here, so one request runs under one version of the tokens file.
		s.identify,
		// Marks each tool call for the audit log (nothing without one),
		// which recordCalls writes: after identify (who called), outside
		// every stage that refuses or answers a call. The record names
		// the call's tool as it returns, so that call_tool's is the tool
		// it named.
		s.auditCalls,
		// Holds read memory for each answer until it is written: outside
		// every stage that makes or changes an answer, so that what is
		// held is what goes out.
		s.holdAnswers,
		// Search mode's meta-tools: call_tool becomes the call it names
		// before anything judges a call's tool, so that it is the same
		// call as of a listed tool.
		s.searchTools,
		// The token's tools list: before anything looks at a call's tool
		// or lists tools, so that a tool it may not use is as if absent.
		s.toolAccess,
		// References in an upstream call's arguments become their
		// values: after access (a forbidden tool's arguments are not
		// read), before the call.
		s.substitute,
		// Large answers of list, grep and upstream tools fold into
		// handles: around every handler that makes them.
		s.foldAnswers,
		// Upstream tools are listed beside folio's own, and their calls
		// go to their upstream; folio's own go on.
		s.upstreamTools,
		// resources/list, which depends on the caller, is answered here
		// rather than by the SDK.
		s.listResources,
		// Sets a new session's log level: innermost, so that the level it
		// sets passes no other stage.
		s.startLogging,
	}
}

// callerKey is where identify leaves a request's caller in its context.
type callerKey struct{}

// requestCaller is a request's caller, resolved on first use.
type requestCaller struct {
	once  sync.Once
	extra *mcp.RequestExtra
	c     *caller
	err   error
}

// identify gives the request its caller (resolved when first asked, see
// caller) and its session its state (see sessionState).
func (s *Server) identify(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			hash := ""
			if ti := tokenInfo(ctx, req.GetExtra()); ti != nil {
				hash, _ = ti.Extra[identityKey].(string)
			}
			s.sessions.track(ss, hash)
		}
		ctx = context.WithValue(ctx, callerKey{}, &requestCaller{extra: req.GetExtra()})
		return next(ctx, method, req)
	}
}

// caller is the caller of the request ctx belongs to, under the tokens
// file as it was when first asked in this request: a revoked token or a
// narrowed allow list holds from the next request.
func (s *Server) caller(ctx context.Context) (*caller, error) {
	rc, ok := ctx.Value(callerKey{}).(*requestCaller)
	if !ok {
		return s.resolveCaller(ctx, nil)
	}
	rc.once.Do(func() { rc.c, rc.err = s.resolveCaller(ctx, rc.extra) })
	return rc.c, rc.err
}

// foldAnswers folds the large answers of tool calls: those of folio's own
// tools that fold (list and grep: see foldOwn), and upstream tools' (see
// foldUpstream). read pages, which are exact, and result_query, which
// reads folded answers, never fold.
func (s *Server) foldAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		call, ok := req.(*mcp.CallToolRequest)
		if s.cfg.Fold == nil || method != "tools/call" || !ok || err != nil {
			return res, err
		}
		answer, ok := res.(*mcp.CallToolResult)
		if !ok || answer == nil || answer.IsError {
			return res, err
		}
		switch t := targetOf(ctx, call); {
		case t.kind == targetOwn && t.own.folds:
			return s.foldOwn(ctx, call, answer), nil
		case t.kind == targetUpstream && s.cfg.Gateway != nil:
			if catalog, tool, found, cerr := t.catalog(ctx, s); cerr == nil && found {
				return s.foldUpstream(ctx, call, s.stateOf(catalog), tool.Def, answer), nil
			}
		}
		return res, err
	}
}
