// Package wire is folio's tool contract as it crosses the wire: the
// arguments and answers of its tools, the _meta keys of their answers, and
// the tools' input schemas, derived from the argument types. The server
// (mcpserver) and its client (remote) both speak it from here.
package wire

import (
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
)

// The names of folio's own tools.
const (
	Read        = "read"
	List        = "list"
	Grep        = "grep"
	ResultQuery = "result_query"
)

// Keys of the _meta of a tool's answer.
const (
	// MetaTokens and MetaTokenizer: the tokens of a page, or of a
	// result_query answer given max_tokens, and what counted them.
	MetaTokens    = "folio/tokens"
	MetaTokenizer = "folio/tokenizer"
	MetaVersion   = "folio/version"
	// MetaURI, MetaHasMore and MetaNextCursor repeat a text page's footer.
	MetaURI        = "folio/uri"
	MetaHasMore    = "folio/has_more"
	MetaNextCursor = "folio/next_cursor"
	// MetaContentBytes is the length of a text page's content, or of the
	// lines of a line answer: the footer follows.
	MetaContentBytes = "folio/content_bytes"
	// MetaTotalLines, MetaNextOffset: the lines of the file, and the
	// offset that continues a line read (0 at the end).
	MetaTotalLines = "folio/total_lines"
	MetaNextOffset = "folio/next_offset"
	// MetaFirstLine, MetaLastLine: the lines a page read from a line
	// holds (the last whole or not).
	MetaFirstLine = "folio/first_line"
	MetaLastLine  = "folio/last_line"
	// MetaMatches, MetaFilesSearched, MetaTruncated: of a grep answer
	// given as text, its matching lines, the files searched, and whether
	// a limit cut it short.
	MetaMatches       = "folio/matches"
	MetaFilesSearched = "folio/files_searched"
	MetaTruncated     = "folio/truncated"
	// MetaResultHandle is the _meta key of a folded answer: {handle, uri,
	// bytes, ttlSeconds}.
	MetaResultHandle = "folio/result-handle"
)

// Limits of the tools' arguments that no other package enforces.
const (
	// MaxURIs is the most files one line-mode read takes.
	MaxURIs = 100
	// MaxEntriesLimit is the most entries list gives; a larger answer
	// folds into a handle (see package fold) long before it.
	MaxEntriesLimit = 100000
)

// ReadArgs are the arguments of read. Pointers tell an absent argument
// from a zero one.
type ReadArgs struct {
	URI       string   `json:"uri,omitempty" jsonschema:"path relative to the first root, absolute path, or file:// URI"`
	URIs      []string `json:"uris,omitempty" jsonschema:"several files, line mode only"`
	Offset    *int     `json:"offset,omitempty" jsonschema:"first line, from 1; negative: from the end"`
	Limit     *int     `json:"limit,omitempty" jsonschema:"number of lines"`
	MaxTokens *int     `json:"max_tokens,omitempty" jsonschema:"page budget in tokens"`
	Cursor    string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
	// Line is the first page's first line, counted from 1.
	Line *int `json:"line,omitempty" jsonschema:"first page starts at this line"`
	// Format is the page format's name, empty for the server's default.
	Format string `json:"format,omitempty"`
	// Numbers puts each line's number before it, as cat -n does (line
	// mode only: pages give the file's bytes).
	Numbers bool `json:"numbers,omitempty" jsonschema:"number lines, as cat -n"`
}

// Paged checks the mix of arguments and reports whether they ask for page
// mode (max_tokens or cursor) rather than line mode.
func (a ReadArgs) Paged() (bool, error) {
	paged := a.MaxTokens != nil || a.Cursor != ""
	switch {
	case paged && (a.Offset != nil || a.Limit != nil):
		return false, toolerr.Invalid("max_tokens and cursor cannot be combined with offset or limit: page with max_tokens and cursor, or read lines with offset and limit")
	case paged && len(a.URIs) > 0:
		return false, toolerr.Invalid("max_tokens and cursor read one file: pass uri, not uris")
	case a.URI != "" && len(a.URIs) > 0:
		return false, toolerr.Invalid("pass uri or uris, not both")
	case a.URI == "" && len(a.URIs) == 0:
		return false, toolerr.Invalid("uri is required")
	case a.Cursor != "" && a.MaxTokens == nil:
		return false, toolerr.Invalid("a cursor continues a paged read: pass max_tokens with it")
	case a.MaxTokens != nil && (*a.MaxTokens <= 0 || *a.MaxTokens > reader.MaxTokensLimit):
		return false, toolerr.Invalid("max_tokens must be between 1 and %d", reader.MaxTokensLimit)
	case a.Format != "" && !paged:
		return false, toolerr.Invalid("format is a page format: pass max_tokens with it")
	case a.Numbers && paged:
		return false, toolerr.Invalid("numbers is for line reads (offset and limit): a page gives the file's bytes as they are")
	case a.Line != nil && !paged:
		return false, toolerr.Invalid("line starts a paged read: pass max_tokens with it, or read lines with offset")
	case a.Line != nil && a.Cursor != "":
		return false, toolerr.Invalid("line starts the first page; a cursor continues from where the last page ended: pass one of them")
	case a.Line != nil && *a.Line < 1:
		return false, toolerr.Invalid("line counts from 1")
	case a.Limit != nil && *a.Limit < 1:
		return false, toolerr.Invalid("limit must be 1 or more lines")
	}
	if a.Format != "" {
		if _, err := pager.ParseFormat(a.Format); err != nil {
			return false, toolerr.Invalid("%s", err)
		}
	}
	return paged, nil
}

// ListArgs are the arguments of list.
type ListArgs struct {
	URI        string `json:"uri,omitempty" jsonschema:"directory"`
	Recursive  bool   `json:"recursive,omitempty"`
	MaxDepth   *int   `json:"max_depth,omitempty" jsonschema:"levels when recursive, 0 for all"`
	Glob       string `json:"glob,omitempty" jsonschema:"*.go: names at any depth; a/*.go: paths under uri"`
	MaxEntries *int   `json:"max_entries,omitempty"`
	Details    bool   `json:"details,omitempty" jsonschema:"JSON with size and mtime"`
}

// Listing is the answer of list.
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
	// MTime is the modification time, RFC 3339 in UTC, when details
	// are asked for.
	MTime string `json:"mtime,omitempty"`
}

// GrepArgs are the arguments of grep; its answer is a search.Result.
type GrepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory, default the first root"`
	Glob       string `json:"glob,omitempty" jsonschema:"*.go: names at any depth; a/*.go: paths under path"`
	Literal    bool   `json:"literal,omitempty" jsonschema:"pattern is plain text"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Context    *int   `json:"context,omitempty" jsonschema:"lines before and after each match"`
	MaxMatches *int   `json:"max_matches,omitempty"`
}

// ResultQueryArgs are the arguments of result_query.
type ResultQueryArgs struct {
	Handle    string   `json:"handle"`
	Path      string   `json:"path,omitempty"`
	Offset    *int     `json:"offset,omitempty"`
	Limit     *int     `json:"limit,omitempty"`
	Page      *int     `json:"page,omitempty" jsonschema:"from 1, in place of offset"`
	Fields    []string `json:"fields,omitempty"`
	MaxTokens *int     `json:"max_tokens,omitempty"`
}
