// Package wire is folio's tool contract as it crosses the wire: the
// arguments and answers of its tools, the limits of those arguments, the
// _meta keys of their answers, the tools' input schemas, derived from
// the argument types, and the prefix that starts an answer's notes
// (NotePrefix). The server (mcpserver) and its client (remote) both
// speak it from here; it depends on nothing of the server, so that a
// client does not build the server's packages.
package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/folio-mcp/folio/toolerr"
)

// The names of folio's own tools.
const (
	Read        = "read"
	List        = "list"
	Grep        = "grep"
	ResultQuery = "result_query"
)

// The names of the meta-tools that stand in for the upstream tools in
// the gateway's search mode.
const (
	FindTools     = "find_tools"
	DescribeTools = "describe_tools"
	CallTool      = "call_tool"
)

// Keys of the _meta of a tool's answer.
const (
	// MetaTokens and MetaTokenizer: the tokens of a page, or of a
	// result_query answer given max_tokens, and what counted them.
	MetaTokens    = "folio/tokens"
	MetaTokenizer = "folio/tokenizer"
	MetaVersion   = "folio/version"
	// MetaFormat is the format of the page a read answers (json or
	// text), so that a client reads it without guessing.
	MetaFormat = "folio/format"
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
	// MetaPassages: how many passages a search_docs answer holds.
	MetaPassages = "folio/passages"
	MetaLastLine = "folio/last_line"
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

// Limits of the tools' arguments. The packages that do the work (reader,
// grep) hold their callers to the same limits, from here.
const (
	// MaxTokensLimit is the largest max_tokens read, outline and
	// result_query accept (search_docs' is MaxAnswerTokens).
	MaxTokensLimit = 1 << 24
	// MaxPaths is the most files one line-mode read takes.
	MaxPaths = 100
	// MaxEntriesLimit is the most entries list gives; a larger answer
	// folds into a handle (see package fold) long before it.
	MaxEntriesLimit = 100000
	// DefaultMaxMatches is how many matches a grep gives when not told.
	DefaultMaxMatches = 1000
	// MaxMatchesLimit is the most matches a grep gives.
	MaxMatchesLimit = 100000
	// MaxContext is the most context lines around each match.
	MaxContext = 20
	// DefaultFound and MaxFound are how many tools find_tools gives when
	// not told and at most, and MaxFound how many describe_tools takes.
	DefaultFound = 5
	MaxFound     = 20
)

// CheckMaxTokens is the one check of a budget: a max_tokens n out of 1 to
// most is invalid_argument, in the same words for every tool and for the
// packages that take a budget (reader, fold); nil when it is within.
func CheckMaxTokens(n, most int) *toolerr.Error {
	if n < 1 || n > most {
		return toolerr.Invalid("max_tokens must be between 1 and %d", most)
	}
	return nil
}

// checkMaxTokens is CheckMaxTokens of an argument that may be absent
// (nil), as it may be in every tool's arguments.
func checkMaxTokens(n *int, most int) *toolerr.Error {
	if n == nil {
		return nil
	}
	return CheckMaxTokens(*n, most)
}

// Args are a tool's arguments: Check reports the first argument out of
// its limits or out of place beside the others, as invalid_argument, or
// nil. (What only the server can judge, such as a path or a pattern, it
// judges when it does the work.)
type Args interface {
	Check() *toolerr.Error
}

// ReadArgs are the arguments of read. Pointers tell an absent argument
// from a zero one.
type ReadArgs struct {
	Path      string   `json:"path,omitempty"`
	Paths     []string `json:"paths,omitempty" jsonschema:"several files, line mode only"`
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
	// Section keeps the read to one section of the file: named by its
	// heading path or by "#" and its anchor (see outline.Doc.Find).
	Section string `json:"section,omitempty" jsonschema:"heading title or path, or #anchor; repeat with cursor"`
	// FormerPath and FormerPaths are path and paths by their former
	// names, uri and uris (see Rename).
	FormerPath  string   `json:"uri,omitempty"`
	FormerPaths []string `json:"uris,omitempty"`
}

// Paged checks the arguments (see Check) and reports whether they ask
// for page mode (max_tokens or cursor) rather than line mode.
func (a ReadArgs) Paged() (bool, error) {
	if e := a.Check(); e != nil {
		return false, e
	}
	return a.PageMode(), nil
}

// PageMode reports whether the arguments ask for pages (max_tokens or
// cursor) rather than lines.
func (a ReadArgs) PageMode() bool { return a.MaxTokens != nil || a.Cursor != "" }

// Check reports the first argument of read out of its limits or out of
// place: the mix of page and line mode's arguments, and their ranges,
// with former names read as the names they now are (see Rename). A page
// format's name is the server's to judge (its formats are in package
// pager).
func (a ReadArgs) Check() *toolerr.Error {
	if e := a.Rename(); e != nil {
		return e
	}
	paged := a.PageMode()
	switch {
	case paged && (a.Offset != nil || a.Limit != nil):
		return toolerr.Invalid("max_tokens and cursor cannot be combined with offset or limit: page with max_tokens and cursor, or read lines with offset and limit")
	case paged && len(a.Paths) > 0:
		return toolerr.Invalid("max_tokens and cursor read one file: pass path, not paths")
	case a.Path != "" && len(a.Paths) > 0:
		return toolerr.Invalid("pass path or paths, not both")
	case a.Path == "" && len(a.Paths) == 0:
		return toolerr.Invalid("path is required: the file to read")
	case a.Cursor != "" && a.MaxTokens == nil:
		return toolerr.Invalid("a cursor continues a paged read: pass max_tokens with it")
	}
	if e := checkMaxTokens(a.MaxTokens, MaxTokensLimit); e != nil {
		return e
	}
	if a.Format != "" && !paged {
		return toolerr.Invalid("format is a page format: pass max_tokens with it")
	}
	return a.checkLines(paged)
}

// checkLines is Check for the arguments that start a read at a line or
// number its lines, and the count of paths.
func (a ReadArgs) checkLines(paged bool) *toolerr.Error {
	switch {
	case a.Numbers && paged:
		return toolerr.Invalid("numbers is for line reads (offset and limit): a page gives the file's bytes as they are")
	case a.Line != nil && !paged:
		return toolerr.Invalid("line starts a paged read: pass max_tokens with it, or read lines with offset")
	case a.Line != nil && a.Cursor != "":
		return toolerr.Invalid("line starts the first page; a cursor continues from where the last page ended: pass one of them")
	case a.Line != nil && *a.Line < 1:
		return toolerr.Invalid("line counts from 1")
	case a.Limit != nil && *a.Limit < 1:
		return toolerr.Invalid("limit must be 1 or more lines")
	case len(a.Paths) > MaxPaths:
		return toolerr.Invalid("paths takes at most %d files; read the rest in another call", MaxPaths)
	case a.Section != "" && (strings.TrimSpace(a.Section) == "" || len(a.Section) > MaxSectionBytes):
		return toolerr.Invalid("section must be a heading path or #anchor of at most %d bytes", MaxSectionBytes)
	case a.Section != "" && len(a.Paths) > 0:
		return toolerr.Invalid("section is of one file: pass path, not paths")
	case a.Section != "" && a.Line != nil:
		return toolerr.Invalid("line and section both start a read: pass one of them")
	}
	return nil
}

// ListArgs are the arguments of list.
type ListArgs struct {
	Path       string `json:"path,omitempty"`
	Recursive  bool   `json:"recursive,omitempty"`
	MaxDepth   *int   `json:"max_depth,omitempty" jsonschema:"levels when recursive, 0 for all"`
	Glob       string `json:"glob,omitempty" jsonschema:"*.go: names at any depth; a/*.go: paths under path"`
	MaxEntries *int   `json:"max_entries,omitempty"`
	Details    bool   `json:"details,omitempty" jsonschema:"JSON with size and mtime"`
	// FormerPath is path by its former name, uri (see Rename).
	FormerPath string `json:"uri,omitempty"`
}

// Check reports the first argument of list out of its limits or out of
// place.
func (a ListArgs) Check() *toolerr.Error {
	if e := a.Rename(); e != nil {
		return e
	}
	switch {
	case !a.Recursive && a.MaxDepth != nil:
		return toolerr.Invalid("max_depth needs recursive: true")
	case a.MaxEntries != nil && (*a.MaxEntries < 1 || *a.MaxEntries > MaxEntriesLimit):
		return toolerr.Invalid("max_entries must be between 1 and %d", MaxEntriesLimit)
	case a.MaxDepth != nil && *a.MaxDepth < 0:
		return toolerr.Invalid("max_depth must be 0 (no limit) or more")
	}
	return nil
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

// GrepArgs are the arguments of grep; its answer is a grep.Result.
type GrepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path,omitempty"`
	Glob       string `json:"glob,omitempty" jsonschema:"*.go: names at any depth; a/*.go: paths under path"`
	Literal    bool   `json:"literal,omitempty" jsonschema:"pattern is plain text"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Context    *int   `json:"context,omitempty" jsonschema:"lines before and after each match"`
	MaxMatches *int   `json:"max_matches,omitempty"`
	// FormerPath is path by its former name, uri (see Rename).
	FormerPath string `json:"uri,omitempty"`
}

// Check reports the first argument of grep out of its limits. (Whether
// the pattern compiles is the searcher's to judge.)
func (a GrepArgs) Check() *toolerr.Error {
	if e := a.Rename(); e != nil {
		return e
	}
	switch {
	case a.Pattern == "":
		return toolerr.Invalid("pattern is required and cannot be empty")
	case a.Context != nil && (*a.Context < 0 || *a.Context > MaxContext):
		return toolerr.Invalid("context must be between 0 and %d lines", MaxContext)
	case a.MaxMatches != nil && (*a.MaxMatches < 1 || *a.MaxMatches > MaxMatchesLimit):
		return toolerr.Invalid("max_matches must be between 1 and %d", MaxMatchesLimit)
	}
	return nil
}

// ResultQueryArgs are the arguments of result_query. They are judged
// with the folded answer they read (see fold.Query), so they have no
// Check of their own.
type ResultQueryArgs struct {
	Handle    string   `json:"handle"`
	Path      string   `json:"path,omitempty"`
	Offset    *int     `json:"offset,omitempty"`
	Limit     *int     `json:"limit,omitempty"`
	Page      *int     `json:"page,omitempty" jsonschema:"from 1, in place of offset"`
	Fields    []string `json:"fields,omitempty"`
	MaxTokens *int     `json:"max_tokens,omitempty"`
}

// FindToolsArgs are the arguments of find_tools.
type FindToolsArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit,omitempty"`
}

// Check reports a query with no words or a limit out of range.
func (a FindToolsArgs) Check() *toolerr.Error {
	if strings.TrimSpace(a.Query) == "" || a.Limit != nil && (*a.Limit < 1 || *a.Limit > MaxFound) {
		return toolerr.Invalid("query must say what you want done, and limit be between 1 and %d", MaxFound)
	}
	return nil
}

// DescribeToolsArgs are the arguments of describe_tools.
type DescribeToolsArgs struct {
	Names []string `json:"names"`
}

// Check reports too few or too many names.
func (a DescribeToolsArgs) Check() *toolerr.Error {
	if len(a.Names) < 1 || len(a.Names) > MaxFound {
		return toolerr.Invalid("names takes 1 to %d tool names, as find_tools gives them", MaxFound)
	}
	return nil
}

// CallToolArgs are the arguments of call_tool: the name of the upstream
// tool to call, and its arguments (an object; absent or null for none).
type CallToolArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Check reports a name that is no upstream tool's (empty, or a
// meta-tool's) and arguments that are no object.
func (a CallToolArgs) Check() *toolerr.Error {
	switch a.Name {
	case "", FindTools, DescribeTools, CallTool:
		return toolerr.Invalid("name must be a tool's, as find_tools gives it")
	}
	if args := bytes.TrimSpace(a.Arguments); len(args) > 0 && string(args) != "null" && args[0] != '{' {
		return toolerr.Invalid("arguments must be an object: the tool's arguments by name")
	}
	return nil
}
