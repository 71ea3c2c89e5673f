package docsearch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
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
// words; none is repeated. count counts tokens as the answer's reader
// will.
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
	for _, w := range uniq(Stems(query)) {
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
	for _, w := range Words(query) {
		if s := stem(w); judged(s) && ix.passages.df(ix.termOf(s)) == 0 && !slices.Contains(out, w) {
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
	if stop[w] {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	return !isCJK(r)
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
		tail = "[folio] " + note + "\n"
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
		part := f.render(h)
		n := count(part)
		if room := q.MaxTokens - used; n > room && room >= minTrim {
			if cut, ok := f.trim(h, q.Text, room, count); ok {
				part = f.render(cut)
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

// render is a passage as an answer gives it: a line saying where it is
// (path:first-last, the file's version the first time the file is named,
// and the headings it falls under), then its lines as the file has them.
func (f *fresh) render(h Hit) string {
	var b strings.Builder
	b.WriteString(f.header(h))
	text := string(f.src[h.Start:h.End])
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.String()
}

// header is the line that opens a passage in an answer (see render).
func (f *fresh) header(h Hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d-%d", h.Path, h.First, h.Last)
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

// trim is the part of h's passage, whole lines, that fits room tokens
// (its opening line counted) and holds the most of the query's words:
// the line that holds most of them, widened a line at a time, the
// neighbour with more of them first.
func (f *fresh) trim(h Hit, query string, room int, count func(string) int) (Hit, bool) {
	want := map[string]bool{}
	for _, w := range Stems(query) {
		if !stop[w] {
			want[w] = true
		}
	}
	text := string(f.src[h.Start:h.End])
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	score := make([]int, len(lines))
	best := 0
	for i, l := range lines {
		for _, w := range uniq(Stems(l)) {
			if want[w] {
				score[i]++
			}
		}
		if score[i] > score[best] {
			best = i
		}
	}
	header := count(f.header(h)) + 1 // and the blank line after
	cost := func(i int) int { return count(lines[i]) }
	from, to := best, best+1
	used := header + cost(best)
	if used > room {
		return h, false
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
	cut := h
	for _, l := range lines[:from] {
		cut.Start += len(l)
	}
	cut.First += from
	cut.End = cut.Start
	for _, l := range lines[from:to] {
		cut.End += len(l)
	}
	cut.Last = cut.First + to - from - 1
	return cut, true
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
