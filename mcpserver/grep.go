package mcpserver

import (
	"context"

	"github.com/folio-mcp/folio/search"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const grepDescription = `Search the text files under the served roots for a regular expression (RE2 syntax, per line). Answers {"matches":[{"uri","line","text"}],"files_searched","truncated"}; lines count from 1, and context lines carry "context":true.`

const grepSchema = `{"type":"object","properties":{
"pattern":{"type":"string"},
"path":{"type":"string","description":"file or directory, default the first root"},
"glob":{"type":"string","description":"doublestar glob over paths relative to path"},
"literal":{"type":"boolean","description":"pattern is plain text"},
"ignore_case":{"type":"boolean"},
"context":{"type":"integer","minimum":0,"maximum":20,"description":"lines before and after each match"},
"max_matches":{"type":"integer","minimum":1,"maximum":100000,"description":"default 1000"}},
"required":["pattern"],"additionalProperties":false}`

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	Literal    bool   `json:"literal"`
	IgnoreCase bool   `json:"ignore_case"`
	Context    *int   `json:"context"`
	MaxMatches *int   `json:"max_matches"`
}

func (s *Server) grep(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a grepArgs
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
