// Package grep searches an fsview line by line: a regular expression (RE2) or
// plain text matched against each line of every visible text file under a
// path, several files at once, the matches given in walk order. Its time
// and its answer are bounded.
package grep

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// Limits and defaults of a search; the first three are grep's, as the
// tool contract (package wire) states them.
const (
	// DefaultMaxMatches is how many matches a search gives when not told.
	DefaultMaxMatches = wire.DefaultMaxMatches
	// MaxMatchesLimit is the most matches a search gives.
	MaxMatchesLimit = wire.MaxMatchesLimit
	// MaxContext is the most context lines around each match.
	MaxContext = wire.MaxContext
	// DefaultMaxBytes bounds the answer's JSON when not told: 8 MiB.
	DefaultMaxBytes = 8 << 20
	// DefaultTimeout is the time budget when not told.
	DefaultTimeout = 10 * time.Second
)

// Options are what a search looks for and its bounds.
type Options struct {
	Pattern string
	// Literal: the pattern is plain text.
	Literal    bool
	IgnoreCase bool
	// Context is how many lines before and after each match to give.
	Context int
	// MaxMatches, from 1 to MaxMatchesLimit (DefaultMaxMatches is the
	// grep tool's default), bounds the matches.
	MaxMatches int
	// MaxBytes (of the answer's JSON) and Timeout bound the search; their
	// defaults when 0.
	MaxBytes int
	Timeout  time.Duration
}

// Result is what a search found, as the grep tool answers it.
type Result struct {
	Matches       []Line `json:"matches"`
	FilesSearched int    `json:"files_searched"`
	Truncated     bool   `json:"truncated"`
	Note          string `json:"note,omitempty"`
}

// Line is a matching line, or a line of context around one.
type Line struct {
	// Path names the file as read takes it: relative to the first root,
	// or absolute in another root.
	Path string `json:"path"`
	// Line counts from 1.
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Context bool   `json:"context,omitempty"`
}

// Causes of a search's early end: its time budget, and a limit reached.
var (
	errTimeout = errors.New("search time budget spent")
	errFull    = errors.New("search limit reached")
)

// MaxPatternInsts bounds the size of a compiled pattern. RE2's time is
// linear in the text times the program: a program this size can cost about
// 0.7 s of CPU per 100 KB of text, and the time budget bounds the rest.
const MaxPatternInsts = 1000

// Searcher is a compiled search. It is safe for concurrent use.
type Searcher struct {
	literal []byte         // searched for as is, when set; else line
	line    *regexp.Regexp // matched against each line
	filter  *regexp.Regexp // a chunk of lines without a match of this has no matching line; nil to skip the check
	// folded, for a case-insensitive search, is text every match holds,
	// ASCII lowercased: a chunk without it in any case has no matching
	// line (see mayHold); nil to skip the check.
	folded   []byte
	context  int
	max      int
	maxBytes int // the answer's JSON stops before this size
	chunk    int // chunkBytes, but for tests
	timeout  time.Duration
}

// New compiles a search. Arguments out of their limits and patterns that
// are not valid RE2 (or compile to over MaxPatternInsts instructions) are
// *toolerr.Error with CodeInvalidArgument.
func New(o Options) (*Searcher, error) {
	g := &Searcher{context: o.Context, max: o.MaxMatches, maxBytes: o.MaxBytes, chunk: chunkBytes, timeout: o.Timeout}
	if g.maxBytes <= 0 {
		g.maxBytes = DefaultMaxBytes
	}
	if g.timeout <= 0 {
		g.timeout = DefaultTimeout
	}
	if err := g.checkArgs(o.Pattern); err != nil {
		return nil, err
	}
	if o.Literal && !o.IgnoreCase {
		// Found by bytes.Index, in time linear in the text whatever its length.
		g.literal = []byte(o.Pattern)
		return g, nil
	}
	expr := o.Pattern
	if o.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if o.IgnoreCase {
		expr = "(?i)" + expr
	}
	var err error
	if g.line, err = compileLine(expr); err != nil {
		return nil, err
	}
	// With ^ at every line, a line's match is also a match in a chunk of
	// whole lines. $ is not (multi-line $ does not match before "\r\n"),
	// nor are \A and \z: patterns with them skip the check. So do
	// case-insensitive ones, which have no literal prefix to speed the
	// check up (on src/net, 89 ms without it, 124 ms with it).
	if !o.IgnoreCase && !strings.Contains(o.Pattern, "$") && !strings.Contains(o.Pattern, `\A`) && !strings.Contains(o.Pattern, `\z`) {
		// An unclosed \Q quotes the closing parenthesis too: no check then.
		g.filter, _ = regexp.Compile("(?m)(?:" + expr + ")")
	}
	if o.IgnoreCase {
		g.folded = foldedPrefix(o)
	}
	return g, nil
}

// checkArgs checks the pattern and g's bounds, as New took them, in the
// order their errors are told.
func (g *Searcher) checkArgs(pattern string) error {
	switch {
	case pattern == "":
		return toolerr.Invalid("pattern is required and cannot be empty")
	case g.context < 0 || g.context > MaxContext:
		return toolerr.Invalid("context must be between 0 and %d lines", MaxContext)
	case g.max < 1 || g.max > MaxMatchesLimit:
		return toolerr.Invalid("max_matches must be between 1 and %d", MaxMatchesLimit)
	}
	return nil
}

// compileLine compiles expr, the regular expression matched against each
// line, once its program is known to be within MaxPatternInsts.
func compileLine(expr string) (*regexp.Regexp, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err == nil {
		var prog *syntax.Prog
		if prog, err = syntax.Compile(re.Simplify()); err == nil && len(prog.Inst) > MaxPatternInsts {
			return nil, toolerr.Invalid("pattern is too complex: it compiles to %d instructions, and the most is %d; use a shorter pattern or smaller repeat counts", len(prog.Inst), MaxPatternInsts)
		}
	}
	var line *regexp.Regexp
	if err == nil {
		line, err = regexp.Compile(expr)
	}
	if err != nil {
		return nil, toolerr.Invalid("pattern is not a valid RE2 regular expression: %v; pass literal: true to search for plain text", err)
	}
	return line, nil
}

// foldedPrefix is what every match of a case-insensitive search holds,
// ASCII lowercased: the literal, or the pattern's literal prefix; nil when
// there is none, or it is not ASCII (whose case folding is not one byte
// to one).
func foldedPrefix(o Options) []byte {
	prefix := o.Pattern
	if !o.Literal {
		re, err := regexp.Compile(o.Pattern)
		if err != nil {
			return nil
		}
		prefix, _ = re.LiteralPrefix()
	}
	if prefix == "" {
		return nil
	}
	out := make([]byte, len(prefix))
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if c >= utf8.RuneSelf {
			return nil
		}
		out[i] = lowerASCII(c)
	}
	return out
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldASCII writes src into dst, as long, with each ASCII capital
// lowercased (lowerASCII), eight bytes at a time.
func foldASCII(dst, src []byte) {
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
		// Added to a byte's low seven bits, these set its high bit
		// when it is 'A' or more, and when it is more than 'Z'.
		fromA  = 0x3f3f3f3f3f3f3f3f // 0x80 - 'A'
		aboveZ = 0x2525252525252525 // 0x7f - 'Z'
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		b := x & low7
		capital := (b + fromA) &^ (b + aboveZ) &^ x & high
		binary.LittleEndian.PutUint64(dst[i:], x|capital>>2)
	}
	for ; i < len(src); i++ {
		dst[i] = lowerASCII(src[i])
	}
}

// scratchPool holds the buffers that mayHold lowercases chunks into.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// The letters outside ASCII that fold to ASCII ones: the Kelvin sign to
// k, the long s to s.
var (
	kelvin = []byte("\u212A")
	longS  = []byte("\u017F")
)

// mayHold reports whether chunk may hold a match of a case-insensitive
// search: whether it holds g.folded in any case (scratch is reused for the
// chunk lowercased).
func (g *Searcher) mayHold(chunk []byte, scratch *[]byte) bool {
	low := slices.Grow((*scratch)[:0], len(chunk))[:len(chunk)]
	foldASCII(low, chunk)
	*scratch = low
	if bytes.Contains(low, g.folded) {
		return true
	}
	k, s := bytes.IndexByte(g.folded, 'k') >= 0, bytes.IndexByte(g.folded, 's') >= 0
	return (k && bytes.Contains(chunk, kelvin)) || (s && bytes.Contains(chunk, longS))
}

// Search searches the file or the directory path (a name as fsview's
// Resolve takes it); glob (see fsview.Glob) narrows a directory's files. Files that are not text or are over
// the size cap are skipped in a directory, and an error when named. In a
// directory, a symlink to a file is searched as that file (one that leads
// out of the roots, or to a denied or ignored file, is not), and each file
// once: by its own name when the search finds it by that name, else under
// the first symlink to it. At the match limit, the byte limit or the time
// budget the search stops and answers what it found, truncated, with a
// note that says why.
func (g *Searcher) Search(ctx context.Context, fs *fsview.FS, path, glob string) (Result, error) {
	var narrow *fsview.Glob
	if glob != "" {
		parsed, err := fsview.ParseGlob(glob)
		if err != nil {
			return Result{}, err
		}
		narrow = &parsed
	}
	start, err := fs.Resolve(path)
	if err != nil {
		return Result{}, err
	}
	if !start.IsDir() && glob != "" {
		return Result{}, toolerr.Invalid("glob applies to a directory, and %s is a file", start.URI)
	}
	// The time budget ends the search, not the call: what was found by
	// then is answered, marked truncated.
	search, cancel := context.WithTimeoutCause(ctx, g.timeout, errTimeout)
	defer cancel()
	var out collected
	if start.IsDir() {
		err = g.tree(search, fs, start, narrow, &out)
	} else {
		err = g.single(search, fs, path, &out)
	}
	if errors.Is(context.Cause(search), errTimeout) && ctx.Err() == nil {
		out.stop(fmt.Sprintf("the search stopped at its time budget of %v: narrow the pattern, path or glob", g.timeout))
		err = nil
	}
	if err != nil {
		return Result{}, err
	}
	return out.result(), nil
}

// single searches the one file name, whose errors are the caller's.
func (g *Searcher) single(ctx context.Context, fs *fsview.FS, name string, out *collected) error {
	f, err := fs.Regular(name)
	if err != nil {
		return err
	}
	snap, err := fs.Content(ctx, f)
	if err != nil {
		return err
	}
	defer snap.Release()
	out.add(g, g.file(ctx, fs.Name(f), snap.Window))
	return ctx.Err()
}

// maxKeptBuffer is the most memory a tree search's worker keeps from one
// file for the next to be read into.
const maxKeptBuffer = 1 << 20

// fileJob is one file of a tree search; done closes when hits is set.
type fileJob struct {
	f    *fsview.Entry
	hits *fileHits // nil: not searched (not text, over the cap, or gone)
	done chan struct{}
}

// tree searches the visible text files under dir, several at once, and
// gathers their matches in walk order into out.
func (g *Searcher) tree(ctx context.Context, fs *fsview.FS, dir fsview.File, glob *fsview.Glob, out *collected) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	workers := runtime.GOMAXPROCS(0)
	t := &treeSearch{g: g, fs: fs, dir: dir, glob: glob, jobs: make(chan *fileJob, workers), order: make(chan *fileJob, 4*workers)}
	walked := make(chan error, 1)
	go func() {
		defer close(t.jobs)
		defer close(t.order)
		walked <- t.walk(ctx)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { t.work(ctx) })
	}
	if t.gather(out) {
		cancel(errFull)
	}
	for j := range t.order {
		<-j.done // let the walker and the workers finish
	}
	wg.Wait()
	if err := <-walked; err != nil && !errors.Is(context.Cause(ctx), errFull) {
		return err
	}
	// Ended before its files were searched (the caller left, or the time
	// budget ran out) after the walk was done: what was found is not the
	// answer.
	if err := ctx.Err(); err != nil && !errors.Is(context.Cause(ctx), errFull) {
		return err
	}
	t.note(out)
	return nil
}

// treeSearch is a tree search of dir, narrowed by glob: its walker gives
// the files to search to jobs, for its workers, and to order, in walk
// order, for the matches to be gathered.
type treeSearch struct {
	g           *Searcher
	fs          *fsview.FS
	dir         fsview.File
	glob        *fsview.Glob
	jobs, order chan *fileJob
	// files and matched count the files walked and those glob matched:
	// written by the walker, read after it is done.
	files, matched int
	skipped        fsview.Skips // what the ignore files kept from the walk
}

// walk walks the tree and gives each file to search, once, to the workers
// and the gatherer.
func (t *treeSearch) walk(ctx context.Context) error {
	linked := map[string]bool{} // the files symlinks led to, by URI
	return t.fs.WalkFiles(ctx, t.dir.Path, t.skipped.Add, t.keep, func(f *fsview.Entry, err error) error {
		if err != nil {
			return nil // hidden: denied, or a symlink that leads out
		}
		if !searchedFirst(f, t.dir, t.glob, linked) {
			f.Drop()
			return nil
		}
		j := &fileJob{f: f, done: make(chan struct{})}
		select {
		case t.order <- j:
		case <-ctx.Done():
			f.Drop()
			return ctx.Err()
		}
		t.jobs <- j
		return nil
	})
}

// keep counts the file f the walk found, and reports whether the glob, if
// any, matches it.
func (t *treeSearch) keep(f fsview.File) bool {
	t.files++
	if t.glob != nil && !t.glob.Match(f.RelTo(t.dir)) {
		return false
	}
	t.matched++
	return true
}

// work searches the files of the jobs it takes until there are no more.
func (t *treeSearch) work(ctx context.Context) {
	var buf []byte // each file is read into the memory of the one before
	for j := range t.jobs {
		if snap, err := t.fs.ReadEntry(ctx, j.f, buf); err == nil {
			j.hits = t.g.file(ctx, t.fs.Name(j.f.File), snap.Window)
			snap.Release()
			if cap(snap.Window) <= maxKeptBuffer {
				buf = snap.Window
			}
		}
		close(j.done)
	}
}

// gather adds the matches of the files searched to out, in walk order,
// until out is full, which it reports.
func (t *treeSearch) gather(out *collected) (full bool) {
	for j := range t.order {
		<-j.done
		if j.hits != nil && out.add(t.g, j.hits) {
			return true
		}
	}
	return false
}

// note tells in out's note why the search found nothing, when it can:
// the glob matched none of the files walked, or the ignore files may have
// kept the matches from it.
func (t *treeSearch) note(out *collected) {
	if t.glob != nil && t.matched == 0 && t.files > 0 && !out.Truncated {
		out.Note = t.glob.Missed(t.files, "file", "files", t.dir.URI)
	}
	if len(out.Matches) == 0 && out.Note == "" {
		// Nothing found: perhaps where the ignore files keep it.
		out.Note = t.skipped.Note("not searched", "name one as path to search it")
	}
}

// searchedFirst reports whether a tree search of dir, narrowed by glob,
// searches the entry e: a file is searched once per search, by its own
// name when the search finds it by that name, else under the first
// symlink to it (in walk order). linked holds the files symlinks led to
// so far.
func searchedFirst(e *fsview.Entry, dir fsview.File, glob *fsview.Glob, linked map[string]bool) bool {
	t, walked := e.Target()
	switch {
	case t.URI == "":
		return true // no symlink
	case walked && (glob == nil || glob.Match(t.RelTo(dir))):
		return false // searched by its own name
	case linked[t.URI]:
		return false
	}
	linked[t.URI] = true
	return true
}

// fileHits is what one file gave: its lines, each with the number (from 1)
// of the match it goes with, and its matches, counted up to the limit
// plus one.
type fileHits struct {
	lines   []Line
	groups  []int
	matches int
	bytes   int // of the lines' JSON
}

// collected gathers files' hits in order, up to the match and byte limits.
type collected struct {
	Result
	found int
	bytes int
}

// add takes a file's hits and reports whether a limit was passed.
func (c *collected) add(g *Searcher, h *fileHits) bool {
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

func (c *collected) result() Result {
	out := c.Result
	if out.Matches == nil {
		out.Matches = []Line{}
	}
	return out
}

// lineBytes bounds the size of a line in the answer's JSON from above.
func lineBytes(l Line) int {
	return len(`{"path":"","line":,"text":"","context":true},`) + 20 + JSONLen(l.Path) + JSONLen(l.Text)
}

// JSONLen bounds from above the length of s as the contents of a JSON
// string, as encoding/json escapes it: what a search (or a listing) adds
// to an answer.
func JSONLen(s string) int {
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
func (g *Searcher) file(ctx context.Context, path string, text []byte) *fileHits {
	h := &fileHits{}
	last := 0             // the last line given, so that context lines are not repeated
	after := 0            // context lines still to give after a match
	var before []heldLine // the lines before the current one, up to context
	give := func(n int, text []byte, context bool, group int) {
		l := Line{Path: path, Line: n, Text: string(text), Context: context}
		h.lines = append(h.lines, l)
		h.groups = append(h.groups, group)
		h.bytes += lineBytes(l)
		last = n
	}
	n := 0 // lines before the chunk
	scratch := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(scratch)
	for len(text) > 0 && h.matches <= g.max && h.bytes <= g.maxBytes && ctx.Err() == nil {
		chunk := nextChunk(text, g.chunk)
		text = text[len(chunk):]
		if after == 0 && len(chunk) <= g.chunk && ((g.filter != nil && !g.filter.Match(chunk)) || (g.folded != nil && !g.mayHold(chunk, scratch))) {
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
func (g *Searcher) match(ctx context.Context, line []byte) bool {
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
