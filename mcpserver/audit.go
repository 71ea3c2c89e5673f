package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/audit"
)

// auditCalls marks each tool call that reaches it for the audit log
// (Config.Audit; nothing without one), and, once the call returns, sets
// in its record who called (subject, OAuth client): recordCalls writes
// the record (see auditCall).
func (s *Server) auditCalls(next mcp.MethodHandler) mcp.MethodHandler {
	if s.cfg.Audit == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		rec := recordOf(ctx)
		if rec == nil || rec.called == nil {
			return next(ctx, method, req)
		}
		res, err := next(ctx, method, req)
		rec.audited = true
		if c, cerr := s.caller(ctx); cerr == nil {
			rec.Subject, rec.ClientID = c.subject, c.clientID
		}
		return res, err
	}
}

// auditCall writes the record of a tool call to Config.Audit: who called
// (subject, OAuth client, MCP client), which tool (and upstream), how it
// went, how long it took, how large its arguments and answer were, and
// its arguments only when the log keeps them.
func (s *Server) auditCall(rec *callRecord) {
	r := audit.Record{Time: rec.Start, Subject: rec.Subject, ClientID: rec.ClientID, Client: rec.Client,
		Tool: rec.Tool, Upstream: rec.target.upstream, Outcome: rec.Outcome, Ms: ms(rec.Duration),
		ArgBytes: rec.ArgBytes, AnswerBytes: rec.AnswerBytes, Args: json.RawMessage(rec.Args)}
	if rec.Err != nil {
		r.Error = rec.Err.Error()
	}
	if werr := s.cfg.Audit.Write(r); werr != nil {
		s.log.Warn("audit record not written", "tool", r.Tool, "err", werr)
	}
}
