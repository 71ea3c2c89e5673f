package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"

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
	var out GrepResult
	if start.IsDir() {
		out, err = g.tree(ctx, c.fs, a.Path, a.Glob)
	} else if a.Glob != "" {
		return errorResult(invalid(fmt.Sprintf("glob applies to a directory, and %s is a file", start.URI))), nil
	} else {
		out, err = g.single(ctx, c.fs, a.Path)
	}
	if err != nil {
		return s.toolError(err)
	}
	b, err := marshalCompact(out)
	if err != nil {
		return s.toolError(err)
	}
	return s.answer(ctx, req, c, b), nil
}

// grepper is a compiled search. It is safe for concurrent use.
type grepper struct {
	line    *regexp.Regexp // matched against each line
	filter  *regexp.Regexp // a file without a match of this has no matching line; nil to skip the check
	context int
	max     int
}

func newGrepper(a grepArgs) (*grepper, *reader.Error) {
	g := &grepper{context: 0, max: DefaultMaxMatches}
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
	// \A and \z: patterns with them skip the check. So do case-insensitive
	// ones, which have no literal prefix to speed the check up (on src/net,
	// 89 ms without it, 124 ms with it).
	if !a.IgnoreCase && (a.Literal || !strings.Contains(a.Pattern, "$") && !strings.Contains(a.Pattern, `\A`) && !strings.Contains(a.Pattern, `\z`)) {
		// An unclosed \Q quotes the closing parenthesis too: no check then.
		g.filter, _ = regexp.Compile("(?m)(?:" + expr + ")")
	}
	return g, nil
}

// single searches the one file name, whose errors are the caller's.
func (g *grepper) single(ctx context.Context, fs *fsview.FS, name string) (GrepResult, error) {
	f, err := fs.Regular(name)
	if err != nil {
		return GrepResult{}, err
	}
	snap, err := fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return GrepResult{}, err
	}
	var out collected
	out.add(g, g.file(f.URI, snap.Window))
	return out.result(g), nil
}

// fileJob is one file of a tree search; done closes when hits is set.
type fileJob struct {
	f    fsview.File
	hits *fileHits // nil: not searched (not text, over the cap, or gone)
	done chan struct{}
}

// tree searches the visible text files under dir, several at once, and
// gives their matches in walk order.
func (g *grepper) tree(ctx context.Context, fs *fsview.FS, dir, glob string) (GrepResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan *fileJob, workers)
	order := make(chan *fileJob, 4*workers)
	walked := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		walked <- fs.Walk(ctx, dir, func(f fsview.File, err error) error {
			if err != nil {
				return nil // hidden: denied, or a symlink that leads out
			}
			if glob != "" {
				if ok, _ := doublestar.Match(glob, f.Rel); !ok {
					return nil
				}
			}
			j := &fileJob{f: f, done: make(chan struct{})}
			select {
			case order <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
			jobs <- j
			return nil
		})
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				if snap, err := fs.Snapshot(ctx, j.f, 0, -1); err == nil {
					j.hits = g.file(j.f.URI, snap.Window)
				}
				close(j.done)
			}
		})
	}
	var out collected
	for j := range order {
		<-j.done
		if j.hits != nil && out.add(g, j.hits) {
			cancel()
			break
		}
	}
	for j := range order {
		<-j.done // let the walker and the workers finish
	}
	wg.Wait()
	if err := <-walked; err != nil && !out.Truncated {
		return GrepResult{}, err
	}
	return out.result(g), nil
}

// fileHits is what one file gave: its lines, each with the number (from 1)
// of the match it goes with, and its matches, counted up to the limit
// plus one.
type fileHits struct {
	lines   []GrepLine
	groups  []int
	matches int
}

// collected gathers files' hits in order, up to the match limit.
type collected struct {
	GrepResult
	found int
}

// add takes a file's hits and reports whether the limit was passed.
func (c *collected) add(g *grepper, h *fileHits) bool {
	c.FilesSearched++
	room := g.max - c.found
	for i, line := range h.lines {
		if h.groups[i] > room {
			c.Truncated = true
			break
		}
		c.Matches = append(c.Matches, line)
	}
	c.found += min(h.matches, room)
	return c.Truncated
}

func (c *collected) result(g *grepper) GrepResult {
	out := c.GrepResult
	if out.Matches == nil {
		out.Matches = []GrepLine{}
	}
	if out.Truncated {
		out.Note = fmt.Sprintf("stopped at %d matches: narrow the pattern, path or glob, or raise max_matches", g.max)
	}
	return out
}

// file searches one file's text, stopping once it has found more than the
// match limit.
func (g *grepper) file(uri string, text []byte) *fileHits {
	h := &fileHits{}
	if g.filter != nil && !g.filter.Match(text) {
		return h
	}
	last := 0  // the last line given, so that context lines are not repeated
	after := 0 // context lines still to give after a match
	type held struct {
		n    int
		text []byte
	}
	var before []held // the lines before the current one, up to context
	give := func(n int, text []byte, context bool, group int) {
		h.lines = append(h.lines, GrepLine{URI: uri, Line: n, Text: string(text), Context: context})
		h.groups = append(h.groups, group)
		last = n
	}
	for n := 1; len(text) > 0 && h.matches <= g.max; n++ {
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
			h.matches++
			for _, b := range before {
				if b.n > last {
					give(b.n, b.text, true, h.matches)
				}
			}
			before = before[:0]
			give(n, line, false, h.matches)
			after = g.context
		case after > 0:
			give(n, line, true, h.matches)
			after--
		case g.context > 0:
			if len(before) == g.context {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, held{n, line})
		}
	}
	return h
}
