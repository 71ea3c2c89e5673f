package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/reader"
)

// Limits of grep.
const (
	// DefaultMaxMatches is how many matches grep gives when not told.
	DefaultMaxMatches = 1000
	// MaxMatchesLimit is the most matches grep gives.
	MaxMatchesLimit = 100000
	// MaxContext is the most context lines around each match.
	MaxContext = 20
)

const grepDescription = `Search the text files under the served roots for a regular expression (RE2 syntax, per line). Answers {"matches":[{"uri","line","text"}],"files_searched","truncated"}; lines count from 1, and context lines carry "context":true.`

const grepSchema = `{"type":"object","properties":{
"pattern":{"type":"string"},
"path":{"type":"string","description":"file or directory, default the first root"},
"glob":{"type":"string","description":"doublestar glob over paths relative to the root"},
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

// GrepResult is the answer of the grep tool.
type GrepResult struct {
	Matches       []GrepLine `json:"matches"`
	FilesSearched int        `json:"files_searched"`
	Truncated     bool       `json:"truncated"`
	Note          string     `json:"note,omitempty"`
}

// GrepLine is a matching line, or a line of context around one.
type GrepLine struct {
	URI     string `json:"uri"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Context bool   `json:"context,omitempty"`
}

// errEnough stops a search at its match limit.
var errEnough = errors.New("enough matches")

func (s *Server) grep(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a grepArgs
	if e := decodeArgs(req.Params.Arguments, &a); e != nil {
		return errorResult(e), nil
	}
	g, e := newGrepper(a)
	if e != nil {
		return errorResult(e), nil
	}
	if a.Path == "" {
		a.Path = "."
	}
	c, err := s.caller(ctx, req.Extra)
	if err != nil {
		return s.toolError(err)
	}
	start, err := c.fs.Resolve(a.Path)
	if err != nil {
		return s.toolError(err)
	}
	if !start.IsDir() {
		if a.Glob != "" {
			return errorResult(invalid(fmt.Sprintf("glob applies to a directory, and %s is a file", start.URI))), nil
		}
		err = grepFile(ctx, c.fs, g, a.Path)
	} else {
		err = c.fs.Walk(ctx, a.Path, func(f fsview.File, err error) error {
			if err != nil {
				return nil // hidden: denied, or a symlink that leads out
			}
			if a.Glob != "" {
				if ok, _ := doublestar.Match(a.Glob, f.Rel); !ok {
					return nil
				}
			}
			snap, err := c.fs.Snapshot(ctx, f, 0, -1)
			if err != nil {
				// Not text, over the size cap, or gone: not searched.
				return ctx.Err()
			}
			return g.file(f.URI, snap.Window)
		})
	}
	if errors.Is(err, errEnough) {
		g.out.Truncated = true
		g.out.Note = fmt.Sprintf("stopped at %d matches: narrow the pattern, path or glob, or raise max_matches", g.max)
	} else if err != nil {
		return s.toolError(err)
	}
	b, err := marshalCompact(g.out)
	if err != nil {
		return s.toolError(err)
	}
	return s.answer(ctx, req, c, b), nil
}

// grepFile searches the one file name, whose errors are the caller's.
func grepFile(ctx context.Context, fs *fsview.FS, g *grepper, name string) error {
	f, err := fs.Regular(name)
	if err != nil {
		return err
	}
	snap, err := fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return err
	}
	return g.file(f.URI, snap.Window)
}

// grepper matches lines and collects the answer.
type grepper struct {
	line    *regexp.Regexp // matched against each line
	filter  *regexp.Regexp // a file without a match of this has no matching line; nil to skip the check
	context int
	max     int
	found   int
	out     GrepResult
}

func newGrepper(a grepArgs) (*grepper, *reader.Error) {
	g := &grepper{context: 0, max: DefaultMaxMatches, out: GrepResult{Matches: []GrepLine{}}}
	if a.Context != nil {
		g.context = *a.Context
	}
	if a.MaxMatches != nil {
		g.max = *a.MaxMatches
	}
	switch {
	case a.Pattern == "":
		return nil, invalid("pattern is required and cannot be empty")
	case g.context < 0 || g.context > MaxContext:
		return nil, invalid(fmt.Sprintf("context must be between 0 and %d lines", MaxContext))
	case g.max < 1 || g.max > MaxMatchesLimit:
		return nil, invalid(fmt.Sprintf("max_matches must be between 1 and %d", MaxMatchesLimit))
	case a.Glob != "" && !doublestar.ValidatePattern(a.Glob):
		return nil, invalid(fmt.Sprintf("glob %q is not a valid doublestar pattern", a.Glob))
	}
	expr := a.Pattern
	if a.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	var err error
	if g.line, err = regexp.Compile(expr); err != nil {
		return nil, invalid(fmt.Sprintf("pattern is not a valid RE2 regular expression: %v; pass literal: true to search for plain text", err))
	}
	// With ^ at every line, a line's match is also a match in the whole
	// file. $ is not (multi-line $ does not match before "\r\n"), nor are
	// \A and \z: patterns with them skip the check.
	if a.Literal || !strings.Contains(a.Pattern, "$") && !strings.Contains(a.Pattern, `\A`) && !strings.Contains(a.Pattern, `\z`) {
		// An unclosed \Q quotes the closing parenthesis too: no check then.
		g.filter, _ = regexp.Compile("(?m)(?:" + expr + ")")
	}
	return g, nil
}

// file searches one file's text.
func (g *grepper) file(uri string, text []byte) error {
	g.out.FilesSearched++
	if g.filter != nil && !g.filter.Match(text) {
		return nil
	}
	last := 0  // the last line given, so that context lines are not repeated
	after := 0 // context lines still to give after a match
	type held struct {
		n    int
		text []byte
	}
	var before []held // the lines before the current one, up to context
	give := func(n int, text []byte, context bool) {
		g.out.Matches = append(g.out.Matches, GrepLine{URI: uri, Line: n, Text: string(text), Context: context})
		last = n
	}
	for n := 1; len(text) > 0; n++ {
		end := bytes.IndexByte(text, '\n')
		var line []byte
		if end < 0 {
			line, text = text, nil
		} else {
			line, text = text[:end], text[end+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case g.line.Match(line):
			if g.found == g.max {
				return errEnough
			}
			g.found++
			for _, b := range before {
				if b.n > last {
					give(b.n, b.text, true)
				}
			}
			before = before[:0]
			give(n, line, false)
			after = g.context
		case after > 0:
			give(n, line, true)
			after--
		case g.context > 0:
			if len(before) == g.context {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, held{n, line})
		}
	}
	return nil
}
