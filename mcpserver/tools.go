package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/search"
	"github.com/folio-mcp/folio/toolerr"
)

// Limits of the tools' arguments.
const (
	// MaxURIs is the most files one line-mode read takes.
	MaxURIs = 100
	// MaxEntriesLimit is the most entries list gives; a larger answer
	// folds into a handle (see package fold) long before it.
	MaxEntriesLimit = 100000
)

const readDescription = `Read a text file under the served roots.
Pages: pass uri and max_tokens. The answer is one JSON page {uri,content,version,has_more,next_cursor}; its whole text, metadata included, is at most max_tokens tokens (counted with %s). While has_more is true, call again with the same uri and max_tokens and cursor=next_cursor; the contents joined give the file exactly. On version_conflict the file changed: start again without cursor.
Lines: without max_tokens and cursor, uri with optional offset and limit (lines, from 0) gives plain text; uris reads several files, each after a line "=== <uri> ===".`

const readSchema = `{"type":"object","properties":{
"uri":{"type":"string","description":"path relative to the first root, absolute path, or file:// URI"},
"uris":{"type":"array","items":{"type":"string"},"description":"several files, line mode only"},
"offset":{"type":"integer","minimum":0,"description":"first line, line mode"},
"limit":{"type":"integer","description":"number of lines, line mode"},
"max_tokens":{"type":"integer","minimum":1,"maximum":16777216,"description":"page budget in tokens"},
"cursor":{"type":"string","description":"next_cursor of the previous page"}},
"additionalProperties":false}`

const listDescription = `List a directory under the served roots: {"uri","root","entries":[{"path","type","size","mtime"}],"truncated"}, paths relative to root, in a stable order. A large listing folds into a handle for result_query.`

const listSchema = `{"type":"object","properties":{
"uri":{"type":"string","description":"directory, default the first root"},
"recursive":{"type":"boolean"},
"max_depth":{"type":"integer","minimum":0,"description":"levels when recursive, 0 for all"},
"glob":{"type":"string","description":"doublestar glob over paths relative to uri"},
"max_entries":{"type":"integer","minimum":1,"maximum":100000,"description":"default and most 100000"}},
"additionalProperties":false}`

func (s *Server) addTools() {
	no := false
	ann := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	s.mcp.AddTool(&mcp.Tool{
		Name:        "read",
		Description: fmt.Sprintf(readDescription, s.cfg.Counter.Name()),
		InputSchema: json.RawMessage(readSchema),
		Annotations: ann,
	}, s.read)
	s.mcp.AddTool(&mcp.Tool{
		Name:        "list",
		Description: listDescription,
		InputSchema: json.RawMessage(listSchema),
		Annotations: ann,
	}, s.list)
	s.mcp.AddTool(&mcp.Tool{
		Name:        "grep",
		Description: grepDescription,
		InputSchema: json.RawMessage(grepSchema),
		Annotations: ann,
	}, s.grep)
	// Anonymous stateless calls never fold: no handle would be theirs.
	if s.cfg.Fold != nil && !(s.cfg.Stateless && s.cfg.Tokens == nil) {
		s.mcp.AddTool(&mcp.Tool{
			Name:        "result_query",
			Description: resultQueryDescription,
			InputSchema: json.RawMessage(resultQuerySchema),
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
			return invalid(fmt.Sprintf("argument %s must be a JSON %s, not %s", te.Field, kind(te.Type.String()), te.Value))
		}
		return invalid("bad arguments: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return invalid("bad arguments: more than one JSON value")
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
	e := reader.AsError(err)
	if e.Code == toolerr.CodeInternal && !errors.Is(err, context.Canceled) {
		s.log.Error("tool failed", "err", err)
	}
	return errorResult(e), nil
}

type readArgs struct {
	URI       string   `json:"uri"`
	URIs      []string `json:"uris"`
	Offset    *int     `json:"offset"`
	Limit     *int     `json:"limit"`
	MaxTokens *int     `json:"max_tokens"`
	Cursor    string   `json:"cursor"`
}

// Keys of the _meta of a page.
const (
	MetaTokens    = "folio/tokens"
	MetaTokenizer = "folio/tokenizer"
	MetaVersion   = "folio/version"
)

func (s *Server) read(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a readArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	args := reader.Args{URI: a.URI, URIs: a.URIs, Offset: a.Offset, Limit: a.Limit, MaxTokens: a.MaxTokens, Cursor: a.Cursor}
	paged, err := args.Paged()
	if err != nil {
		return s.toolError(err)
	}
	if len(a.URIs) > MaxURIs {
		return errorResult(invalid(fmt.Sprintf("uris takes at most %d files; read the rest in another call", MaxURIs))), nil
	}
	c, err := s.caller(ctx, req.Extra)
	if err != nil {
		return s.toolError(err)
	}
	if paged {
		p, err := c.reader.Page(ctx, reader.PageRequest{Name: a.URI, Subject: c.subject, MaxTokens: *a.MaxTokens, Cursor: a.Cursor})
		if err != nil {
			return s.toolError(err)
		}
		res := textResult(string(p.JSON))
		res.Meta = mcp.Meta{MetaTokens: p.Tokens, MetaTokenizer: s.cfg.Counter.Name()}
		return res, nil
	}
	offset, limit := 0, 0
	if a.Offset != nil {
		offset = *a.Offset
	}
	if a.Limit != nil {
		limit = *a.Limit
	}
	budget := s.cfg.MaxAnswerBytes
	if a.URI != "" {
		_, text, err := c.reader.Lines(ctx, a.URI, offset, limit)
		if err != nil {
			return s.toolError(err)
		}
		if len(text) > budget {
			return errorResult(overBound(a.URI, len(text), 0, budget)), nil
		}
		return textResult(string(text)), nil
	}
	// One bound for the whole answer: a file that would pass it gives an
	// error block in place of its text.
	var b strings.Builder
	for _, name := range a.URIs {
		if err := ctx.Err(); err != nil {
			return s.toolError(err)
		}
		uri, text, err := c.reader.Lines(ctx, name, offset, limit)
		if err != nil {
			text = reader.AsError(err).JSON()
			uri = name
		}
		head := fmt.Sprintf("=== %s ===\n", uri)
		if b.Len()+len(head)+len(text)+1 > budget {
			text = overBound(name, len(text), b.Len(), budget).JSON()
		}
		b.WriteString(head)
		b.Write(text)
		if len(text) > 0 && text[len(text)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return textResult(b.String()), nil
}

// overBound is the error of lines that would take an answer of used bytes
// past the bound.
func overBound(name string, size, used, bound int) *toolerr.Error {
	msg := fmt.Sprintf("the lines of %s are %d bytes, over the answer bound of %d bytes", name, size, bound)
	if used > 0 {
		msg = fmt.Sprintf("the lines of %s are %d bytes, and with the %d bytes before them the answer would pass its bound of %d bytes; read this file alone", name, size, used, bound)
	}
	return &toolerr.Error{Code: toolerr.CodeTooLarge, Message: msg + ": read it with the read tool in pages (max_tokens), or fewer lines at a time (offset and limit)"}
}

type listArgs struct {
	URI        string `json:"uri"`
	Recursive  bool   `json:"recursive"`
	MaxDepth   *int   `json:"max_depth"`
	Glob       string `json:"glob"`
	MaxEntries *int   `json:"max_entries"`
}

// Listing is the answer of the list tool.
type Listing struct {
	URI       string  `json:"uri"`
	Root      string  `json:"root"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
	Note      string  `json:"note,omitempty"`
}

// Entry is one listed file or directory.
type Entry struct {
	// Path is relative to the root.
	Path string `json:"path"`
	// Type is "file" or "dir".
	Type string `json:"type"`
	Size *int64 `json:"size,omitempty"`
	// MTime is the modification time, RFC 3339 in UTC.
	MTime string `json:"mtime"`
}

// errFull stops a listing at its cap.
var errFull = errors.New("listing full")

func (s *Server) list(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a listArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	maxEntries := MaxEntriesLimit
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
		return errorResult(invalid("max_depth needs recursive: true")), nil
	}
	switch {
	case maxEntries < 1 || maxEntries > MaxEntriesLimit:
		return errorResult(invalid(fmt.Sprintf("max_entries must be between 1 and %d", MaxEntriesLimit))), nil
	case depth < 0:
		return errorResult(invalid("max_depth must be 0 (no limit) or more")), nil
	case a.Glob != "" && !doublestar.ValidatePattern(a.Glob):
		return errorResult(invalid(fmt.Sprintf("glob %q is not a valid doublestar pattern", a.Glob))), nil
	}
	if a.URI == "" {
		a.URI = "."
	}
	c, err := s.caller(ctx, req.Extra)
	if err != nil {
		return s.toolError(err)
	}
	d, err := c.fs.Resolve(a.URI)
	if err != nil {
		return s.toolError(err)
	}
	if !d.IsDir() {
		return errorResult(invalid(fmt.Sprintf("%s is a file, not a directory: read it", d.URI))), nil
	}
	out := Listing{URI: d.URI, Root: d.RootURI(), Entries: []Entry{}}
	seen := 0                                  // entries before the glob
	size := len(out.URI) + len(out.Root) + 200 // of the JSON around the entries
	err = c.fs.List(ctx, d, fsview.ListOptions{MaxDepth: depth}, func(f fsview.File) error {
		seen++
		if a.Glob != "" {
			if ok, _ := doublestar.Match(a.Glob, f.RelTo(d)); !ok {
				return nil
			}
		}
		entrySize := len(`{"path":"","type":"file","size":,"mtime":"2006-01-02T15:04:05Z"},`) + 20 + search.JSONLen(f.Rel)
		if len(out.Entries) == maxEntries || size+entrySize > s.cfg.MaxAnswerBytes {
			return errFull
		}
		size += entrySize
		e := Entry{Path: f.Rel, Type: "file", MTime: f.ModTime().UTC().Format(time.RFC3339)}
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
		if len(out.Entries) == maxEntries && maxEntries < MaxEntriesLimit {
			out.Note += ", or raise max_entries"
		}
	} else if err != nil {
		return s.toolError(err)
	}
	if a.Glob != "" && len(out.Entries) == 0 && seen > 0 {
		out.Note = fmt.Sprintf("the glob %q matched none of the %d entries under %s: globs match paths relative to the directory listed", a.Glob, seen, d.URI)
	}
	b, err := marshalCompact(out)
	if err != nil {
		return s.toolError(err)
	}
	return s.answer(ctx, req, c, b), nil
}

func invalid(msg string) *toolerr.Error {
	return &toolerr.Error{Code: toolerr.CodeInvalidArgument, Message: msg}
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
