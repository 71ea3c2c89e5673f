package pager

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/folio-mcp/folio/toolerr"
)

// ErrBudgetTooSmall is matched (errors.Is) by a *BudgetError.
var ErrBudgetTooSmall = errors.New("budget too small")

// ErrInvalidRequest is returned by Fit for a request it cannot page: a
// window that is not valid UTF-8, a missing cursor function, a window that
// holds no whole code point before its end.
var ErrInvalidRequest = errors.New("invalid page request")

// BudgetError says that not even the page's metadata and its first code
// point fit the budget. Min is the smallest budget that would have given
// this page.
type BudgetError struct {
	Budget int
	Min    int
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("max_tokens %d is too small for this page: it needs at least %d", e.Budget, e.Min)
}

// ToolError is the error's budget_too_small, naming the budget that
// would do.
func (e *BudgetError) ToolError() *toolerr.Error {
	return toolerr.New(toolerr.CodeBudgetTooSmall, "max_tokens %d is too small for this page: it needs at least %d; retry with max_tokens of %d or more", e.Budget, e.Min, e.Min)
}

// Is makes errors.Is(err, ErrBudgetTooSmall) true for a *BudgetError.
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetTooSmall }

// Request is what Fit needs to cut one page.
type Request struct {
	Counter   Counter
	MaxTokens int
	Format    Format
	URI       string
	Version   string
	// Window is the file's text from the page's offset on: all of it, or
	// at least WindowBytes(Counter, MaxTokens) bytes of it.
	Window []byte
	// EOF says that Window runs to the end of the file.
	EOF bool
	// FirstLine, when above 0, is the number of the line Window starts
	// (a read started at a line): a Text page then says which lines it
	// holds, and every page gives them (FirstLine, LastLine).
	FirstLine int
	// Cursor returns the next_cursor of a page that ends end bytes into
	// Window. It is called for every candidate cut and must be
	// deterministic. Raw chunks have none.
	Cursor func(end int) string
	// Natural, for Raw chunks that do not end the text, cuts where a
	// person would within the budget (see NaturalCut) rather than as
	// late as the budget allows.
	Natural bool
}

// Page is one serialized page.
type Page struct {
	// JSON is the page exactly as it is sent: the JSON object, or in the
	// Text format the text block.
	JSON []byte
	// Format is how JSON is written.
	Format Format
	// Tokens is the counter's count of JSON.
	Tokens int
	// End is how many bytes of the window the page's content holds.
	End int
	// HasMore is false on the file's last page.
	HasMore bool
	// NextCursor is the cursor in the page, empty when HasMore is false.
	NextCursor string
	// URI and Version are the page's, as in the JSON format's object:
	// in the Text format they are not all in the text.
	URI, Version string
	// FirstLine and LastLine are the lines the page holds (the last whole
	// or not) when it was asked for from a line; 0 otherwise.
	FirstLine, LastLine int
}

// WindowBytes is how many bytes of text a page of maxTokens can never
// exhaust: read that many from the page's offset and Fit has all it needs.
func WindowBytes(c Counter, maxTokens int) int64 {
	return int64(maxTokens)*int64(c.MaxBytesPerToken()) + utf8.UTFMax
}

// Fit cuts the page that starts at the window's first byte: the longest
// prefix of the window whose whole serialized page counts at most MaxTokens,
// cut at a code point boundary and never between "\r" and "\n". The page it
// returns has been counted whole, so the budget is a guarantee. A budget that
// cannot hold the metadata and the first code point is a *BudgetError.
func Fit(r Request) (Page, error) {
	if r.Counter == nil || r.MaxTokens <= 0 {
		return Page{}, fmt.Errorf("%w: a counter and a positive budget are required", ErrInvalidRequest)
	}
	w := r.Window
	if limit := WindowBytes(r.Counter, r.MaxTokens); int64(len(w)) > limit {
		// No page can hold more: leave the rest unread.
		w, r.EOF = w[:limit], false
	}
	if !r.EOF {
		w = w[:lastCut(w)]
		if len(w) == 0 {
			return Page{}, fmt.Errorf("%w: the window holds no whole code point", ErrInvalidRequest)
		}
	}
	if !utf8.Valid(w) {
		return Page{}, fmt.Errorf("%w: the window is not valid UTF-8", ErrInvalidRequest)
	}
	f := &fitter{req: r, w: w}
	f.head = string(f.format().appendHead(nil, r.URI))
	if len(w) == 0 {
		p := f.build(0)
		if p.Tokens > r.MaxTokens {
			return Page{}, &BudgetError{Budget: r.MaxTokens, Min: p.Tokens}
		}
		return p, nil
	}
	if r.Cursor == nil && f.format().paged() {
		return Page{}, fmt.Errorf("%w: no cursor function", ErrInvalidRequest)
	}
	f.scale, f.measure = 1, r.Counter.Count
	if uc, ok := r.Counter.(unitCounter); ok {
		f.scale, f.measure = uc.UnitsPerToken(), uc.Units
	}
	f.moreTail = f.measure(string(f.appendTail(nil, 0)))
	p, err := f.fit()
	if err != nil || !r.Natural || f.format().paged() || !p.HasMore {
		return p, err
	}
	// Fewer bytes than the tightest cut: never more tokens than it has
	// but for the rare merge across the new end, which the count catches.
	if end := NaturalCut(w[:p.End]); end < p.End {
		if q := f.page(end); q.Tokens <= r.MaxTokens {
			return q, nil
		}
	}
	return p, nil
}

// Chunk sizes of the search. The window is counted in chunks sized from
// the tokens the budget has left, so that the count jumps near the cut; a
// chunk that crosses the budget is split again until it holds at most
// fineChunk bytes, and the cut inside it is found by binary search.
const (
	fineChunk = 64
	maxChunk  = 16 << 10
)

// span is a chunk of the window: w[start:end] counts tokens (with the page
// head when start is 0) when measured, or about that many where a counted
// chunk was split and only its first pieces were counted again.
type span struct {
	start, end, tokens int
	measured           bool
}

// The search measures text with measure, in units of which scale make a
// token: the counter's own tokens (scale 1), or the units of a unitCounter,
// which add up exactly over pieces.
type fitter struct {
	req      Request
	w        []byte
	head     string
	measure  func(string) int
	scale    int
	moreTail int    // measure of a has_more tail, an estimate for any cut
	chunks   []span // measured chunks covering w[:chunks[len-1].end], in order
	buf      []byte // the text text measures, kept for the next
}

func (f *fitter) fit() (Page, error) {
	budget := f.req.MaxTokens * f.scale
	end, local := f.search(budget)
	for attempt := 0; attempt < 4 && end > 0; attempt++ {
		p := f.page(end)
		localTokens := (local + f.scale - 1) / f.scale
		if p.Tokens <= f.req.MaxTokens {
			if attempt == 0 && localTokens > p.Tokens && p.HasMore {
				// The pieces overcounted the page: look once more with
				// the difference given back.
				if end2, _ := f.search(budget + (localTokens-p.Tokens)*f.scale); end2 > end {
					if p2 := f.page(end2); p2.Tokens <= f.req.MaxTokens {
						return p2, nil
					}
				}
			}
			return p, nil
		}
		// The pieces undercounted the page by p.Tokens-localTokens: ask
		// for that much less.
		budget = min(budget-1, (f.req.MaxTokens-(p.Tokens-localTokens))*f.scale)
		end, local = f.search(budget)
	}
	if end > 0 {
		return f.shrink(end)
	}
	first := nextCut(f.w, 0)
	p := f.build(first)
	if p.Tokens > f.req.MaxTokens {
		return Page{}, &BudgetError{Budget: f.req.MaxTokens, Min: p.Tokens}
	}
	return p, nil
}

// shrink is the last resort when the piecewise search kept overshooting:
// binary search over whole pages below end.
func (f *fitter) shrink(end int) (Page, error) {
	first := nextCut(f.w, 0)
	best := f.build(first)
	if best.Tokens > f.req.MaxTokens {
		return Page{}, &BudgetError{Budget: f.req.MaxTokens, Min: best.Tokens}
	}
	lo, hi := first, end
	for lo < hi {
		mid := cutAtOrBefore(f.w, lo+(hi-lo+1)/2)
		if mid <= lo {
			mid = nextCut(f.w, lo)
		}
		if p := f.build(mid); p.Tokens <= f.req.MaxTokens {
			best, lo = p, mid
		} else {
			hi = prevCut(f.w, mid)
		}
	}
	return best, nil
}

// search returns the end of the longest content that fits budget by the
// piecewise count, and that count. Chunks counted by one search are kept
// for the next.
func (f *fitter) search(budget int) (end, local int) {
	cum := 0
	for i := 0; ; i++ {
		if i == len(f.chunks) {
			start := 0
			if i > 0 {
				start = f.chunks[i-1].end
			}
			f.chunks = append(f.chunks, f.count(start, len(f.w), f.target(budget, cum, start)))
		}
		ch := f.chunks[i]
		if cum+ch.tokens+f.moreTail <= budget {
			if ch.end < len(f.w) {
				cum += ch.tokens
				continue
			}
			// The whole window fits by the pieces: check the page that
			// ends with it, with its real tail, before cutting it.
			if n := cum + f.text(ch.start, ch.end, true); n <= budget {
				return ch.end, n
			}
		}
		if ch.end-ch.start <= fineChunk {
			return f.cut(i, cum, budget, either)
		}
		// Split the crossing chunk, sizing its pieces from what is left,
		// each at most half of it so that the split makes progress. Only
		// the pieces up to the crossing one are counted; the rest keeps
		// what is left of the chunk's count as an estimate.
		var pieces []span
		half := (ch.end - ch.start) / 2
		p, n := ch.start, 0
		for p < ch.end {
			s := f.count(p, ch.end, min(f.target(budget, cum+n, p), half))
			pieces = append(pieces, s)
			p, n = s.end, n+s.tokens
			if cum+n+f.moreTail > budget {
				break
			}
		}
		if p < ch.end {
			pieces = append(pieces, span{p, ch.end, max(ch.tokens-n, 0), false})
		}
		f.chunks = append(f.chunks[:i], append(pieces, f.chunks[i+1:]...)...)
		i--
	}
}

// target sizes the chunk at start, whose preceding text counts cum: three
// quarters of what the tokens left are expected to hold, at the rate seen so
// far in this page, so that the count rarely overshoots the cut by much.
func (f *fitter) target(budget, cum, start int) int {
	left := budget - cum - f.moreTail
	bytesPerToken := 2.0
	if cum > 0 && start > 0 {
		bytesPerToken = float64(start) / float64(cum)
	}
	return min(max(int(float64(left)*bytesPerToken*0.75), fineChunk), maxChunk)
}

// count counts the chunk of about size bytes at start, ending by limit.
func (f *fitter) count(start, limit, size int) span {
	end := chunkEnd(f.w[:limit], start, size)
	return span{start, end, f.text(start, end, false), true}
}

// Directions cut may search in from the chunk it is given.
const (
	either   = 0
	forward  = 1
	backward = -1
)

// cut finds the longest content that fits budget and ends inside chunk i
// (whose preceding text counts cum): binary search with piece counts, then
// galloping with exact counts (the real tail of each cut). When every cut of
// the chunk fits, the page may end in the next chunk; when none does, it
// ends at the chunk's start or inside the chunk before. dir limits which of
// the two it may look at. It returns 0 when nothing fits.
func (f *fitter) cut(i, cum, budget, dir int) (end, local int) {
	ch := f.chunks[i]
	exact := func(p int) int { return cum + f.text(ch.start, p, true) }
	if ch.end == len(f.w) {
		// The page that ends with the window has its own tail (the
		// last page's, at EOF): try it first.
		if n := exact(ch.end); n <= budget {
			return ch.end, n
		}
	}
	cuts := []int{ch.start}
	for p := nextCut(f.w, ch.start); p <= ch.end; p = nextCut(f.w, p) {
		cuts = append(cuts, p)
		if p == len(f.w) {
			break
		}
	}
	// Largest index whose piece count fits, with the tail estimated; then
	// the largest whose exact count fits, galloping from there.
	k := searchLast(len(cuts), func(k int) bool {
		return k == 0 || cum+f.text(ch.start, cuts[k], false)+f.moreTail <= budget
	})
	counts := map[int]int{}
	k = gallop(max(k, 1), len(cuts), func(k int) bool {
		counts[k] = exact(cuts[k])
		return counts[k] <= budget
	})
	switch {
	case k == len(cuts)-1 && ch.end < len(f.w) && dir != backward:
		if end, n := f.cut(f.fine(i+1, ch.end), cum+ch.tokens, budget, forward); end > 0 {
			return end, n
		}
		return cuts[k], counts[k]
	case k > 0:
		return cuts[k], counts[k]
	case i == 0 || dir == forward:
		return 0, 0
	}
	prev := f.chunks[i-1]
	cumPrev := cum - prev.tokens
	if m := cumPrev + f.text(prev.start, ch.start, true); m <= budget {
		return ch.start, m
	}
	if prev.end-prev.start > 2*fineChunk {
		// Cut the chunk before in two at a split point near its end, so
		// that the search goes on in a small piece.
		if q := chunkEnd(f.w[:prev.end], prev.end-2*fineChunk, fineChunk); q > prev.start && q < prev.end {
			n := f.text(q, prev.end, false)
			head := span{prev.start, q, max(prev.tokens-n, 0), false}
			f.chunks = append(f.chunks[:i-1], append([]span{head, {q, prev.end, n, true}}, f.chunks[i:]...)...)
			return f.cut(i, cumPrev+head.tokens, budget, backward)
		}
	}
	return f.cut(i-1, cumPrev, budget, backward)
}

// fine makes chunk i, which starts at start, a counted chunk of at most
// fineChunk bytes, counting it or splitting its first piece off, and
// returns i.
func (f *fitter) fine(i, start int) int {
	if i == len(f.chunks) {
		f.chunks = append(f.chunks, f.count(start, len(f.w), fineChunk))
		return i
	}
	next := f.chunks[i]
	if next.end-next.start > fineChunk {
		first := f.count(next.start, next.end, fineChunk)
		rest := span{first.end, next.end, max(next.tokens-first.tokens, 0), false}
		f.chunks = append(f.chunks[:i], append([]span{first, rest}, f.chunks[i+1:]...)...)
	}
	return i
}

// gallop returns the largest index in [0, n) for which ok holds, starting
// from a guess k in [1, n) and taking ok(0) as given: it steps away from k
// in doubling strides until ok changes, then bisects. Each ok is a count,
// so the few calls near a good guess are what matter.
func gallop(k, n int, ok func(int) bool) int {
	lo, hi := 0, n // ok(lo) holds; ok(hi) fails (hi == n: past the end)
	if ok(k) {
		lo = k
		for step := 1; lo < n-1; step *= 2 {
			probe := min(lo+step, n-1)
			if !ok(probe) {
				hi = probe
				break
			}
			lo = probe
		}
		if hi == n {
			return lo
		}
	} else {
		hi = k
		for step := 1; hi > 1; step *= 2 {
			probe := max(hi-step, 1)
			if ok(probe) {
				lo = probe
				break
			}
			hi = probe
		}
	}
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// searchLast returns the largest k in [0, n) with ok(k), given ok(0) and
// ok monotone (true then false).
func searchLast(n int, ok func(int) bool) int {
	lo, hi := 0, n-1
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// text measures the text that counts for w[start:end]: its JSON escape,
// after the page head when it is the page's first piece, and before the
// tail of a page that ends at end when withTail is set.
func (f *fitter) text(start, end int, withTail bool) int {
	b := f.buf[:0]
	if start == 0 {
		b = append(b, f.head...)
	}
	b = f.appendContent(b, f.w[start:end])
	if withTail {
		b = f.appendTail(b, end)
	}
	f.buf = b
	if len(b) == 0 {
		return f.measure("")
	}
	// The counter keeps none of the text (see Counter): it is counted
	// where it is, not copied.
	return f.measure(unsafe.String(&b[0], len(b)))
}

// format is how the request's pages are written.
func (f *fitter) format() pageFormat { return formats[f.req.Format] }

// appendContent appends content as the page's format writes it.
func (f *fitter) appendContent(b, content []byte) []byte {
	return f.format().appendContent(b, content)
}

// appendTail appends what follows the content of a page that ends at end.
func (f *fitter) appendTail(b []byte, end int) []byte {
	return f.appendTailWith(b, end, f.cursor(end))
}

// cursor is the next_cursor of a page that ends at end: none at the end
// of the text, nor for a chunk.
func (f *fitter) cursor(end int) string {
	if (end == len(f.w) && f.req.EOF) || f.req.Cursor == nil {
		return ""
	}
	return f.req.Cursor(end)
}

// lines are the first and last line of the page that ends at end, when
// the request says where its window starts (FirstLine); 0, 0 otherwise.
// The last is the line the page ends in, whole or not.
func (f *fitter) lines(end int) (first, last int) {
	if f.req.FirstLine <= 0 {
		return 0, 0
	}
	content := f.w[:end]
	last = f.req.FirstLine + bytes.Count(content, []byte("\n"))
	if len(content) > 0 && content[len(content)-1] == '\n' {
		last--
	}
	return f.req.FirstLine, last
}

// appendTailWith appends what follows the content of a page whose
// next_cursor is cursor, empty for the file's last page.
func (f *fitter) appendTailWith(b []byte, end int, cursor string) []byte {
	return f.format().appendTail(b, f, end, cursor)
}

// page serializes the page that ends at end and counts it in segments: the
// chunk boundaries where the counter's pieces always end (split points) cut
// the page into segments whose counts add up to the page's count. A segment
// that is one measured chunk is not counted again; the others are counted
// whole, the last one with the page's tail.
func (f *fitter) page(end int) Page {
	sum, from := 0, 0
	for _, ch := range f.chunks {
		if ch.end >= end {
			break
		}
		if !(f.scale > 1 || splitsAt(f.w, ch.end)) {
			continue
		}
		if ch.start == from && ch.measured {
			sum += ch.tokens
		} else {
			sum += f.text(from, ch.end, false)
		}
		from = ch.end
	}
	p := f.serialize(end)
	n := sum + f.text(from, end, true)
	p.Tokens = (n + f.scale - 1) / f.scale
	return p
}

// build serializes and counts the page that ends at end.
func (f *fitter) build(end int) Page {
	p := f.serialize(end)
	p.Tokens = f.req.Counter.Count(string(p.JSON))
	return p
}

// serialize builds the page that ends at end, without its count.
func (f *fitter) serialize(end int) Page {
	b := make([]byte, 0, len(f.head)+end+end/8+200)
	b = append(b, f.head...)
	b = f.appendContent(b, f.w[:end])
	p := Page{End: end, Format: f.req.Format, URI: f.req.URI, Version: f.req.Version}
	if !(end == len(f.w) && f.req.EOF) {
		p.HasMore = true
		p.NextCursor = f.cursor(end)
	}
	p.FirstLine, p.LastLine = f.lines(end)
	p.JSON = f.appendTailWith(b, end, p.NextCursor)
	return p
}

// validCut reports whether a page may end at p: at a code point boundary,
// not between "\r" and "\n".
func validCut(w []byte, p int) bool {
	if p <= 0 || p >= len(w) {
		return true
	}
	return utf8.RuneStart(w[p]) && !(w[p-1] == '\r' && w[p] == '\n')
}

// nextCut is the first valid cut after p (at most len(w)).
func nextCut(w []byte, p int) int {
	for p++; p < len(w) && !validCut(w, p); p++ {
	}
	return min(p, len(w))
}

// prevCut is the last valid cut before p (at least 0).
func prevCut(w []byte, p int) int {
	for p--; p > 0 && !validCut(w, p); p-- {
	}
	return max(p, 0)
}

// cutAtOrBefore is p if it is a valid cut, else the one before it.
func cutAtOrBefore(w []byte, p int) int {
	if validCut(w, p) {
		return p
	}
	return prevCut(w, p)
}

// lastCut is the end of the longest prefix of w that a page may end at when
// more text follows w: no partial code point, no "\r" whose "\n" may follow.
func lastCut(w []byte) int {
	p := len(w)
	for i := 1; i <= utf8.UTFMax && i <= len(w); i++ {
		if utf8.RuneStart(w[len(w)-i]) {
			if !utf8.FullRune(w[len(w)-i:]) {
				p = len(w) - i
			}
			break
		}
	}
	if p > 0 && w[p-1] == '\r' {
		p--
	}
	return p
}

// chunkEnd picks the end of a chunk of about size bytes from start. It
// prefers a split point of both BPE pre-tokenizers (see splitsAt), so that
// counting the chunks one by one gives the count of the whole.
func chunkEnd(w []byte, start, size int) int {
	limit := start + size
	if limit >= len(w) {
		return len(w)
	}
	for p := limit; p > start+size/2; p-- {
		if splitsAt(w, p) {
			return p
		}
	}
	if p := cutAtOrBefore(w, limit); p > start {
		return p
	}
	return nextCut(w, start)
}

// splitsAt reports whether the o200k_base and cl100k_base pre-tokenizers
// always end a piece at p in the JSON escape of w, whatever comes before and
// after: before a space that follows a non-space, and before ASCII
// punctuation or a control character (whose escapes start with a
// backslash) that follows an ASCII letter or digit. An apostrophe is left
// out: it can start a contraction that joins the word before it.
func splitsAt(w []byte, p int) bool {
	c := w[p]
	if c == ' ' {
		r, _ := utf8.DecodeLastRune(w[:p])
		return !unicode.IsSpace(r)
	}
	if c >= 0x80 || c == '\'' || isASCIIAlnum(c) {
		return false
	}
	return isASCIIAlnum(w[p-1])
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
