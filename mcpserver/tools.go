package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/search"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

const readDescription = `Read a text file under the served roots. Lines count from 1 here and in grep.
Lines: uri, with optional offset (first line; negative counts from the end: -100 is the last 100 lines) and limit. At most 2000 lines and %d tokens per answer; lines over 2000 characters are cut. A last line [folio] gives the total lines, the version, and the exact call that continues. uris reads several files, each after a line "=== <uri> ===".
Pages: uri and max_tokens, optional line to start at. The answer is one page %s; all of it is at most max_tokens tokens (%s). While has_more is true, call again with the same uri and max_tokens and cursor=next_cursor; the contents joined give the file exactly. On version_conflict the file changed: start again without cursor.`

const listDescription = `List a directory under the served roots: {"uri","root","entries":[{"path","type","size","mtime"}],"truncated"}, paths relative to root, in a stable order. Without uri: the first root, or the roots themselves when there are several. A large listing folds into a handle for result_query.`

func (s *Server) addTools() {
	no := false
	ann := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	pageForm := "{uri,content,version,has_more,next_cursor} as JSON"
	if s.cfg.PageFormat == pager.Text {
		pageForm = "in text: the content as it is, then a line [folio] next_cursor=… ([folio] end version=… on the last page)"
	}
	s.readTool = &mcp.Tool{
		Name:        wire.Read,
		Description: fmt.Sprintf(readDescription, s.cfg.LineMaxTokens, pageForm, s.cfg.Counter.Name()),
		InputSchema: wire.ReadSchema(s.cfg.PageFormat),
		Annotations: ann,
	}
	s.mcp.AddTool(s.readTool, s.read)
	s.mcp.AddTool(&mcp.Tool{
		Name:        wire.List,
		Description: listDescription,
		InputSchema: wire.ListSchema(),
		Annotations: ann,
	}, s.list)
	s.mcp.AddTool(&mcp.Tool{
		Name:        wire.Grep,
		Description: grepDescription,
		InputSchema: wire.GrepSchema(),
		Annotations: ann,
	}, s.grep)
	// Offered to every caller, as one endpoint's tools must be (2026-07-28
	// callers fold even when anonymous; see owner).
	if s.cfg.Fold != nil {
		s.mcp.AddTool(&mcp.Tool{
			Name:        wire.ResultQuery,
			Description: resultQueryDescription,
			InputSchema: wire.ResultQuerySchema(),
			Annotations: ann,
		}, s.resultQuery)
	}
}

// decodeArgs reads a tool's arguments strictly: unknown names and wrong
// types are invalid_argument.
func decodeArgs(raw json.RawMessage, v any) *toolerr.Error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return toolerr.Invalid("argument %s must be a JSON %s, not %s", te.Field, kind(te.Type.String()), te.Value)
		}
		return toolerr.Invalid("bad arguments: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return toolerr.Invalid("bad arguments: more than one JSON value")
	}
	return nil
}

func kind(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "int":
		return "integer"
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "[]string":
		return "array of strings"
	}
	return goType
}

func errorResult(e *toolerr.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(e.JSON())}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError turns a failure into the tool result the model sees; a caller
// with no identity is the one failure that is a protocol error.
func (s *Server) toolError(err error) (*mcp.CallToolResult, error) {
	if errors.Is(err, errUnauthorized) {
		return nil, err
	}
	e := toolerr.From(err)
	if e.Code == toolerr.CodeInternal && !errors.Is(err, context.Canceled) {
		s.log.Error("tool failed", "err", err)
	}
	return errorResult(e), nil
}

func (s *Server) read(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a wire.ReadArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	paged, err := a.Paged()
	if err != nil {
		return s.toolError(err)
	}
	if len(a.URIs) > wire.MaxURIs {
		return errorResult(toolerr.Invalid("uris takes at most %d files; read the rest in another call", wire.MaxURIs)), nil
	}
	c, err := s.caller(ctx)
	if err != nil {
		return s.toolError(err)
	}
	if paged {
		return s.readPage(ctx, c, a)
	}
	lr := reader.LineRequest{MaxLines: reader.DefaultLines, MaxLineChars: reader.MaxLineChars, MaxTokens: s.cfg.LineMaxTokens, Footer: lineFooter}
	if a.Offset != nil {
		lr.Offset = *a.Offset
	}
	if a.Limit != nil {
		lr.Limit = *a.Limit
	}
	if a.URI != "" {
		lr.Name = a.URI
		l, err := c.reader.ReadLines(ctx, lr)
		if err != nil {
			return s.toolError(err)
		}
		if len(l.Text) > s.cfg.MaxAnswerBytes {
			return errorResult(overBound(a.URI, len(l.Text), 0, s.cfg.MaxAnswerBytes)), nil
		}
		res := textResult(joinFooter(l))
		res.Meta = mcp.Meta{wire.MetaVersion: l.Version, wire.MetaTotalLines: l.Total, wire.MetaNextOffset: l.Next(), wire.MetaContentBytes: len(l.Text)}
		return res, nil
	}
	// One token cap for the whole answer: each file has what the files
	// before it left, and once it is spent the rest are named, not read.
	var b strings.Builder
	left := s.cfg.LineMaxTokens
	for i, name := range a.URIs {
		if err := ctx.Err(); err != nil {
			return s.toolError(err)
		}
		if left < minLineTokens {
			fmt.Fprintf(&b, "[folio] the answer's cap of %d tokens is spent; not read: %s; read them in another call\n", s.cfg.LineMaxTokens, strings.Join(a.URIs[i:], ", "))
			break
		}
		lr.Name, lr.MaxTokens = name, left
		l, err := c.reader.ReadLines(ctx, lr)
		var text string
		switch {
		case err != nil:
			text = fmt.Sprintf("=== %s ===\n%s\n", name, toolerr.From(err).JSON())
		case b.Len()+len(l.Text) > s.cfg.MaxAnswerBytes:
			text = fmt.Sprintf("=== %s ===\n%s\n", l.URI, overBound(name, len(l.Text), b.Len(), s.cfg.MaxAnswerBytes).JSON())
		default:
			text = fmt.Sprintf("=== %s ===\n%s\n", l.URI, joinFooter(l))
		}
		left -= s.cfg.Counter.Count(text)
		b.WriteString(text)
	}
	return textResult(b.String()), nil
}

// minLineTokens is the least of the token cap that one more file of a
// uris read needs: its header, its footer and a few lines.
const minLineTokens = 200

// joinFooter is the lines of l, a newline, and their footer line, as a
// text page ends: what comes before the last "\n[folio] " is the lines.
func joinFooter(l *reader.Lines) string {
	return string(l.Text) + "\n" + lineFooter(l)
}

// lineFooter is the line that follows the lines of a line-mode read:
// where they are in the file, its version, and the exact read call that
// goes on.
func lineFooter(l *reader.Lines) string {
	var b strings.Builder
	b.WriteString("[folio] ")
	b.WriteString(l.URI)
	switch {
	case l.Total == 0:
		b.WriteString(": empty file")
	case l.Count == 0:
		fmt.Fprintf(&b, ": %d lines; no line fits in the tokens this answer has left: read it alone, or in pages with max_tokens", l.Total)
	default:
		fmt.Fprintf(&b, ": lines %d-%d of %d", l.First, l.First+l.Count-1, l.Total)
	}
	b.WriteString(", version ")
	b.WriteString(l.Version)
	if len(l.Cut) > 0 {
		fmt.Fprintf(&b, "; %d line(s) cut at %d characters (first: %d), read one whole in pages: read {\"uri\":%s,\"line\":%d,\"max_tokens\":2000}",
			len(l.Cut), reader.MaxLineChars, l.Cut[0], quote(l.URI), l.Cut[0])
	}
	if l.Capped {
		b.WriteString("; stopped at the token cap")
	}
	if next := l.Next(); next > 0 {
		fmt.Fprintf(&b, "; more: read {\"uri\":%s,\"offset\":%d", quote(l.URI), next)
		if l.Limit > 0 {
			fmt.Fprintf(&b, ",\"limit\":%d", l.Limit)
		}
		b.WriteString("}")
	} else if l.Count > 0 {
		b.WriteString("; end of file")
	}
	return b.String()
}

// quote is s as a JSON string, escaped as pages are.
func quote(s string) string { return string(pager.AppendString(nil, s)) }

// readPage answers a read in page mode.
func (s *Server) readPage(ctx context.Context, c *caller, a wire.ReadArgs) (*mcp.CallToolResult, error) {
	format := s.cfg.PageFormat
	if a.Format != "" {
		format, _ = pager.ParseFormat(a.Format) // checked by Paged
	}
	pr := reader.PageRequest{Name: a.URI, Subject: c.subject, MaxTokens: *a.MaxTokens, Cursor: a.Cursor, Format: format}
	if a.Line != nil {
		pr.Line = *a.Line
	}
	p, err := c.reader.Page(ctx, pr)
	if err != nil {
		return s.toolError(err)
	}
	res := textResult(string(p.JSON))
	res.Meta = mcp.Meta{wire.MetaTokens: p.Tokens, wire.MetaTokenizer: s.cfg.Counter.Name()}
	if format == pager.Text {
		// What the footer leaves out, for programs.
		var next *string
		if p.HasMore {
			next = &p.NextCursor
		}
		res.Meta[wire.MetaURI], res.Meta[wire.MetaVersion], res.Meta[wire.MetaHasMore] = p.URI, p.Version, p.HasMore
		res.Meta[wire.MetaNextCursor], res.Meta[wire.MetaContentBytes] = next, p.End
	}
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

// errFull stops a listing at its cap.
var errFull = errors.New("listing full")

func (s *Server) list(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a wire.ListArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	maxEntries := wire.MaxEntriesLimit
	if a.MaxEntries != nil {
		maxEntries = *a.MaxEntries
	}
	depth := 1
	if a.Recursive {
		depth = 0
		if a.MaxDepth != nil {
			depth = *a.MaxDepth
		}
	} else if a.MaxDepth != nil {
		return errorResult(toolerr.Invalid("max_depth needs recursive: true")), nil
	}
	switch {
	case maxEntries < 1 || maxEntries > wire.MaxEntriesLimit:
		return errorResult(toolerr.Invalid("max_entries must be between 1 and %d", wire.MaxEntriesLimit)), nil
	case depth < 0:
		return errorResult(toolerr.Invalid("max_depth must be 0 (no limit) or more")), nil
	}
	var glob fsview.Glob
	if a.Glob != "" {
		var err error
		if glob, err = fsview.ParseGlob(a.Glob); err != nil {
			return s.toolError(err)
		}
	}
	c, err := s.caller(ctx)
	if err != nil {
		return s.toolError(err)
	}
	if roots := c.fs.Roots(); a.URI == "" && len(roots) > 1 {
		return s.listRoots(ctx, req, c, roots)
	}
	if a.URI == "" {
		a.URI = "."
	}
	d, err := c.fs.Resolve(a.URI)
	if err != nil {
		return s.toolError(err)
	}
	if !d.IsDir() {
		return errorResult(toolerr.Invalid("%s is a file, not a directory: read it", d.URI)), nil
	}
	out := wire.Listing{URI: d.URI, Root: d.RootURI(), Entries: []wire.Entry{}}
	seen := 0                                  // entries before the glob
	size := len(out.URI) + len(out.Root) + 200 // of the JSON around the entries
	err = c.fs.List(ctx, d, fsview.ListOptions{MaxDepth: depth}, func(f fsview.File) error {
		seen++
		if a.Glob != "" {
			if !glob.Match(f.RelTo(d)) {
				return nil
			}
		}
		entrySize := len(`{"path":"","type":"file","size":,"mtime":"2006-01-02T15:04:05Z"},`) + 20 + search.JSONLen(f.Rel)
		if len(out.Entries) == maxEntries || size+entrySize > s.cfg.MaxAnswerBytes {
			return errFull
		}
		size += entrySize
		e := wire.Entry{Path: f.Rel, Type: "file", MTime: f.ModTime().UTC().Format(time.RFC3339)}
		if f.IsDir() {
			e.Type = "dir"
		} else {
			size := f.Size()
			e.Size = &size
		}
		out.Entries = append(out.Entries, e)
		return nil
	})
	if errors.Is(err, errFull) {
		out.Truncated = true
		out.Note = fmt.Sprintf("the list was cut at %d entries: list a subdirectory, or use a glob or a smaller max_depth", len(out.Entries))
		if len(out.Entries) == maxEntries && maxEntries < wire.MaxEntriesLimit {
			out.Note += ", or raise max_entries"
		}
	} else if err != nil {
		return s.toolError(err)
	}
	if a.Glob != "" && len(out.Entries) == 0 && seen > 0 {
		out.Note = glob.Missed(seen, "entries", d.URI)
	}
	b, err := marshalCompact(out)
	if err != nil {
		return s.toolError(err)
	}
	return textResult(string(b)), nil
}

// listRoots answers a list without uri when several roots are served:
// the roots themselves, by their absolute paths.
func (s *Server) listRoots(ctx context.Context, req *mcp.CallToolRequest, c *caller, roots []string) (*mcp.CallToolResult, error) {
	out := wire.Listing{Entries: []wire.Entry{}, Note: "several roots are served: list one with uri set to its path"}
	for _, root := range roots {
		d, err := c.fs.Resolve(root)
		if err != nil {
			return s.toolError(err)
		}
		out.Entries = append(out.Entries, wire.Entry{Path: root, Type: "dir", MTime: d.ModTime().UTC().Format(time.RFC3339)})
	}
	b, err := marshalCompact(out)
	if err != nil {
		return s.toolError(err)
	}
	return textResult(string(b)), nil
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
