package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/wire"
)

// outlineDescription says what each line of an outline is, in the fewest
// words: tools/list carries it to every client.
const outlineDescription = `Headings of a file: lines tokens ## title (read {path,section:title} reads one); text files under a directory: tokens path # title. Default max_tokens %d.`

func init() {
	register(&tool{
		name:        wire.Outline,
		description: func(s *Server) string { return fmt.Sprintf(outlineDescription, s.cfg.LineMaxTokens) },
		schema:      func(*Server) json.RawMessage { return wire.OutlineSchema() },
		handler:     handle((*Server).outline),
	})
}

// outline answers an outline: a file's sections or a directory's text
// files, each with its tokens, within max_tokens (the line cap when not
// given) and the answer bound: bounded already, it never folds.
func (s *Server) outline(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.OutlineArgs) (*mcp.CallToolResult, error) {
	if a.Path == "" {
		a.Path = "."
	}
	req := reader.OutlineRequest{Name: a.Path, Subject: c.subject, MaxTokens: s.cfg.LineMaxTokens, MaxBytes: s.cfg.MaxAnswerBytes, Cursor: a.Cursor,
		More: func(name, cursor string) string {
			return wire.NotePrefix + fmt.Sprintf(`more: outline {"path":%s,"cursor":%s}`, quote(name), quote(cursor))
		}}
	if a.MaxTokens != nil {
		req.MaxTokens = *a.MaxTokens
	}
	o, err := c.reader.Outline(ctx, req)
	if err != nil {
		return s.toolError(err)
	}
	res := textResult(o.Text)
	res.Meta = mcp.Meta{wire.MetaTokens: o.Tokens, wire.MetaTokenizer: s.cfg.Counter.Name()}
	if o.Version != "" {
		res.Meta[wire.MetaVersion] = o.Version
	}
	return res, nil
}
