package reader

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
)

// Bounds of a line read as an agent makes it.
const (
	// DefaultLines bounds the lines of one answer to an agent, with or
	// without limit.
	DefaultLines = 2000
	// MaxLineChars is where a longer line is cut.
	MaxLineChars = 2000
	// DefaultLineMaxTokens is the default token cap of a line answer.
	DefaultLineMaxTokens = 25000
)

// LineRequest asks for lines of one file. Lines count from 1.
type LineRequest struct {
	// Name is a path or file:// URI.
	Name string
	// Offset is the first line, from 1 (0 is the same as 1); a negative
	// offset counts from the end: -100 is the last 100 lines.
	Offset int
	// Limit is how many lines the caller asked for, repeated in the call
	// that goes on; 0 asks for all that the other bounds let through.
	Limit int
	// MaxLines bounds the lines of one answer whatever Limit says; 0 is
	// no bound.
	MaxLines int
	// MaxLineChars cuts longer lines, with a marker; 0 never cuts.
	MaxLineChars int
	// MaxTokens caps the tokens of the lines and their footer; 0 is no
	// cap.
	MaxTokens int
	// Footer is the line that follows the lines in the answer (its wording
	// is the caller's), counted within MaxTokens; nil for none.
	Footer func(*Lines) string
	// Numbered puts each line's number before it, as cat -n does: right
	// aligned in six columns, then a tab.
	Numbered bool
	// Section, when not empty, names a section of the file (see
	// outline.Doc.Find) that the read keeps to: Offset is still the
	// file's line number, within the section (0 for its first line;
	// negative counts back from its last).
	Section string
}

// Lines is what a line read gives.
type Lines struct {
	// URI is the file's canonical URI, and Name the file as a read takes
	// it (relative to the first root, else absolute).
	URI, Name string
	// Version is the BLAKE3 version of the whole file.
	Version string
	// Text is the lines, each with its own line ending; a cut line ends
	// with its marker.
	Text []byte
	// First is the number of the first line given (from 1); Count how
	// many were given; Total how many the file holds.
	First, Count, Total int
	// Cut holds the numbers of the lines cut at MaxLineChars.
	Cut []int
	// Capped says the token cap stopped the answer before the limit.
	Capped bool
	// Limit is the request's limit, and Numbered whether the lines carry
	// their numbers: both are repeated in the call that continues.
	Limit    int
	Numbered bool
	// Section is the section the read kept to, nil for none.
	Section *SectionLines
}

// SectionLines is the section a line read kept to: the request's
// Section, and the lines of the file it spans.
type SectionLines struct {
	Query       string
	First, Last int
}

// Next is the offset that continues the read, 0 when the last line of
// the file (or of the section) was given.
func (l *Lines) Next() int {
	if l.First+l.Count > l.last() {
		return 0
	}
	return l.First + l.Count
}

// last is the last line the read may give: the file's, or its section's.
func (l *Lines) last() int {
	if l.Section != nil {
		return l.Section.Last
	}
	return l.Total
}

// footer is the footer of l, "" without one.
func (req LineRequest) footer(l *Lines) string {
	if req.Footer == nil {
		return ""
	}
	return req.Footer(l)
}

// ReadLines reads lines of a file, bounded as req says: the file's own
// bytes, but for cut lines.
func (r *Reader) ReadLines(ctx context.Context, req LineRequest) (*Lines, error) {
	if req.Limit < 0 {
		return nil, toolerr.Invalid("limit must be 1 or more lines")
	}
	f, err := r.fs.Open(ctx, req.Name)
	if err != nil {
		return nil, toolerr.From(err)
	}
	if req.Section != "" {
		return r.sectionLines(ctx, f, req)
	}
	x, ok := r.fs.LineIndexOf(f)
	if !ok && r.fs.Settled(f) {
		// Indexed as it is read, without holding it: the lines are then
		// read alone. (A file not settled is read whole, once: each
		// window of a version not trusted would be hashed whole again.)
		if x, err = r.fs.IndexFile(ctx, f); err != nil {
			return nil, toolerr.From(err)
		}
		ok = true
	}
	if ok {
		if l, err := r.indexedLines(ctx, f, x, req); !errors.Is(err, errMoved) {
			return l, err
		}
	}
	snap, err := r.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, toolerr.From(err)
	}
	// The lines are copied out: the read memory is given back now, but
	// for the room of the answer (see fsview.Snapshot.Keep).
	defer snap.Release()
	r.fs.IndexLines(snap)
	l, _, err := r.lines(ctx, snap.Window, 1, true, countLines(snap.Window), &Lines{URI: snap.URI, Name: r.fs.Name(f), Version: snap.Version.String()}, req)
	if err != nil {
		return nil, err
	}
	snap.Keep(ctx, int64(len(l.Text)))
	return l, nil
}

// errMoved: the file is not the version its line index is of (any more).
var errMoved = errors.New("the file changed since its lines were indexed")

// lineWindow is the first window an indexed line read takes; it grows
// fourfold while the lines asked for run past it.
const lineWindow = 256 << 10

// indexedLines reads lines of f through its line index x: from the
// indexed line at or before the first asked for, a window that grows
// until it holds the lines the answer gives. errMoved when f is no longer
// x's version.
func (r *Reader) indexedLines(ctx context.Context, f fsview.File, x *fsview.LineIndex, req LineRequest) (*Lines, error) {
	first := firstLine(req.Offset, x.Lines)
	line, off := x.Locate(first + 1)
	for want := int64(lineWindow); ; want *= 4 {
		snap, err := r.fs.Snapshot(ctx, f, off, want)
		if err != nil {
			return nil, errMoved
		}
		if snap.Version != x.Version {
			snap.Release()
			return nil, errMoved
		}
		l, more, err := r.lines(ctx, snap.Window, line, snap.EOF(), x.Lines, &Lines{URI: snap.URI, Name: r.fs.Name(f), Version: snap.Version.String()}, req)
		if err == nil && !more {
			snap.Keep(ctx, int64(len(l.Text)))
		}
		snap.Release()
		if err != nil || !more {
			return l, err
		}
	}
}

// firstLine is the line (from 0) a read at offset starts, in a text of
// total lines.
func firstLine(offset, total int) int {
	switch {
	case offset < 0:
		return max(total+offset, 0)
	case offset == 0:
		return 0
	}
	return offset - 1
}

// LinesOf reads lines of text that is not a file (standard input), named
// name (its URI and Name), its version the BLAKE3 of text, bounded as req
// says (req.Name is not used).
func (r *Reader) LinesOf(ctx context.Context, text []byte, name string, req LineRequest) (*Lines, error) {
	if req.Limit < 0 {
		return nil, toolerr.Invalid("limit must be 1 or more lines")
	}
	if err := fsview.CheckText(text, name); err != nil {
		return nil, toolerr.From(err)
	}
	l, _, err := r.lines(ctx, text, 1, true, countLines(text), &Lines{URI: name, Name: name, Version: fsview.VersionOf(text).String()}, req)
	return l, err
}

// lines reads into l the lines req asks for of a text of total lines
// that l names, from b: its bytes from line bLine (from 1) on, to its end
// when eof. more says b ended before the lines the answer gives did: read
// more of the text and ask again.
func (r *Reader) lines(ctx context.Context, b []byte, bLine int, eof bool, total int, l *Lines, req LineRequest) (_ *Lines, more bool, _ error) {
	l.Total, l.Limit, l.Numbered = total, req.Limit, req.Numbered
	start := firstLine(req.Offset, total)
	l.First = start + 1
	if start > 0 && start >= l.Total {
		return nil, false, toolerr.Invalid("offset %d is past the end of %s: it has %d lines (version %s); read from offset 1, or offset -100 for the last 100 lines", req.Offset, l.URI, l.Total, l.Version)
	}
	n := l.last() - start
	if req.Limit > 0 {
		n = min(n, req.Limit)
	}
	if req.MaxLines > 0 {
		n = min(n, req.MaxLines)
	}
	pos, ok := lineStart(b, start-(bLine-1))
	if !ok && !eof {
		return nil, true, nil
	}
	budget := r.lineBudget(l, &req)
	var ends []int // where each line of Text ends, when capped
	for i := 0; i < n; i++ {
		if i%256 == 255 && ctx.Err() != nil {
			return nil, false, toolerr.From(ctx.Err())
		}
		end := len(b)
		if j := bytes.IndexByte(b[pos:], '\n'); j >= 0 {
			end = pos + j + 1
		} else if !eof {
			return nil, true, nil
		}
		line := cutLong(b[pos:end], l.First+i, l, req.MaxLineChars)
		pos = end
		if req.Numbered {
			line = append(numberOf(l.First+i), line...)
		}
		if req.MaxTokens > 0 {
			if !budget.fits(r, l, line, req.MaxTokens) {
				l.Capped = true
				break
			}
			ends = append(ends, len(l.Text)+len(line))
		}
		l.Text = append(l.Text, line...)
		l.Count++
	}
	if budget.counting {
		r.capLines(l, ends, req)
	}
	return l, false, nil
}

// cutLong is line, line number n of the text l reads, cut after max code
// points (see CutLine) when it is longer, its number then noted in l.Cut;
// max 0 never cuts.
func cutLong(line []byte, n int, l *Lines, max int) []byte {
	if max > 0 && len(line) > max {
		if cut, ok := CutLine(line, max); ok {
			l.Cut = append(l.Cut, n)
			return cut
		}
	}
	return line
}

// tokenBudget is how a line read spends max tokens on the lines it gives
// and their footer.
type tokenBudget struct {
	// counting: the text could pass the cap, and its tokens are counted.
	// Tokens are counted only once it could: a token is at least one byte.
	counting bool
	// tokens counted so far; footerBytes, the longest footer's length.
	tokens, footerBytes int
}

// lineBudget is the budget of a read of l's lines as req asks, with room
// for the longest footer the answer can have; none when req has no max
// tokens.
func (r *Reader) lineBudget(l *Lines, req *LineRequest) tokenBudget {
	if req.MaxTokens <= 0 {
		return tokenBudget{}
	}
	worst := Lines{URI: l.URI, Name: l.Name, Version: l.Version, First: l.Total, Count: 1, Total: l.Total + 1, Cut: []int{l.Total}, Capped: true, Limit: req.Limit, Numbered: req.Numbered}
	if l.Section != nil {
		// A section's worst footer goes on too.
		sec := *l.Section
		sec.Last = worst.Total
		worst.Section = &sec
	}
	footer := "\n" + req.footer(&worst)
	return tokenBudget{tokens: r.counter.Count(footer), footerBytes: len(footer)}
}

// fits spends the tokens of line, to follow l.Text, and reports whether
// they fit within maxTokens.
func (t *tokenBudget) fits(r *Reader, l *Lines, line []byte, maxTokens int) bool {
	if !t.counting && len(l.Text)+len(line)+t.footerBytes > maxTokens {
		t.counting = true
		t.tokens += r.counter.Count(string(l.Text))
	}
	if t.counting {
		t.tokens += r.counter.Count(string(line))
		if t.tokens > maxTokens {
			return false
		}
	}
	return true
}

// numberOf is the number of a line as cat -n puts it before the line.
func numberOf(n int) []byte {
	b := strconv.AppendInt(nil, int64(n), 10)
	if len(b) < 6 {
		b = append(bytes.Repeat([]byte{' '}, 6-len(b)), b...)
	}
	return append(b, '\t')
}

// capLines makes the lines and their footer fit max tokens, counted whole:
// the pieces' sum chose where to stop; the whole may count a little
// differently, and then fewer lines are given. ends holds where each line
// of Text ends.
func (r *Reader) capLines(l *Lines, ends []int, req LineRequest) {
	fits := func(k int) bool {
		c := *l
		c.Text, c.Count, c.Capped = l.Text[:ends[k-1]], k, c.Capped || k < l.Count
		c.Cut = cutsBefore(l.Cut, c.First+k)
		return r.counter.Count(string(c.Text)+"\n"+req.footer(&c)) <= req.MaxTokens
	}
	k := l.Count
	if k == 0 || fits(k) {
		return
	}
	lo, hi := 0, k // fits(lo) holds (no line at all), fits(hi) does not
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	l.Capped = true
	l.Count = lo
	l.Cut = cutsBefore(l.Cut, l.First+lo)
	if lo == 0 {
		l.Text = nil
		return
	}
	l.Text = l.Text[:ends[lo-1]]
}

// cutsBefore is the cut line numbers below n.
func cutsBefore(cut []int, n int) []int {
	k := 0
	for k < len(cut) && cut[k] < n {
		k++
	}
	return cut[:k]
}

// countLines is the number of lines in b: a last line without "\n"
// counts.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// lineStart is the offset of line i (from 0) in b; len(b) and false when
// b holds fewer lines.
func lineStart(b []byte, i int) (int, bool) {
	pos := 0
	for ; i > 0; i-- {
		j := bytes.IndexByte(b[pos:], '\n')
		if j < 0 {
			return len(b), false
		}
		pos += j + 1
	}
	return pos, true
}

// CutLine cuts line after max code points and marks the cut, keeping the
// line's ending; ok is false when the line is not longer than that.
func CutLine(line []byte, max int) (cut []byte, ok bool) {
	body := line
	ending := ""
	if bytes.HasSuffix(body, []byte("\r\n")) {
		body, ending = body[:len(body)-2], "\r\n"
	} else if bytes.HasSuffix(body, []byte("\n")) {
		body, ending = body[:len(body)-1], "\n"
	}
	at, n := 0, 0
	for at < len(body) && n < max {
		_, size := utf8.DecodeRune(body[at:])
		at += size
		n++
	}
	if at == len(body) {
		return line, false
	}
	rest := utf8.RuneCount(body[at:])
	out := make([]byte, 0, at+40)
	out = append(out, body[:at]...)
	out = append(out, "…[+"...)
	out = strconv.AppendInt(out, int64(rest), 10)
	out = append(out, " characters]"...)
	return append(out, ending...), true
}

// lineAt is the byte offset of line (from 1) in f, found through the line
// index of f's version (made as f is read, without holding it, when none is
// kept and f has settled), and that version; ok is false when f has not
// settled (each window read through an index would hash it whole again:
// one read of the whole file costs less), or changed while the line was
// looked for.
func (r *Reader) lineAt(ctx context.Context, f fsview.File, line int) (off int64, ver fsview.Version, ok bool, err error) {
	x, ok := r.fs.LineIndexOf(f)
	if !ok {
		if !r.fs.Settled(f) {
			return 0, ver, false, nil
		}
		if x, err = r.fs.IndexFile(ctx, f); err != nil {
			return 0, ver, false, toolerr.From(err)
		}
	}
	if line > 1 && line > x.Lines {
		return 0, ver, false, toolerr.Invalid("line %d is past the end of %s: it has %d lines", line, f.URI, x.Lines)
	}
	at, start := x.Locate(line)
	for want := int64(lineWindow); ; want *= 4 {
		snap, err := r.fs.Snapshot(ctx, f, start, want)
		if err != nil || snap.Version != x.Version {
			if snap != nil {
				snap.Release()
			}
			return 0, ver, false, nil
		}
		pos, found := lineStart(snap.Window, line-at)
		eof := snap.EOF()
		snap.Release()
		if found || eof {
			return start + int64(pos), x.Version, true, nil
		}
	}
}

// pageStart is the byte offset of line (from 1) in b, for a page read that
// starts there.
func pageStart(b []byte, line int, uri string) (int64, error) {
	total := countLines(b)
	if line > 1 && line > total {
		return 0, toolerr.Invalid("line %d is past the end of %s: it has %d lines", line, uri, total)
	}
	pos, _ := lineStart(b, line-1)
	return int64(pos), nil
}
