package reader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/outline"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// Bounds of the work of one outline of a directory: past any of them it
// stops, and its cursor goes on.
const (
	// OutlineFiles is the most files one outline of a directory reads.
	OutlineFiles = 1000
	// OutlineBytes is the most bytes of files it reads (the file that
	// passes it is read whole).
	OutlineBytes = 32 << 20
	// OutlineEntries is the most entries of the listing it looks at
	// (directories, and files that are not text, included).
	OutlineEntries = 10000
)

// OutlineRequest asks for the outline of a file or of a directory.
type OutlineRequest struct {
	// Name is a path or file:// URI.
	Name string
	// Subject is the caller's identity; cursors are bound to it.
	Subject string
	// MaxTokens bounds the outline's text, counted whole.
	MaxTokens int
	// MaxBytes bounds its bytes too; 0 for no bound.
	MaxBytes int
	// Cursor is the NextCursor of the previous outline, empty for the
	// first.
	Cursor string
	// More is the line that ends an outline cut short: how to go on with
	// cursor (its wording is the caller's).
	More func(name, cursor string) string
}

// Outline is an outline as the text a caller reads: for a file, a line
// "first-last tokens ## Title" for each section (the section's lines and
// the exact tokens of its bytes, "#" as many as its level, and " {#anchor}"
// after a title that another section has too), after a line that names
// the file with its lines and tokens; for a directory, a line "tokens
// path # Title" for each text file under it (as List shows them, in its
// order), its title when it has one. Notes are lines that start
// "[folio] ".
type Outline struct {
	Text string
	// Tokens is the counter's count of Text.
	Tokens int
	// Version is a file's version, "" for a directory.
	Version string
	// NextCursor goes on where Text stops; "" at the end.
	NextCursor string
}

// Outline outlines the file or directory req names, within its bounds: a
// cursor goes on from where the last outline stopped, bound to the URI
// and the subject, and for a file to its version (a changed file is a
// version_conflict); a directory's cursor carries the path it goes on
// after.
func (r *Reader) Outline(ctx context.Context, req OutlineRequest) (*Outline, error) {
	if e := wire.CheckMaxTokens(req.MaxTokens, MaxTokensLimit); e != nil {
		return nil, e
	}
	f, err := r.fs.Resolve(req.Name)
	if err != nil {
		return nil, toolerr.From(err)
	}
	if f.IsDir() {
		return r.dirOutline(ctx, f, req)
	}
	if f, err = r.fs.Regular(req.Name); err != nil {
		return nil, toolerr.From(err)
	}
	return r.fileOutline(ctx, f, req)
}

// outlineBound is what an outline's cursor of the file or directory at
// uri is bound to (see boundTo).
func outlineBound(uri string) string { return uri + "#outline" }

// fileOutline is the outline of the file f: its sections from the one
// the cursor names (by its index) on.
func (r *Reader) fileOutline(ctx context.Context, f fsview.File, req OutlineRequest) (*Outline, error) {
	st := cursor.State{Issued: r.cursors.Now().Truncate(time.Second)}
	var cl *cursor.Claim
	if req.Cursor != "" {
		c, err := cursor.Parse(req.Cursor)
		if err != nil {
			return nil, toolerr.From(err)
		}
		cl = &c
	}
	// The answer is smaller than the file, and takes about 4 bytes a
	// token (a larger one takes the rest when it is made).
	answer := min(f.Size(), int64(req.MaxTokens)*4)
	if req.MaxBytes > 0 {
		answer = min(answer, int64(req.MaxBytes))
	}
	if err := fsview.Reserve(ctx, f.Size(), answer); err != nil {
		return nil, toolerr.From(err)
	}
	snap, err := r.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, toolerr.From(err)
	}
	defer snap.Release()
	if cl != nil {
		if st, err = r.verify(snap, *cl, outlineBound(snap.URI), req.Subject); err != nil {
			return nil, err
		}
	}
	doc := outline.Of(f.Path, snap.Window)
	if st.Offset > int64(len(doc.Sections)) {
		return nil, toolerr.From(fmt.Errorf("%w: it is past the file's last heading", cursor.ErrInvalid))
	}
	name := r.fs.Name(f)
	o := r.outlineText(req, name, fmt.Sprintf("%s: %d lines, %d tokens\n", pathText(name), countLines(snap.Window), r.counter.Count(string(snap.Window))))
	repeated := repeatedTitles(doc)
	from := int(st.Offset)
	for i := from; i < len(doc.Sections) && o.add(r.sectionLine(doc, i, snap.Window, repeated)); i++ {
	}
	out := &Outline{Version: snap.Version.String()}
	var tailErr error
	out.Text, out.Tokens, err = o.finish(func(n int) string {
		if from+n == len(doc.Sections) {
			out.NextCursor = ""
			if len(doc.Sections) == 0 {
				return wire.Note("no headings")
			}
			return ""
		}
		at := st
		at.Offset, at.Version = int64(from+n), snap.Version.Short()
		out.NextCursor, tailErr = r.cursors.Encode(at, outlineBound(snap.URI), req.Subject)
		return req.More(name, out.NextCursor) + "\n"
	})
	if err == nil {
		err = tailErr
	}
	if err != nil {
		return nil, toolerr.From(err)
	}
	return out, nil
}

// sectionLine is the outline's line of section i of doc, whose text is
// src.
func (r *Reader) sectionLine(doc *outline.Doc, i int, src []byte, repeated map[string]bool) string {
	s := doc.Sections[i]
	line := fmt.Sprintf("%d-%d %d %s %s", s.First, s.Last, r.counter.Count(string(src[s.Start:s.End])), strings.Repeat("#", s.Level), oneLine(s.Title))
	if repeated[strings.ToLower(s.Title)] {
		line += " {#" + oneLine(s.Anchor) + "}"
	}
	return line + "\n"
}

// repeatedTitles are the titles (in lower case) that more than one
// section of doc has.
func repeatedTitles(doc *outline.Doc) map[string]bool {
	seen := map[string]int{}
	for _, s := range doc.Sections {
		seen[strings.ToLower(s.Title)]++
	}
	out := map[string]bool{}
	for t, n := range seen {
		if n > 1 {
			out[t] = true
		}
	}
	return out
}

// errOutlineFull stops the walk of a directory's outline.
var errOutlineFull = errors.New("outline full")

// dirOutlineWalk is where a directory's outline stands in its walk.
type dirOutlineWalk struct {
	rels     []string // of each line's file
	last     string   // the last entry looked at
	stopped  string   // why the walk stopped short of the end, "" when it did not
	rejected bool     // a file's line did not fit
	entries  int
	files    int
	bytes    int64
	skipped  fsview.Skips
}

// dirOutline is the outline of the directory d: the text files under it,
// from the path after which the cursor goes on.
func (r *Reader) dirOutline(ctx context.Context, d fsview.File, req OutlineRequest) (*Outline, error) {
	after, st, err := r.dirCursor(d, req)
	if err != nil {
		return nil, err
	}
	o := r.outlineText(req, r.fs.Name(d), "")
	w := &dirOutlineWalk{}
	err = r.fs.List(ctx, d, fsview.ListOptions{After: after, Skipped: w.skipped.Add}, func(f fsview.File) error {
		return r.outlineEntry(ctx, f, o, w)
	})
	if err != nil && !errors.Is(err, errOutlineFull) {
		return nil, toolerr.From(err)
	}
	out := &Outline{}
	var tailErr error
	out.Text, out.Tokens, err = o.finish(func(n int) string {
		var notes []string
		resume := ""
		switch {
		case n < len(w.rels) || w.rejected:
			resume = w.rels[n-1]
		case w.stopped != "":
			resume = w.last
			notes = append(notes, w.stopped)
		case n == 0 && after == "":
			notes = append(notes, "no text files")
		case n == 0:
			notes = append(notes, "no more text files")
		}
		if note := w.skipped.Note("not outlined", "outline one by its path to see it"); note != "" {
			notes = append(notes, note)
		}
		var b strings.Builder
		for _, note := range notes {
			b.WriteString(wire.Note(note))
		}
		out.NextCursor = ""
		if resume != "" {
			out.NextCursor, tailErr = r.dirNext(st, d, resume, req.Subject)
			b.WriteString(req.More(r.fs.Name(d), out.NextCursor) + "\n")
		}
		return b.String()
	})
	if err == nil {
		err = tailErr
	}
	if err != nil {
		return nil, toolerr.From(err)
	}
	return out, nil
}

// outlineEntry adds the line of the entry f of a directory's walk w to o,
// when f is a text file, or stops the walk (errOutlineFull).
func (r *Reader) outlineEntry(ctx context.Context, f fsview.File, o *outlineText, w *dirOutlineWalk) error {
	switch {
	case w.entries == OutlineEntries:
		w.stopped = fmt.Sprintf("stopped after %d entries", OutlineEntries)
	case w.files == OutlineFiles:
		w.stopped = fmt.Sprintf("stopped after %d files", OutlineFiles)
	case w.bytes >= OutlineBytes:
		w.stopped = fmt.Sprintf("stopped after %d MiB read", OutlineBytes>>20)
	}
	if w.stopped != "" {
		return errOutlineFull
	}
	w.entries++
	if f.IsDir() || !r.fs.LooksText(f) {
		w.last = f.Rel
		return nil
	}
	snap, err := r.fs.Content(ctx, f)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Gone, or not text after all: left out, as a listing would.
		w.last = f.Rel
		return nil
	}
	w.files++
	w.bytes += int64(len(snap.Window))
	line := strconv.Itoa(r.counter.Count(string(snap.Window))) + " " + pathText(r.fs.Name(f))
	if title := outline.Of(f.Path, snap.Window).Title; title != "" {
		line += " # " + oneLine(title)
	}
	snap.Release()
	if !o.add(line + "\n") {
		w.rejected = true
		return errOutlineFull
	}
	w.rels = append(w.rels, f.Rel)
	w.last = f.Rel
	return nil
}

// dirCursor reads a directory outline's cursor: "digits:path", the path
// (relative to the root) the walk goes on after, bound to the directory,
// the subject and (as the cursor's version) the path itself.
func (r *Reader) dirCursor(d fsview.File, req OutlineRequest) (string, cursor.State, error) {
	st := cursor.State{Issued: r.cursors.Now().Truncate(time.Second)}
	if req.Cursor == "" {
		return "", st, nil
	}
	digits, after, ok := strings.Cut(req.Cursor, ":")
	if !ok {
		return "", st, toolerr.From(fmt.Errorf("%w: not a directory's outline cursor", cursor.ErrInvalid))
	}
	cl, err := cursor.Parse(digits)
	if err != nil {
		return "", st, toolerr.From(err)
	}
	st, err = r.cursors.Verify(cl, fsview.VersionOf([]byte(after)).Short(), outlineBound(d.URI), req.Subject)
	if errors.Is(err, cursor.ErrChanged) {
		// Its version is its path: a cursor whose path was changed.
		err = fmt.Errorf("%w: it was changed", cursor.ErrInvalid)
	}
	if err != nil {
		return "", st, toolerr.From(err)
	}
	return after, st, nil
}

// dirNext is the cursor that goes on after the path rel in the outline of
// the directory d.
func (r *Reader) dirNext(st cursor.State, d fsview.File, rel, subject string) (string, error) {
	st.Offset, st.Version = 0, fsview.VersionOf([]byte(rel)).Short()
	c, err := r.cursors.Encode(st, outlineBound(d.URI), subject)
	return c + ":" + rel, err
}

// outlineText gathers an outline's lines while they fit in its bounds,
// counted line by line, and then cuts them to what fits counted whole.
type outlineText struct {
	counter             pager.Counter
	maxTokens, maxBytes int
	head                string
	lines               []string
	tokens, bytes       int
	// reserve is the tokens and bytes kept for the More line (a
	// directory's cursor and notes take more: finish cuts to what fits).
	reserve, reserveBytes int
}

// outlineText starts the text of an outline of name that req asks for,
// after head, keeping room for a More line with the longest cursor.
func (r *Reader) outlineText(req OutlineRequest, name, head string) *outlineText {
	more := req.More(name, strings.Repeat("9", cursor.MaxLen)) + "\n"
	return &outlineText{counter: r.counter, maxTokens: req.MaxTokens, maxBytes: req.MaxBytes, head: head,
		tokens: r.counter.Count(head), bytes: len(head), reserve: r.counter.Count(more), reserveBytes: len(more)}
}

// add takes line when it fits, by the sum of the counts; the first line
// is always taken (finish judges it).
func (o *outlineText) add(line string) bool {
	n := o.counter.Count(line)
	over := o.tokens+n+o.reserve > o.maxTokens || o.maxBytes > 0 && o.bytes+len(line)+o.reserveBytes > o.maxBytes
	if over && len(o.lines) > 0 {
		return false
	}
	o.tokens += n
	o.bytes += len(line)
	o.lines = append(o.lines, line)
	return true
}

// finish is the outline's text, its head, the most lines that fit and
// tail(n) after n lines, counted whole, and its tokens; budget_too_small
// when not even one line fits. tail's last call is for the lines given.
func (o *outlineText) finish(tail func(n int) string) (string, int, error) {
	text := func(n int) (string, int) {
		s := o.head + strings.Join(o.lines[:n], "") + tail(n)
		return s, o.counter.Count(s)
	}
	n := len(o.lines)
	s, c := text(n)
	if c <= o.maxTokens && (o.maxBytes == 0 || len(s) <= o.maxBytes) {
		return s, c, nil
	}
	lo, hi := min(n, 1), n // hi does not fit
	if s, c = text(lo); c > o.maxTokens || o.maxBytes > 0 && len(s) > o.maxBytes {
		return "", 0, toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d is too small for this outline: it needs at least %d; retry with max_tokens of %d or more", o.maxTokens, c, c)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if s, c := text(mid); c <= o.maxTokens && (o.maxBytes == 0 || len(s) <= o.maxBytes) {
			lo = mid
		} else {
			hi = mid
		}
	}
	s, c = text(lo)
	return s, c, nil
}

// oneLine is s with its control characters as spaces: a title or a path
// that cannot pass for more lines of an outline.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// pathText is a path as an outline names it: as it is, but quoted as a
// JSON string when it holds a control character or is empty.
func pathText(p string) string {
	if p == "" || oneLine(p) != p {
		return string(jsonvalue.AppendString(nil, p))
	}
	return p
}
