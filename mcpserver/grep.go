package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
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
	g, e := newGrepper(a, s.cfg.MaxAnswerBytes)
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
	if !start.IsDir() && a.Glob != "" {
		return errorResult(invalid(fmt.Sprintf("glob applies to a directory, and %s is a file", start.URI))), nil
	}
	// The time budget ends the search, not the call: what was found by
	// then is answered, marked truncated.
	search, cancel := context.WithTimeoutCause(ctx, s.cfg.GrepTimeout, errGrepTimeout)
	defer cancel()
	var out collected
	if start.IsDir() {
		err = g.tree(search, c.fs, a.Path, a.Glob, &out)
	} else {
		err = g.single(search, c.fs, a.Path, &out)
	}
	if errors.Is(context.Cause(search), errGrepTimeout) && ctx.Err() == nil {
		out.stop(fmt.Sprintf("the search stopped at its time budget of %v: narrow the pattern, path or glob", s.cfg.GrepTimeout))
		err = nil
	}
	if err != nil {
		return s.toolError(err)
	}
	b, err := marshalCompact(out.result())
	if err != nil {
		return s.toolError(err)
	}
	return s.answer(ctx, req, c, b), nil
}

// errGrepTimeout is the cause of a search's end at its time budget.
var errGrepTimeout = errors.New("grep time budget spent")

// MaxPatternInsts bounds the size of a compiled pattern. RE2's time is
// linear in the text times the program: a program this size can cost about
// 0.7 s of CPU per 100 KB of text, and the time budget bounds the rest.
const MaxPatternInsts = 1000

// grepper is a compiled search. It is safe for concurrent use.
type grepper struct {
	literal  []byte         // searched for as is, when set; else line
	line     *regexp.Regexp // matched against each line
	filter   *regexp.Regexp // a chunk of lines without a match of this has no matching line; nil to skip the check
	context  int
	max      int
	maxBytes int // the answer's JSON stops before this size
	chunk    int // chunkBytes, but for tests
}

func newGrepper(a grepArgs, maxBytes int) (*grepper, *toolerr.Error) {
	g := &grepper{context: 0, max: DefaultMaxMatches, maxBytes: maxBytes, chunk: chunkBytes}
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
	if a.Literal && !a.IgnoreCase {
		// Found by bytes.Index, in time linear in the text whatever its length.
		g.literal = []byte(a.Pattern)
		return g, nil
	}
	expr := a.Pattern
	if a.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err == nil {
		var prog *syntax.Prog
		if prog, err = syntax.Compile(re.Simplify()); err == nil && len(prog.Inst) > MaxPatternInsts {
			return nil, invalid(fmt.Sprintf("pattern is too complex: it compiles to %d instructions, and the most is %d; use a shorter pattern or smaller repeat counts", len(prog.Inst), MaxPatternInsts))
		}
	}
	if err == nil {
		g.line, err = regexp.Compile(expr)
	}
	if err != nil {
		return nil, invalid(fmt.Sprintf("pattern is not a valid RE2 regular expression: %v; pass literal: true to search for plain text", err))
	}
	// With ^ at every line, a line's match is also a match in a chunk of
	// whole lines. $ is not (multi-line $ does not match before "\r\n"),
	// nor are \A and \z: patterns with them skip the check. So do
	// case-insensitive ones, which have no literal prefix to speed the
	// check up (on src/net, 89 ms without it, 124 ms with it).
	if !a.IgnoreCase && !strings.Contains(a.Pattern, "$") && !strings.Contains(a.Pattern, `\A`) && !strings.Contains(a.Pattern, `\z`) {
		// An unclosed \Q quotes the closing parenthesis too: no check then.
		g.filter, _ = regexp.Compile("(?m)(?:" + expr + ")")
	}
	return g, nil
}

// single searches the one file name, whose errors are the caller's.
func (g *grepper) single(ctx context.Context, fs *fsview.FS, name string, out *collected) error {
	f, err := fs.Regular(name)
	if err != nil {
		return err
	}
	snap, err := fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return err
	}
	defer snap.Release()
	out.add(g, g.file(ctx, f.URI, snap.Window))
	return ctx.Err()
}

// fileJob is one file of a tree search; done closes when hits is set.
type fileJob struct {
	f    fsview.File
	hits *fileHits // nil: not searched (not text, over the cap, or gone)
	done chan struct{}
}

// tree searches the visible text files under dir, several at once, and
// gathers their matches in walk order into out.
func (g *grepper) tree(ctx context.Context, fs *fsview.FS, dir, glob string, out *collected) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
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
					j.hits = g.file(ctx, j.f.URI, snap.Window)
					snap.Release()
				}
				close(j.done)
			}
		})
	}
	for j := range order {
		<-j.done
		if j.hits != nil && out.add(g, j.hits) {
			cancel(errFull)
			break
		}
	}
	for j := range order {
		<-j.done // let the walker and the workers finish
	}
	wg.Wait()
	if err := <-walked; err != nil && !errors.Is(context.Cause(ctx), errFull) {
		return err
	}
	return nil
}

// fileHits is what one file gave: its lines, each with the number (from 1)
// of the match it goes with, and its matches, counted up to the limit
// plus one.
type fileHits struct {
	lines   []GrepLine
	groups  []int
	matches int
	bytes   int // of the lines' JSON
}

// collected gathers files' hits in order, up to the match and byte limits.
type collected struct {
	GrepResult
	found int
	bytes int
}

// add takes a file's hits and reports whether a limit was passed.
func (c *collected) add(g *grepper, h *fileHits) bool {
	c.FilesSearched++
	room := g.max - c.found
	for i, line := range h.lines {
		if h.groups[i] > room {
			c.stop(fmt.Sprintf("stopped at %d matches: narrow the pattern, path or glob, or raise max_matches", g.max))
			return true
		}
		size := lineBytes(line)
		if c.bytes+size > g.maxBytes {
			c.stop(fmt.Sprintf("stopped before the answer passed %d bytes: narrow the pattern, path or glob, or ask for less context", g.maxBytes))
			return true
		}
		c.bytes += size
		c.Matches = append(c.Matches, line)
	}
	c.found += min(h.matches, room)
	return false
}

// stop marks the answer truncated, with a note that says why and what to
// do; the first reason stands.
func (c *collected) stop(note string) {
	if !c.Truncated {
		c.Truncated, c.Note = true, note
	}
}

func (c *collected) result() GrepResult {
	out := c.GrepResult
	if out.Matches == nil {
		out.Matches = []GrepLine{}
	}
	return out
}

// lineBytes bounds the size of a line in the answer's JSON from above.
func lineBytes(l GrepLine) int {
	return len(`{"uri":"","line":,"text":"","context":true},`) + 20 + jsonLen(l.URI) + jsonLen(l.Text)
}

// jsonLen bounds the length of s as a JSON string's contents from above.
func jsonLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			n++
		case c < 0x20:
			n += 5
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
			n += 3 // U+2028 and U+2029 go out as \u2028 and \u2029
		}
	}
	return n
}

// chunkBytes is how much text grep searches between looks at its context:
// whole lines, or one longer line, which it then matches a rune at a time.
const chunkBytes = 64 << 10

// file searches one file's text, stopping once it has found more than the
// match limit, its lines would pass the byte limit, or ctx ends (then it
// gives what it found so far).
func (g *grepper) file(ctx context.Context, uri string, text []byte) *fileHits {
	h := &fileHits{}
	last := 0             // the last line given, so that context lines are not repeated
	after := 0            // context lines still to give after a match
	var before []heldLine // the lines before the current one, up to context
	give := func(n int, text []byte, context bool, group int) {
		l := GrepLine{URI: uri, Line: n, Text: string(text), Context: context}
		h.lines = append(h.lines, l)
		h.groups = append(h.groups, group)
		h.bytes += lineBytes(l)
		last = n
	}
	n := 0 // lines before the chunk
	for len(text) > 0 && h.matches <= g.max && h.bytes <= g.maxBytes && ctx.Err() == nil {
		chunk := nextChunk(text, g.chunk)
		text = text[len(chunk):]
		if after == 0 && g.filter != nil && len(chunk) <= g.chunk && !g.filter.Match(chunk) {
			n, before = skipChunk(chunk, n, before, g.context)
			continue
		}
		for len(chunk) > 0 && h.matches <= g.max {
			n++
			var line []byte
			if end := bytes.IndexByte(chunk, '\n'); end < 0 {
				line, chunk = chunk, nil
			} else {
				line, chunk = chunk[:end], chunk[end+1:]
			}
			line = bytes.TrimSuffix(line, []byte("\r"))
			switch {
			case g.match(ctx, line):
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
				before = hold(before, heldLine{n, line}, g.context)
			}
		}
	}
	return h
}

// heldLine is a line kept for the context before a match.
type heldLine struct {
	n    int
	text []byte
}

// hold appends l to the lines held, keeping the last max.
func hold(before []heldLine, l heldLine, max int) []heldLine {
	if len(before) == max {
		before = append(before[:0], before[1:]...)
	}
	return append(before, l)
}

// nextChunk is the whole lines at the start of text that fit in size bytes,
// or its first line when that is longer.
func nextChunk(text []byte, size int) []byte {
	if len(text) <= size {
		return text
	}
	if i := bytes.LastIndexByte(text[:size], '\n'); i >= 0 {
		return text[:i+1]
	}
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		return text[:i+1]
	}
	return text
}

// skipChunk passes over a chunk of lines with no match: it returns the
// number of the chunk's last line (n was the one before it) and the lines
// held for context, the chunk's last ones.
func skipChunk(chunk []byte, n int, before []heldLine, context int) (int, []heldLine) {
	lines := bytes.Count(chunk, []byte("\n"))
	if chunk[len(chunk)-1] != '\n' {
		lines++
	}
	if context == 0 {
		return n + lines, before
	}
	// The last context lines, found from the end.
	var tail [][]byte
	rest := bytes.TrimSuffix(chunk, []byte("\n"))
	for len(tail) < context && len(tail) < lines {
		i := bytes.LastIndexByte(rest, '\n')
		tail = append(tail, bytes.TrimSuffix(rest[i+1:], []byte("\r")))
		if i < 0 {
			break
		}
		rest = rest[:i]
	}
	if len(tail) < context {
		// Short chunk: lines held from before it come first.
		keep := min(len(before), context-len(tail))
		before = append(before[:0], before[len(before)-keep:]...)
	} else {
		before = before[:0]
	}
	for i := len(tail) - 1; i >= 0; i-- {
		before = append(before, heldLine{n + lines - i, tail[i]})
	}
	return n + lines, before
}

// match reports whether line matches. A line longer than a chunk is read a
// rune at a time, so that the match ends soon after ctx does.
func (g *grepper) match(ctx context.Context, line []byte) bool {
	switch {
	case g.literal != nil:
		return bytes.Contains(line, g.literal)
	case len(line) <= g.chunk:
		return g.line.Match(line)
	}
	return g.line.MatchReader(&runeReader{ctx: ctx, b: line})
}

// runeReader reads the runes of b until ctx ends, then gives io.EOF.
type runeReader struct {
	ctx  context.Context
	b    []byte
	read int
}

func (r *runeReader) ReadRune() (rune, int, error) {
	if r.read++; r.read%4096 == 0 && r.ctx.Err() != nil {
		return 0, 0, io.EOF
	}
	if len(r.b) == 0 {
		return 0, 0, io.EOF
	}
	c, size := utf8.DecodeRune(r.b)
	r.b = r.b[size:]
	return c, size, nil
}
