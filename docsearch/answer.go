package docsearch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/folio-mcp/folio/internal/rank"
	"github.com/folio-mcp/folio/outline"
	"github.com/folio-mcp/folio/wire"
)

// candidates is how many ranked passages an answer considers.
const candidates = 40

// A Source reads the document at path as it is now: its bytes and
// version. An error leaves the document out of the answer.
type Source func(ctx context.Context, path string) (src []byte, version string, err error)

// A Query is a question and the budget of its answer.
type Query struct {
	// Text is the question in plain words.
	Text string
	// MaxTokens bounds the answer's tokens, counted whole.
	MaxTokens int
	// Keep accepts the documents the answer may quote (nil: all): the
	// caller's view and the path searched under.
	Keep func(path string) bool
	// Note, when not empty, is said on the answer's last line (the index
	// still being built, say).
	Note string
}

// An Answer is the passages that answer a query, packed into its budget.
type Answer struct {
	// Text is the passages, best first, each under a line saying where
	// it is, and any note on a last line.
	Text string
	// Tokens is Text's count.
	Tokens int
	// Passages is how many passages Text holds; Found how many were
	// ranked.
	Passages, Found int
}

// ErrBudget is returned when the budget cannot hold even the answer's
// note.
var ErrBudget = errors.New("docsearch: budget too small for any answer")

// Answer answers q with the passages ranked best, each read fresh through
// read: a passage whose document changed since it was indexed is indexed
// again from what read gave and the search is made again, so no text is
// ever stale. Passages next to each other in a document join; each is
// given whole where it fits, else the part of it that holds the question's
// words; none is repeated. A passage is given as its lines, but for HTML
// and MDX, which are given as the text a reader sees of them (see
// outline.ReaderText), under a line still naming the lines of the file.
// count counts tokens as the answer's reader will.
func (ix *Index) Answer(ctx context.Context, q Query, count func(string) int, read Source) (Answer, error) {
	var (
		hits  []Hit
		files map[string]*fresh
		err   error
	)
	for try := 0; try < 2; try++ {
		hits, err = ix.Search(ctx, q.Text, candidates, q.Keep)
		if err != nil {
			return Answer{}, err
		}
		var stale bool
		files, stale = ix.readFresh(ctx, hits, read)
		if !stale {
			break
		}
	}
	if len(hits) > 0 && ix.unknownShare(q.Text) >= weakShare {
		q.MaxTokens = max(q.MaxTokens/4, 1)
		q.Note = joinNote(q.Note, "nothing matches this question well: the docs do not have these words of it: "+strings.Join(ix.unknown(q.Text), ", "))
	}
	return pack(q, hits, files, count)
}

// weakShare is the share of a question's words that no passage holds
// past which the answer is short: the question is likely about something
// the docs do not cover (on the tune half of the fixture's questions, it
// tells the questions without an answer apart better than how much of
// the question the best passages hold).
const weakShare = 0.2

// unknownShare is the share of the question's words (stop words and CJK
// pairs aside) that no indexed passage holds.
func (ix *Index) unknownShare(query string) float64 {
	n := 0
	for _, w := range uniq(stems(&ix.stemmer, query)) {
		if judged(w) {
			n++
		}
	}
	return float64(len(ix.unknown(query))) / float64(max(n, 1))
}

// unknown are the question's words (stop words and CJK pairs aside) that
// no indexed passage holds.
func (ix *Index) unknown(query string) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []string
	for _, w := range words(query) {
		if s := ix.stemmer.Stem(w); judged(s) && ix.passages.df(ix.termOf(s)) == 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// judged reports whether a question's word, stemmed, tells by being
// absent from the docs that they do not answer it: not a stop word, and
// not a pair of CJK letters, most of which straddle two words and are
// absent from any text.
func judged(w string) bool {
	return !isStop(w) && !isCJKPair(w)
}

// fresh is a document as read for an answer.
type fresh struct {
	src     []byte
	version string
	ok      bool // read, and at the version indexed
	named   bool // its version said in the answer already
}

// readFresh reads the documents of hits; for one that changed since it was
// indexed, it indexes it again and reports stale.
func (ix *Index) readFresh(ctx context.Context, hits []Hit, read Source) (map[string]*fresh, bool) {
	files := map[string]*fresh{}
	stale := false
	for _, h := range hits {
		if files[h.Path] != nil {
			continue
		}
		src, version, err := read(ctx, h.Path)
		f := &fresh{src: src, version: version, ok: err == nil && version == h.Version}
		files[h.Path] = f
		if err == nil && version != h.Version {
			ix.Put(h.Path, version, src)
			stale = true
		}
	}
	return files, stale
}

// pack writes the passages of hits that fit q's budget, best first.
func pack(q Query, hits []Hit, files map[string]*fresh, count func(string) int) (Answer, error) {
	note := q.Note
	if len(hits) == 0 {
		note = joinNote(note, "nothing in the docs matches these words: try others, or grep for a term the answer would use")
	}
	tail := ""
	if note != "" {
		tail = wire.Note(note)
	}
	used := count(tail)
	if used > q.MaxTokens {
		return Answer{}, ErrBudget
	}
	var parts []string
	for _, h := range merge(hits) {
		f := files[h.Path]
		if !f.ok || h.End > len(f.src) {
			continue
		}
		pt := f.text(h)
		if len(pt.lines) == 0 {
			continue
		}
		part := f.render(h, pt, 0, len(pt.lines))
		n := count(part)
		if room := q.MaxTokens - used; n > room && room >= minTrim {
			if from, to, ok := f.trim(h, pt, q.Text, room, count); ok {
				part = f.render(h, pt, from, to)
				n = count(part)
			}
		}
		if used+n > q.MaxTokens {
			continue
		}
		f.named = true
		parts = append(parts, part)
		used += n
	}
	text := joinParts(parts, tail)
	for n := count(text); n > q.MaxTokens && len(parts) > 0; n = count(text) {
		parts = parts[:len(parts)-1]
		text = joinParts(parts, tail)
	}
	return Answer{Text: text, Tokens: count(text), Passages: len(parts), Found: len(hits)}, nil
}

// joinParts is an answer's text: its passages and its note, without the
// last newline.
func joinParts(parts []string, tail string) string {
	return strings.TrimSuffix(strings.Join(parts, "")+tail, "\n")
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// passageText is a passage's lines as an answer gives them, each with its
// line break and the line of the document it comes from.
type passageText struct {
	lines []outline.TextLine
	// reader is whether they are the text a reader sees of the file's
	// lines rather than those lines.
	reader bool
}

// text is the lines of h's passage as an answer gives them: the file's own
// lines, or, for a format whose markup a reader does not see (HTML, MDX),
// the text a reader sees of them (see outline.ReaderText).
func (f *fresh) text(h Hit) passageText {
	src := f.src[h.Start:h.End]
	if text, ok := outline.ReaderText(h.Path, src); ok {
		for i := range text {
			text[i].Text += "\n"
			text[i].Line += h.First - 1
		}
		return passageText{text, true}
	}
	raw := strings.SplitAfter(string(src), "\n")
	if raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	out := make([]outline.TextLine, len(raw))
	for i, l := range raw {
		out[i] = outline.TextLine{Text: l, Line: h.First + i}
	}
	return passageText{out, false}
}

// render is lines from to to-1 of h's passage as an answer gives them: a
// line saying where they are (path:first-last, the lines of the file they
// come from; the file's version the first time the file is named; the
// headings it falls under), then the lines. A reader's text cut inside a
// code block has the block's fences added where the cut lacks them.
func (f *fresh) render(h Hit, pt passageText, from, to int) string {
	var b strings.Builder
	b.WriteString(f.header(h, pt.lines, from, to))
	open, unclosed := "", ""
	if pt.reader {
		open, unclosed = fences(pt.lines, from, to)
	}
	if open != "" {
		b.WriteString(open + "\n")
	}
	for _, l := range pt.lines[from:to] {
		b.WriteString(l.Text)
	}
	if !strings.HasSuffix(pt.lines[to-1].Text, "\n") {
		b.WriteByte('\n')
	}
	if unclosed != "" {
		b.WriteString(unclosed + "\n")
	}
	b.WriteByte('\n')
	return b.String()
}

// fences are the code fences of lines open where lines from to to-1 start
// (after line from-1) and where they end, "" for none.
func fences(lines []outline.TextLine, from, to int) (atFrom, atTo string) {
	open := ""
	for i, l := range lines[:to] {
		if i == from {
			atFrom = open
		}
		t := strings.TrimSpace(l.Text)
		n := 0
		for n < len(t) && (t[n] == '`' || t[n] == '~') && t[n] == t[0] {
			n++
		}
		switch {
		case open == "" && n >= 3:
			open = t[:n]
		case open != "" && n >= len(open) && n == len(t) && t[0] == open[0]:
			open = ""
		}
	}
	return atFrom, open
}

// header is the line that opens lines from to to-1 of h's passage in an
// answer (see render): the first line of the file they come from to the
// line before the one the next line comes from.
func (f *fresh) header(h Hit, lines []outline.TextLine, from, to int) string {
	first, last := h.First, h.Last
	if from > 0 {
		first = lines[from].Line
	}
	if to < len(lines) {
		last = max(lines[to-1].Line, lines[to].Line-1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d-%d", h.Path, first, last)
	if !f.named {
		fmt.Fprintf(&b, " @%s", f.version)
	}
	if len(h.Headings) > 0 {
		fmt.Fprintf(&b, " § %s", strings.Join(h.Headings, " › "))
	}
	b.WriteByte('\n')
	return b.String()
}

// minTrim is the least room a passage is cut to fit: below it, the
// lines left would say too little.
const minTrim = 60

// trim is the run of lines of h's passage, from to to-1, that fits room
// tokens (its opening line counted) and holds the most of the query's
// words: the line that holds most of them, widened a line at a time, the
// neighbour with more of them first.
func (f *fresh) trim(h Hit, pt passageText, query string, room int, count func(string) int) (int, int, bool) {
	lines := pt.lines
	score, best := lineScores(lines, query)
	header := count(f.header(h, lines, best, best+1)) + 1 // and the blank line after
	if pt.reader {
		header += 2 * count("```\n") // the fences it may need
	}
	cost := func(i int) int { return count(lines[i].Text) }
	from, to := best, best+1
	used := header + cost(best)
	if used > room {
		return 0, 0, false
	}
	for {
		next := -1
		switch {
		case from > 0 && to < len(lines):
			next = from - 1
			if score[to] > score[from-1] {
				next = to
			}
		case from > 0:
			next = from - 1
		case to < len(lines):
			next = to
		}
		if next < 0 || used+cost(next) > room {
			break
		}
		used += cost(next)
		if next < from {
			from = next
		} else {
			to = next + 1
		}
	}
	from, to = unblank(lines, from, to, best)
	return from, to, true
}

// lineScores are how many of the query's words (stop words aside) each
// line holds, and the first line that holds the most.
func lineScores(lines []outline.TextLine, query string) ([]int, int) {
	var st rank.Stemmer // the lines' words, stemmed once each
	want := map[string]bool{}
	for _, w := range stems(&st, query) {
		if !isStop(w) {
			want[w] = true
		}
	}
	score := make([]int, len(lines))
	best := 0
	for i, l := range lines {
		for _, w := range uniq(stems(&st, l.Text)) {
			if want[w] {
				score[i]++
			}
		}
		if score[i] > score[best] {
			best = i
		}
	}
	return score, best
}

// unblank is lines from to to-1 without the blank lines they start and
// end with, line best kept.
func unblank(lines []outline.TextLine, from, to, best int) (int, int) {
	for from < best && strings.TrimSpace(lines[from].Text) == "" {
		from++
	}
	for to > best+1 && strings.TrimSpace(lines[to-1].Text) == "" {
		to--
	}
	return from, to
}

// merge joins hits whose passages touch in one document into one, at the
// rank of the better; what is left keeps its order.
func merge(hits []Hit) []Hit {
	out := slices.Clone(hits)
	for i := 0; i < len(out); i++ {
		for j := i + 1; j < len(out); j++ {
			a, c := &out[i], out[j]
			if a.Path != c.Path || c.First > a.Last+1 || a.First > c.Last+1 {
				continue
			}
			if c.Start < a.Start {
				a.Start, a.First = c.Start, c.First
				a.Headings = c.Headings
			}
			if c.End > a.End {
				a.End, a.Last = c.End, c.Last
			}
			out = slices.Delete(out, j, j+1)
			j = i
		}
	}
	return out
}
