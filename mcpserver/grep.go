package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/search"
	"github.com/folio-mcp/folio/wire"
)

const grepDescription = `Search the text files under the served roots for a regular expression (RE2 syntax, per line). Answers {"matches":[{"uri","line","text"}],"files_searched","truncated"}; lines count from 1, and context lines carry "context":true.`

func (s *Server) grep(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a wire.GrepArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	o := search.Options{Pattern: a.Pattern, Literal: a.Literal, IgnoreCase: a.IgnoreCase,
		MaxMatches: search.DefaultMaxMatches, MaxBytes: s.cfg.MaxAnswerBytes, Timeout: s.cfg.GrepTimeout}
	if a.Context != nil {
		o.Context = *a.Context
	}
	if a.MaxMatches != nil {
		o.MaxMatches = *a.MaxMatches
	}
	g, err := search.New(o)
	if err != nil {
		return s.toolError(err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	c, err := s.caller(ctx)
	if err != nil {
		return s.toolError(err)
	}
	out, err := g.Search(ctx, c.fs, a.Path, a.Glob)
	if err != nil {
		return s.toolError(err)
	}
	b, err := marshalCompact(out)
	if err != nil {
		return s.toolError(err)
	}
	return textResult(string(b)), nil
}
