package docsearch

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/folio-mcp/folio/internal/rank"
	"github.com/folio-mcp/folio/outline"
)

// Passages are cut from a document's units (see Units): consecutive units
// of one section join while the words stay at most chunkWords, so a
// passage is a paragraph with the list or code block that follows it, not
// a whole chapter; a unit longer than that is a passage alone.
const chunkWords = 100

// Weights of a passage's fields: how many times a word counts in its
// body, its heading path and its document's title, and a pair of words
// side by side in its body (see pairs).
const (
	bodyWeight    = 1
	headingWeight = 2
	titleWeight   = 1
	pairWeight    = 1
)

// sectionShare is how much of the score of the section a passage is in
// (its words all together) adds to the passage's own: a passage under a
// section about the question ranks above one that only shares its words.
const sectionShare = 0.5

// A Passage is a run of whole lines of an indexed document that a search
// may answer with.
type Passage struct {
	// Path names the document as it was indexed.
	Path string
	// Version is the document's version when it was indexed.
	Version string
	outline.Span
	// Headings are the titles of the sections that hold the passage,
	// the outermost first.
	Headings []string
}

// document is an indexed file: its passages and its sections, each a run
// of ids of their table.
type document struct {
	path, version      string
	size               int64
	passages, sections span32
}

// span32 is ids first to first+n-1 of a table.
type span32 struct{ first, n int32 }

func (s span32) each(fn func(id int32)) {
	for id := s.first; id < s.first+s.n; id++ {
		fn(id)
	}
}

// passageEntry is a passage as the index keeps it (nil doc: killed).
type passageEntry struct {
	doc      *document
	span     outline.Span
	headings []string
	section  int32
}

// Index is a BM25F index of documents' passages, safe for concurrent use:
// Put and Remove keep it current a document at a time, in time
// proportional to the document; Search ranks passages for a question. It
// holds each passage's place and its words' counts, never its text: an
// answer reads the text from the file (see Answer).
//
// A passage is scored on its own words and on those of the section it is
// in, each a BM25 table of its own.
type Index struct {
	mu       sync.RWMutex
	docs     map[string]*document
	entries  []passageEntry // by id in the passages table
	passages *table
	sections *table
	bytes    int64
	// vocab and pairs give terms their ids: words, and pairs of words'
	// ids; terms is how many there are.
	vocab map[string]int32
	pairs map[[2]int32]int32
	terms int32
	// counts and secCounts are the tallies Put counts with.
	counts, secCounts tally
	// stemmer cuts words to their stems, remembering the common ones.
	stemmer rank.Stemmer
}

// New returns an empty index.
func New() *Index {
	return &Index{docs: map[string]*document{}, passages: &table{}, sections: &table{}, vocab: map[string]int32{}, pairs: map[[2]int32]int32{}}
}

// Stats are an index's size.
type Stats struct {
	Documents, Passages, Terms int
	// Bytes is the indexed documents' size.
	Bytes int64
}

// Stats reports the index's size.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return Stats{Documents: len(ix.docs), Passages: ix.passages.live, Terms: int(ix.terms), Bytes: ix.bytes}
}

// Version is the version of the document at path as indexed, "" for none.
func (ix *Index) Version(path string) string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if d := ix.docs[path]; d != nil {
		return d.version
	}
	return ""
}

// chunk is a passage cut from units, with the words it is indexed by.
type chunk struct {
	span     outline.Span
	headings []string
	section  int
	words    []string // stems of its body
}

// chunks joins a document's units into passages (see chunkWords).
func (ix *Index) chunks(units []Unit) []chunk {
	var out []chunk
	for i := 0; i < len(units); {
		words := stems(&ix.stemmer, units[i].Text)
		j := i + 1
		for ; j < len(units) && units[j].Section == units[i].Section; j++ {
			more := stems(&ix.stemmer, units[j].Text)
			if len(words)+len(more) > chunkWords {
				break
			}
			words = append(words, more...)
		}
		span := units[i].Span
		span.End, span.Last = units[j-1].End, units[j-1].Last
		out = append(out, chunk{span, units[i].Headings, units[i].Section, words})
		i = j
	}
	return out
}

// Put indexes the document at path, at version, from its bytes, in place
// of what was indexed for path before. Its words are read before the
// index is locked; only their counting holds the lock.
func (ix *Index) Put(path, version string, src []byte) {
	doc := outline.Of(path, src)
	cs := ix.chunks(unitsOf(doc))
	title := stems(&ix.stemmer, doc.Title)
	headings := map[int][]string{} // stems of each section's heading path
	for _, c := range cs {
		if _, ok := headings[c.section]; !ok {
			headings[c.section] = stems(&ix.stemmer, strings.Join(c.headings, " "))
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.drop(path)
	d := &document{path: path, version: version, size: int64(len(src))}
	ix.docs[path] = d
	ix.bytes += d.size
	d.passages.first = int32(len(ix.entries))
	d.sections.first = int32(len(ix.sections.lengths))
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].section == cs[i].section {
			j++
		}
		ix.putSection(d, cs[i:j], title, headings)
		i = j
	}
	d.passages.n = int32(len(ix.entries)) - d.passages.first
	d.sections.n = int32(len(ix.sections.lengths)) - d.sections.first
	ix.compact()
}

// putSection adds the chunks of one section of d, and the section. The
// caller holds mu.
func (ix *Index) putSection(d *document, cs []chunk, title []string, headings map[int][]string) {
	ix.secCounts.reset()
	for _, c := range cs {
		ix.counts.reset()
		ix.count(c.words, bodyWeight)
		ix.count(headings[c.section], headingWeight)
		ix.count(title, titleWeight)
		for _, term := range ix.counts.touched {
			ix.secCounts.add(term, ix.counts.tf[term])
		}
		ix.countPairs(c.words)
		ix.passages.add(ix.counts.list())
		ix.entries = append(ix.entries, passageEntry{doc: d, span: c.span, headings: c.headings, section: int32(len(ix.sections.lengths))})
	}
	ix.sections.add(ix.secCounts.list())
}

// count adds words to the passage being counted, each weight times.
func (ix *Index) count(words []string, weight float32) {
	for _, w := range words {
		ix.counts.add(ix.intern(w), weight)
	}
}

// countPairs adds the pairs of words side by side to the passage being
// counted (stop words aside, which part pairs): indexed, and asked for,
// as terms of their own, they rank passages that say a question's words
// together above those that hold them apart.
func (ix *Index) countPairs(words []string) {
	prev := int32(-1)
	for _, w := range words {
		if isStop(w) {
			prev = -1
			continue
		}
		id := ix.intern(w)
		if prev >= 0 {
			ix.counts.add(ix.internPair(prev, id), pairWeight)
		}
		prev = id
	}
}

// intern is the id of the term w, given one if it is new. The caller
// holds mu.
func (ix *Index) intern(w string) int32 {
	id, ok := ix.vocab[w]
	if !ok {
		id = ix.newTerm()
		ix.vocab[strings.Clone(w)] = id
	}
	return id
}

// internPair is the id of the pair of terms a, b, given one if it is new.
// The caller holds mu.
func (ix *Index) internPair(a, b int32) int32 {
	id, ok := ix.pairs[[2]int32{a, b}]
	if !ok {
		id = ix.newTerm()
		ix.pairs[[2]int32{a, b}] = id
	}
	return id
}

// newTerm is a new term's id.
func (ix *Index) newTerm() int32 {
	ix.terms++
	return ix.terms - 1
}

// termsOf are the ids of a query's words and of its pairs of words side
// by side, each once (-1 for one the index has not). The caller holds mu,
// for reading.
func (ix *Index) termsOf(words []string) []int32 {
	var ids []int32
	prev := int32(-1)
	for _, w := range words {
		id := ix.termOf(w)
		if !slices.Contains(ids, id) || id < 0 {
			ids = append(ids, id)
		}
		if isStop(w) {
			prev = -1
			continue
		}
		if pair, ok := ix.pairs[[2]int32{prev, id}]; ok && prev >= 0 && id >= 0 && !slices.Contains(ids, pair) {
			ids = append(ids, pair)
		}
		prev = id
	}
	return ids
}

// termOf is the id of the word w, -1 for none. The caller holds mu.
func (ix *Index) termOf(w string) int32 {
	if id, ok := ix.vocab[w]; ok {
		return id
	}
	return -1
}

// tally is a passage's or a section's weighted term counts as they are
// made: a dense array by term id, and the ids touched, so that a count
// costs no hashing and a reset what was touched.
type tally struct {
	tf      []float32
	touched []int32
}

func (t *tally) add(term int32, n float32) {
	for int(term) >= len(t.tf) {
		t.tf = append(t.tf, make([]float32, len(t.tf)+1024)...)
	}
	if t.tf[term] == 0 {
		t.touched = append(t.touched, term)
	}
	t.tf[term] += n
}

// list is the counts made, by term.
func (t *tally) list() []termCount {
	out := make([]termCount, len(t.touched))
	for i, term := range t.touched {
		out[i] = termCount{term, t.tf[term]}
	}
	return out
}

func (t *tally) reset() {
	for _, term := range t.touched {
		t.tf[term] = 0
	}
	t.touched = t.touched[:0]
}

// Remove drops the document at path from the index.
func (ix *Index) Remove(path string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.drop(path)
	ix.compact()
}

// RemoveUnder drops the document at name and every document under it,
// name being a directory.
func (ix *Index) RemoveUnder(name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for p := range ix.docs {
		if p == name || strings.HasPrefix(p, name+"/") {
			ix.drop(p)
		}
	}
	ix.compact()
}

// retain drops every document but those named in keep.
func (ix *Index) retain(keep map[string]bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for p := range ix.docs {
		if !keep[p] {
			ix.drop(p)
		}
	}
	ix.compact()
}

// drop kills the entries of the document at path. The caller holds mu.
func (ix *Index) drop(path string) {
	d := ix.docs[path]
	if d == nil {
		return
	}
	delete(ix.docs, path)
	ix.bytes -= d.size
	d.passages.each(func(id int32) {
		ix.passages.kill(id)
		ix.entries[id].doc = nil
	})
	d.sections.each(ix.sections.kill)
}

// compact drops killed entries from the tables once they are as many as
// the live ones, so each Put costs its document's size, amortised. The
// caller holds mu.
func (ix *Index) compact() {
	if ix.passages.dead >= 1024 && ix.passages.dead >= ix.passages.live {
		ix.compactNow()
	}
}

// compactNow drops killed entries from the tables. The caller holds mu.
func (ix *Index) compactNow() {
	pass, secs := ix.passages.compact(), ix.sections.compact()
	entries := ix.entries[:0]
	for _, e := range ix.entries {
		if e.doc != nil {
			e.section = secs[e.section]
			entries = append(entries, e)
		}
	}
	ix.entries = slices.Clip(entries)
	for _, d := range ix.docs {
		d.passages.first = pass[d.passages.first]
		d.sections.first = secs[d.sections.first]
	}
}

// A Hit is a passage found and its score.
type Hit struct {
	Passage
	Score float64
}

// Search ranks the passages for query, the best n first, among the
// documents keep accepts (nil: all). Stop words count only in a query
// made of nothing else. It stops with ctx's error when ctx is done.
func (ix *Index) Search(ctx context.Context, query string, n int, keep func(path string) bool) ([]Hit, error) {
	words := stems(&ix.stemmer, query)
	if slices.ContainsFunc(words, isContent) {
		words = slices.DeleteFunc(words, func(w string) bool { return !isContent(w) })
	}
	ps, ss := scoresPool.Get().(*scores), scoresPool.Get().(*scores)
	defer func() {
		ps.reset()
		ss.reset()
		scoresPool.Put(ps)
		scoresPool.Put(ss)
	}()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	terms := ix.termsOf(words)
	if err := ix.passages.score(ctx, terms, ps); err != nil {
		return nil, err
	}
	if err := ix.sections.score(ctx, terms, ss); err != nil {
		return nil, err
	}
	for _, id := range ps.touched {
		ps.of[id] += sectionShare * ss.get(ix.entries[id].section)
	}
	return ix.best(ps, n, keep), nil
}

// isContent reports whether a term of a query says what it is about: a
// word not a stop word, or a pair.
func isContent(w string) bool { return !isStop(w) }

// best is the n best-scored passages that keep accepts, the best first
// (ties by id). keep is asked once a document. The caller holds mu.
func (ix *Index) best(acc *scores, n int, keep func(string) bool) []Hit {
	kept := map[*document]bool{}
	accepts := func(id int32) bool {
		d := ix.entries[id].doc
		ok, seen := kept[d]
		if !seen {
			ok = keep == nil || keep(d.path)
			kept[d] = ok
		}
		return ok
	}
	better := func(x, y int32) bool {
		if sx, sy := acc.of[x], acc.of[y]; sx != sy {
			return sx > sy
		}
		return x < y
	}
	// A min-heap of the n best so far: its root is the worst of them.
	top := make([]int32, 0, n)
	for _, id := range acc.touched {
		switch {
		case len(top) < n:
			if accepts(id) {
				top = append(top, id)
				up(top, len(top)-1, better)
			}
		case n > 0 && better(id, top[0]) && accepts(id):
			top[0] = id
			down(top, 0, better)
		}
	}
	slices.SortFunc(top, func(x, y int32) int {
		if better(x, y) {
			return -1
		}
		return 1
	})
	hits := make([]Hit, len(top))
	for i, id := range top {
		e := &ix.entries[id]
		hits[i] = Hit{Passage{e.doc.path, e.doc.version, e.span, e.headings}, acc.of[id]}
	}
	return hits
}

// up and down keep h a heap whose root is the worst by better.
func up(h []int32, i int, better func(x, y int32) bool) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func down(h []int32, i int, better func(x, y int32) bool) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// uniq is words without repeats, in their first order.
func uniq(words []string) []string {
	seen := map[string]bool{}
	out := words[:0:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
