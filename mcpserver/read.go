package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// readDescription says how to read, and what each way costs, so that a
// model picks the cheapest that fits: %[1]d is the line cap, %[2]s the
// token counter, %[3]s the default page format.
const readDescription = `Read a text file under the served roots; lines count from 1, as in grep.
Lines: path with offset (negative: from the end) and limit; at most 2000 lines and %[1]d tokens, long lines cut; numbers: true numbers them as cat -n (about 4 tokens a line). A [folio] line ends the answer with the call that goes on. paths reads several files.
Pages: path and max_tokens (line: start at a line); each page is at most max_tokens tokens (%[2]s); call again with cursor=next_cursor to the end. format "text" costs least: the content itself, then [folio] next_cursor=… (or end); 1.06x the file's tokens in pages of 500, 1.01x of 2000. json {uri,content,version,has_more,next_cursor} costs 1.37x and 1.22x. Default: %[3]s. On version_conflict the file changed: start again.`

func init() {
	register(&tool{
		name: wire.Read,
		description: func(s *Server) string {
			return fmt.Sprintf(readDescription, s.cfg.LineMaxTokens, s.cfg.Counter.Name(), s.cfg.PageFormat)
		},
		schema: func(s *Server) json.RawMessage {
			return wire.ReadSchema(pager.FormatNames(), s.cfg.PageFormat.String())
		},
		handler: handle((*Server).read),
		pages:   true,
	})
}

// read answers a read: a page (max_tokens or cursor), or lines of one
// file or of several.
func (s *Server) read(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.ReadArgs) (*mcp.CallToolResult, error) {
	format, err := pager.FormatOr(a.Format, s.cfg.PageFormat)
	if err != nil {
		return nil, err
	}
	if a.MaxTokens != nil || a.Cursor != "" {
		return s.readPage(ctx, c, a, format)
	}
	lr := reader.LineRequest{MaxLines: reader.DefaultLines, MaxLineChars: reader.MaxLineChars, MaxTokens: s.cfg.LineMaxTokens, Footer: lineFooter, Numbered: a.Numbers, Section: a.Section}
	if a.Offset != nil {
		lr.Offset = *a.Offset
	}
	if a.Limit != nil {
		lr.Limit = *a.Limit
	}
	if a.Path != "" {
		lr.Name = a.Path
		l, err := c.reader.ReadLines(ctx, lr)
		if err != nil {
			return s.toolError(err)
		}
		if len(l.Text) > s.cfg.MaxAnswerBytes {
			return errorResult(overBound(a.Path, len(l.Text), 0, s.cfg.MaxAnswerBytes)), nil
		}
		res := textResult(joinFooter(l))
		res.Meta = mcp.Meta{wire.MetaVersion: l.Version, wire.MetaTotalLines: l.Total, wire.MetaNextOffset: l.Next(), wire.MetaContentBytes: len(l.Text)}
		return res, nil
	}
	// One token cap for the whole answer: each file has what the files
	// before it left, and once it is spent the rest are named, not read.
	var b strings.Builder
	left := s.cfg.LineMaxTokens
	for i, name := range a.Paths {
		if err := ctx.Err(); err != nil {
			return s.toolError(err)
		}
		if left < minLineTokens {
			b.WriteString(wire.Note(fmt.Sprintf("the answer's cap of %d tokens is spent; not read: %s; read them in another call", s.cfg.LineMaxTokens, strings.Join(a.Paths[i:], ", "))))
			break
		}
		lr.Name, lr.MaxTokens = name, left
		l, err := c.reader.ReadLines(ctx, lr)
		var text string
		switch {
		case err != nil:
			text = fmt.Sprintf("=== %s ===\n%s\n", name, toolerr.From(err).JSON())
		case b.Len()+len(l.Text) > s.cfg.MaxAnswerBytes:
			text = fmt.Sprintf("=== %s ===\n%s\n", l.Name, overBound(name, len(l.Text), b.Len(), s.cfg.MaxAnswerBytes).JSON())
		default:
			text = fmt.Sprintf("=== %s ===\n%s\n", l.Name, joinFooter(l))
		}
		left -= s.cfg.Counter.Count(text)
		b.WriteString(text)
	}
	return textResult(b.String()), nil
}

// minLineTokens is the least of the token cap that one more file of a
// paths read needs: its header, its footer and a few lines.
const minLineTokens = 200

// joinFooter is the lines of l, a newline, and their footer line, as a
// text page ends: what comes before the last "\n[folio] " is the lines.
func joinFooter(l *reader.Lines) string {
	return string(l.Text) + "\n" + lineFooter(l)
}

// lineFooter is the line that follows the lines of a line-mode read:
// where they are in the file, and the exact read call that goes on (the
// version is in _meta).
func lineFooter(l *reader.Lines) string {
	var b strings.Builder
	b.WriteString(wire.NotePrefix)
	switch {
	case l.Total == 0:
		b.WriteString("empty file")
	case l.Count == 0:
		fmt.Fprintf(&b, "%d lines; no line fits in the tokens this answer has left: read it alone, or in pages with max_tokens", l.Total)
	default:
		fmt.Fprintf(&b, "lines %d-%d of %d", l.First, l.First+l.Count-1, l.Total)
	}
	if l.Section != nil {
		fmt.Fprintf(&b, " (section %d-%d)", l.Section.First, l.Section.Last)
	}
	if len(l.Cut) > 0 {
		fmt.Fprintf(&b, "; %d line(s) cut at %d characters (first: %d), read one whole in pages: read {\"path\":%s,\"line\":%d,\"max_tokens\":2000}",
			len(l.Cut), reader.MaxLineChars, l.Cut[0], quote(l.Name), l.Cut[0])
	}
	if l.Capped {
		b.WriteString("; stopped at the token cap")
	}
	if next := l.Next(); next > 0 {
		fmt.Fprintf(&b, "; more: read {\"path\":%s,", quote(l.Name))
		if l.Section != nil {
			fmt.Fprintf(&b, "\"section\":%s,", quote(l.Section.Query))
		}
		fmt.Fprintf(&b, "\"offset\":%d", next)
		if l.Limit > 0 {
			fmt.Fprintf(&b, ",\"limit\":%d", l.Limit)
		}
		if l.Numbered {
			b.WriteString(`,"numbers":true`)
		}
		b.WriteString("}")
	} else if l.Count > 0 && l.Section != nil {
		b.WriteString("; end of section")
	} else if l.Count > 0 {
		b.WriteString("; end of file")
	}
	return b.String()
}

// quote is s as a JSON string, escaped as pages are.
func quote(s string) string { return string(jsonvalue.AppendString(nil, s)) }

// readPage answers a read in page mode.
func (s *Server) readPage(ctx context.Context, c *caller, a wire.ReadArgs, format pager.Format) (*mcp.CallToolResult, error) {
	pr := reader.PageRequest{Name: a.Path, Subject: c.subject, MaxTokens: *a.MaxTokens, Cursor: a.Cursor, Format: format, Section: a.Section}
	if a.Line != nil {
		pr.Line = *a.Line
	}
	p, err := c.reader.Page(ctx, pr)
	if err != nil {
		return s.toolError(err)
	}
	res := textResult(string(p.JSON))
	res.Meta = mcp.Meta{wire.MetaTokens: p.Tokens, wire.MetaTokenizer: s.cfg.Counter.Name()}
	if p.FirstLine > 0 {
		// A JSON page's keys are the contract's: the lines go here (a
		// text page says them in its footer too).
		res.Meta[wire.MetaFirstLine], res.Meta[wire.MetaLastLine] = p.FirstLine, p.LastLine
	}
	// The format, and what its text leaves out, for programs.
	p.Meta(res.Meta)
	return res, nil
}

// overBound is the error of text that would take an answer of used bytes
// past the bound.
func overBound(name string, size, used, bound int) *toolerr.Error {
	msg := fmt.Sprintf("the lines of %s are %d bytes, over the answer bound of %d bytes", name, size, bound)
	if used > 0 {
		msg = fmt.Sprintf("the lines of %s are %d bytes, and with the %d bytes before them the answer would pass its bound of %d bytes; read this file alone", name, size, used, bound)
	}
	return toolerr.New(toolerr.CodeTooLarge, "%s: read it with the read tool in pages (max_tokens), or fewer lines at a time (offset and limit)", msg)
}

// marshalCompact is JSON without HTML escaping, as pages are.
func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
