package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/upstream"
)

// upstreamTools answers tools/list with folio's own tools and the
// session's catalog of upstream tools, and routes a call of an upstream
// tool to its upstream. A session's catalog is fixed when it first asks:
// folio never changes a session's tools, so the model's prompt cache
// holds.
func (s *Server) upstreamTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.cfg.Gateway == nil || (method != "tools/list" && method != "tools/call") {
			return next(ctx, method, req)
		}
		if method == "tools/list" {
			catalog, err := s.sessionCatalog(ctx, req.GetSession())
			if err != nil {
				return nil, err
			}
			return s.listUpstreamTools(ctx, next, method, req, catalog)
		}
		call := req.(*mcp.CallToolRequest)
		t := targetOf(ctx, call)
		if t.kind != targetUpstream {
			// One of folio's own: no need to wait for the upstreams.
			return next(ctx, method, req)
		}
		return s.callUpstreamTool(ctx, next, method, call, t)
	}
}

// listUpstreamTools answers tools/list: folio's own tools, as next
// answers them, and after them the tools of the session's catalog.
func (s *Server) listUpstreamTools(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request, catalog *upstream.Catalog) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	list := res.(*mcp.ListToolsResult)
	list.Tools = append(list.Tools, s.listed(catalog)...)
	if st := s.searchFor(catalog); st.on {
		s.describeServers(req, list, st, s.stateOf(catalog))
	}
	if listed, ok := ctx.Value(listedKey{}).(*listedCatalog); ok {
		listed.state = s.stateOf(catalog)
	}
	return list, nil
}

// callUpstreamTool routes a call of a tool named as an upstream's to its
// upstream, in the order its checks stand: a name the session's catalog
// does not have is not_found when an upstream claims it (else next
// answers it); then the caller must be known, the tool still offered by
// the gateway's current catalog, and the arguments fit its input schema.
// Then the upstream is called (see callRounds) and its failure or its
// answer is passed on (see upstreamFailure and upstreamAnswer).
func (s *Server) callUpstreamTool(ctx context.Context, next mcp.MethodHandler, method string, call *mcp.CallToolRequest, t *callTarget) (mcp.Result, error) {
	catalog, tool, found, err := t.catalog(ctx, s)
	if err != nil {
		return nil, err
	}
	if !found {
		if up, ours := s.cfg.Gateway.UpstreamOf(call.Params.Name); ours {
			// Gone, or never there: say so, and what to do.
			return errorResult(toolerr.New(toolerr.CodeNotFound, "%s is not offered: upstream %s has no such tool (now); list the tools again", call.Params.Name, up)), nil
		}
		return next(ctx, method, call)
	}
	if _, err := s.caller(ctx); err != nil {
		return nil, err
	}
	if now, err := s.cfg.Gateway.Catalog(ctx); err == nil {
		if _, still := now.Lookup(tool.Name); !still {
			return errorResult(toolerr.New(toolerr.CodeNotFound, "%s is no longer offered: upstream %s does not have it any more; a new session sees the tools it has now", tool.Name, tool.Upstream)), nil
		}
	}
	if err := s.checkArgs(ctx, s.stateOf(catalog), tool.Def, call.Params.Arguments); err != nil {
		return s.toolError(err)
	}
	res, size, stop, err := s.callRounds(ctx, tool, call)
	if stop != nil {
		return stop, nil
	}
	if err != nil {
		return upstreamFailure(ctx, tool, err)
	}
	return s.upstreamAnswer(tool, res, size)
}

// callRounds calls the upstream's tool with the call's arguments: its
// answer and its size on the wire (0 when not seen), or the error of the
// call, or the tool error that ends the rounds of input a session of the
// older era is asked for within the call (stop, when not nil).
func (s *Server) callRounds(ctx context.Context, tool upstream.Tool, call *mcp.CallToolRequest) (res *mcp.CallToolResult, size int, stop *mcp.CallToolResult, err error) {
	// Of the call's _meta only the progress token goes on (the
	// gateway swaps it for one of its own): the rest, the protocol
	// version say, is this connection's, not the upstream's. The
	// token is a string or a number, and comes back as it came.
	ss, _ := call.GetSession().(*mcp.ServerSession)
	onProgress := func(p *mcp.ProgressNotificationParams) {
		if ss != nil {
			ss.NotifyProgress(ctx, p)
		}
	}
	// A retry after input_required carries the client's responses
	// and the upstream's requestState back to the upstream as they
	// came: folio keeps nothing between the rounds, so any replica
	// can take the retry.
	round := upstream.Round{InputResponses: call.Params.InputResponses, RequestState: call.Params.RequestState}
	res, size, err = s.cfg.Gateway.Call(ctx, tool, call.Params.Arguments, round, call.Params.GetProgressToken(), onProgress)
	// A session of the older era has no retry of its own: folio
	// asks its client within the call, round after round, as that
	// era does. The newer era's client sees the input requests.
	for rounds := 0; err == nil && res.InputRequests != nil && ss != nil && !sessionlessEra(ss); rounds++ {
		if rounds == maxInputRounds || len(res.InputRequests) == 0 {
			return nil, 0, errorResult(toolerr.New(toolerr.CodeUpstreamError, "%s asked for input %d times, or is busy: call it again later", tool.Upstream, rounds+1)), nil
		}
		responses, ierr := answerInputs(ctx, ss, res.InputRequests)
		if ierr != nil {
			return nil, 0, errorResult(toolerr.New(toolerr.CodeUpstreamError, "%s asked for input this client did not give: %v", tool.Upstream, ierr)), nil
		}
		round = upstream.Round{InputResponses: responses, RequestState: res.RequestState}
		res, size, err = s.cfg.Gateway.Call(ctx, tool, call.Params.Arguments, round, call.Params.GetProgressToken(), onProgress)
	}
	return res, size, nil, err
}

// upstreamFailure is what the caller gets when the call of an upstream
// tool failed (err is not nil): upstream_unavailable when the upstream
// is backing off (saying until when) or could not be reached,
// upstream_error when it refused the call, and the error itself when
// the request ended.
func upstreamFailure(ctx context.Context, tool upstream.Tool, err error) (mcp.Result, error) {
	switch unavailable := (*upstream.UnavailableError)(nil); {
	case errors.As(err, &unavailable):
		return errorResult(toolerr.New(toolerr.CodeUpstreamUnavailable, "%v: call it again then, or do without it", err)), nil
	case errors.Is(err, upstream.ErrConnect):
		return errorResult(toolerr.New(toolerr.CodeUpstreamUnavailable, "%v; the next call tries again", err)), nil
	case ctx.Err() == nil:
		// The upstream refused the call: the model should read why.
		return errorResult(toolerr.New(toolerr.CodeUpstreamError, "%s refused the call: %v", tool.Upstream, err)), nil
	}
	return nil, err
}

// upstreamAnswer passes an upstream's answer on, of size bytes on the
// wire (0 when not seen, and then measured): too_large, and dropped,
// past MaxAnswerBytes; else without the upstream's name for itself.
func (s *Server) upstreamAnswer(tool upstream.Tool, res *mcp.CallToolResult, size int) (mcp.Result, error) {
	if size == 0 {
		// Not seen on the wire.
		size = answerBytes(res)
	}
	if n := size; n > s.cfg.MaxAnswerBytes {
		// Never kept, never passed on: the bound holds for upstream
		// answers as for folio's own.
		return errorResult(toolerr.New(toolerr.CodeTooLarge, "upstream %s answered %s with %d bytes, over the %d folio passes on (--max-answer-bytes); the answer was dropped: ask the tool for less", tool.Upstream, tool.Original, n, s.cfg.MaxAnswerBytes)), nil
	}
	// The upstream's name for itself is of its own connection: on
	// this one, folio is the server (and says so, in the
	// 2026-07-28 era).
	delete(res.Meta, mcp.MetaKeyServerInfo)
	return res, nil
}

// advertised is an upstream tool as folio offers it: with the arguments
// that invite references (unless NoReferenceArgs), and an output schema
// that admits the folded form of its answers too (when folding is on).
func (s *Server) advertised(cs *catalogState, def *mcp.Tool) *mcp.Tool {
	if v, ok := cs.invited.Load(def); ok {
		return v.(*mcp.Tool)
	}
	ad := def
	if !s.cfg.NoReferenceArgs {
		ad = inviteReferences(def)
	}
	if s.cfg.Fold != nil && def.OutputSchema != nil {
		widened := *ad
		widened.OutputSchema = admitFolded(def.OutputSchema)
		ad = &widened
	}
	v, _ := cs.invited.LoadOrStore(def, ad)
	return v.(*mcp.Tool)
}

// answerBytes is the size of an upstream's answer as JSON, encoded again.
func answerBytes(res *mcp.CallToolResult) int {
	b, err := json.Marshal(res)
	if err != nil {
		return 0
	}
	return len(b)
}

// sessionCatalog is the catalog of upstream tools the session was given
// (or is given now, when it first asks); a call with no session, and any
// request of the 2026-07-28 era, gets the current one: that era's tool list
// is the same for every connection, and a change is announced (see
// toolListChanged).
func (s *Server) sessionCatalog(ctx context.Context, sess mcp.Session) (*upstream.Catalog, error) {
	ss, _ := sess.(*mcp.ServerSession)
	if ss != nil && sessionlessEra(ss) {
		ss = nil
	}
	var given *upstream.Catalog
	if ss != nil && s.sessions.with(ss, func(st *sessionState) { given = st.catalog }) && given != nil {
		return given, nil
	}
	c, err := s.cfg.Gateway.Catalog(ctx)
	if err != nil || ss == nil {
		return c, err
	}
	s.sessions.with(ss, func(st *sessionState) {
		if st.catalog == nil {
			st.catalog = c
		}
		c = st.catalog
	})
	return c, nil
}

// catalogChanged tells the sessions whose tools differ from the new
// catalog's. What was derived from the catalogs before goes with them
// (see catalogState); the new one starts afresh (its tools that cannot
// fold warn again once).
func (s *Server) catalogChanged(now *upstream.Catalog) {
	s.tellDrift(now)
	s.toolListChanged()
}

// toolListChanged announces notifications/tools/list_changed to the
// sessions of the 2026-07-28 era that listen for it (sessions of the
// older era keep their tools, and are told of drift instead: see
// guardNotifications). go-sdk announces a change only of the tools it
// holds, and upstream tools are folio's: adding one of folio's own again,
// unchanged, makes it announce.
func (s *Server) toolListChanged() {
	s.mcp.AddTool(s.relist.tool, s.relist.handler)
}

// sessionlessEra reports whether ss speaks the 2026-07-28 era.
func sessionlessEra(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= sessionlessProtocol
}

// tellDrift sends each session whose tools differ from the gateway's new
// catalog one warning naming the upstreams and the tools added, removed
// or changed. The session keeps its tools; a new session gets the new
// ones. (A session hears it at its log level: see startLogging.)
func (s *Server) tellDrift(now *upstream.Catalog) {
	for ss, was := range s.sessions.catalogs() {
		if sessionlessEra(ss) {
			continue // it never keeps a catalog
		}
		changes := upstream.Diff(was, now)
		if len(changes) == 0 {
			continue
		}
		var b strings.Builder
		for _, c := range changes {
			fmt.Fprintf(&b, "upstream %s changed its tools:", c.Upstream)
			for _, part := range []struct {
				what  string
				names []string
			}{{"added", c.Added}, {"removed", c.Removed}, {"changed", c.Changed}} {
				if len(part.names) > 0 {
					fmt.Fprintf(&b, " %s %s;", part.what, strings.Join(part.names, ", "))
				}
			}
			b.WriteString(" ")
		}
		b.WriteString("this session keeps the tools it started with; a new session sees the tools as they are now")
		//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
		ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "warning", Logger: "folio", Data: b.String()})
	}
}

// toolAccess applies the caller's tools list (see tokens.Identity.Tools)
// to tools/list and to calls: a tool the token may not use is neither
// listed nor callable, as if it did not exist.
func (s *Server) toolAccess(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !s.authenticates() || (method != "tools/list" && method != "tools/call") {
			return next(ctx, method, req)
		}
		// With no valid token, the handler refuses the call.
		c, err := s.caller(ctx)
		if err != nil || len(c.tools) == 0 {
			return next(ctx, method, req)
		}
		if call, ok := req.(*mcp.CallToolRequest); ok {
			if !c.mayUse(call.Params.Name) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", call.Params.Name)}
			}
			return next(ctx, method, req)
		}
		res, err := next(ctx, method, req)
		if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
			// The meta-tools stay: what they find and call is judged
			// by the name of each tool.
			list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !c.mayUse(t.Name) && !metaTool(t.Name) })
		}
		return res, err
	}
}
