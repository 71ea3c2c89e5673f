package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/audit"
	"github.com/folio-mcp/folio/upstream"
)

// auditCalls writes a record of each tool call to Config.Audit: who
// called (subject, OAuth client, MCP client), which tool (and upstream),
// how it went, how long it took, how large its arguments and answer were,
// and its arguments only when the log keeps them.
func (s *Server) auditCalls(next mcp.MethodHandler) mcp.MethodHandler {
	if s.cfg.Audit == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		start := time.Now()
		// The arguments as they came: later stages may replace references
		// in them.
		args := slices.Clone(call.Params.Arguments)
		res, err := next(ctx, method, req)
		r := audit.Record{Time: start, Tool: call.Params.Name, Ms: float64(time.Since(start).Microseconds()) / 1000,
			ArgBytes: len(args), Args: json.RawMessage(args), Outcome: "ok"}
		if c, cerr := s.caller(ctx); cerr == nil {
			r.Subject, r.ClientID = c.subject, c.clientID
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
				r.Client = p.ClientInfo.Name
			}
		}
		if up, _, ok := strings.Cut(r.Tool, upstream.Separator); ok && ownTool(r.Tool) == nil {
			r.Upstream = up
		}
		switch result, _ := res.(*mcp.CallToolResult); {
		case err != nil:
			r.Outcome, r.Error = "refused", err.Error()
		case result != nil:
			if result.IsError {
				r.Outcome = "tool_error"
			}
			for _, c := range result.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					r.AnswerBytes += len(t.Text)
				}
			}
		}
		if werr := s.cfg.Audit.Write(r); werr != nil {
			s.log.Warn("audit record not written", "tool", r.Tool, "err", werr)
		}
		return res, err
	}
}
