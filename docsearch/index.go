package docsearch

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/folio-mcp/folio/outline"
)

// Passages are cut from a document's units (see Units): consecutive units
// of one section join while the words stay at most chunkWords, so a
// passage is a paragraph with the list or code block that follows it, not
// a whole chapter; a unit longer than that is a passage alone.
var chunkWords = 100

// Weights of a passage's fields: how many times a word counts in its
// body, its heading path and its document's title.
var (
	bodyWeight    float32 = 1
	headingWeight float32 = 2
	titleWeight   float32 = 1
)

// How much a passage's section's score and its document's add to its own.
var (
	sectionShare  = 0.5
	documentShare = 0.0
	topSections   = 0
)

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

// document is an indexed file: its passages are ids first to first+n-1
// of the passages table, its sections likewise, and id is its entry in the
// documents table.
type document struct {
	path, version, title string
	size                 int64
	id                   int32
	passages, sections   span32
}

// span32 is ids first to first+n-1 of a table.
type span32 struct{ first, n int32 }

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
// A passage is scored on its own words, and on those of the section it is
// in and of its document, each a BM25 table of its own.
type Index struct {
	mu                           sync.RWMutex
	docs                         map[string]*document
	entries                      []passageEntry
	byDoc                        []*document // by id in the documents table
	sections                     [][2]int32  // each section's passages, first and n
	passages, secTable, docTable *table
	bytes                        int64
}

// New returns an empty index.
func New() *Index {
	return &Index{docs: map[string]*document{}, passages: newTable(), secTable: newTable(), docTable: newTable()}
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
	return Stats{Documents: len(ix.docs), Passages: ix.passages.live, Terms: len(ix.passages.postings), Bytes: ix.bytes}
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
	body     string
}

// chunks joins a document's units into passages (see chunkWords).
func chunks(units []Unit) []chunk {
	var out []chunk
	for i := 0; i < len(units); {
		words := len(Words(units[i].Text))
		body := []string{units[i].Text}
		j := i + 1
		for ; j < len(units) && units[j].Section == units[i].Section; j++ {
			n := len(Words(units[j].Text))
			if words+n > chunkWords {
				break
			}
			words += n
			body = append(body, units[j].Text)
		}
		span := units[i].Span
		span.End, span.Last = units[j-1].End, units[j-1].Last
		out = append(out, chunk{span, units[i].Headings, units[i].Section, strings.Join(body, "\n")})
		i = j
	}
	return out
}

// counts is weighted word counts.
type counts map[string]float32

func (c counts) add(words []string, weight float32) {
	for _, w := range words {
		c[w] += weight
	}
}

// merged is the sum of cs.
func merged(cs []counts) counts {
	out := counts{}
	for _, c := range cs {
		for w, n := range c {
			out[w] += n
		}
	}
	return out
}

// Put indexes the document at path, at version, from its bytes, in place
// of what was indexed for path before.
func (ix *Index) Put(path, version string, src []byte) {
	title := outline.Of(path, src).Title
	cs := chunks(Units(path, src))
	tfs := make([]counts, len(cs))
	titleWords := Stems(title)
	for i, c := range cs {
		tfs[i] = counts{}
		body := Stems(c.body)
		tfs[i].add(body, bodyWeight)
		if pairWeight > 0 {
			tfs[i].add(pairs(body), pairWeight)
		}
		tfs[i].add(Stems(strings.Join(c.headings, " ")), headingWeight)
		tfs[i].add(titleWords, titleWeight)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.drop(path)
	d := &document{path: path, version: version, title: title, size: int64(len(src))}
	ix.docs[path] = d
	ix.bytes += d.size
	d.id = ix.docTable.add(merged(tfs))
	ix.byDoc = append(ix.byDoc, d)
	d.passages.first = int32(len(ix.entries))
	d.sections.first = int32(len(ix.sections))
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].section == cs[i].section {
			j++
		}
		sec := ix.secTable.add(merged(tfs[i:j]))
		ix.sections = append(ix.sections, [2]int32{int32(len(ix.entries)), int32(j - i)})
		for k := i; k < j; k++ {
			ix.passages.add(tfs[k])
			ix.entries = append(ix.entries, passageEntry{doc: d, span: cs[k].span, headings: cs[k].headings, section: sec})
		}
		i = j
	}
	d.passages.n = int32(len(ix.entries)) - d.passages.first
	d.sections.n = int32(len(ix.sections)) - d.sections.first
	ix.compact()
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

// drop kills the document at path's entries. The caller holds mu.
func (ix *Index) drop(path string) {
	d := ix.docs[path]
	if d == nil {
		return
	}
	delete(ix.docs, path)
	ix.bytes -= d.size
	ix.docTable.kill(d.id)
	ix.byDoc[d.id] = nil
	for id := d.passages.first; id < d.passages.first+d.passages.n; id++ {
		ix.passages.kill(id)
		ix.entries[id].doc = nil
	}
	for id := d.sections.first; id < d.sections.first+d.sections.n; id++ {
		ix.secTable.kill(id)
	}
}

// compact drops killed entries from every table once they are as many as
// the live ones, so each Put costs its document's size, amortised. The
// caller holds mu.
func (ix *Index) compact() {
	if ix.passages.dead < 1024 || ix.passages.dead < ix.passages.live {
		return
	}
	pass, secs, docs := ix.passages.compact(), ix.secTable.compact(), ix.docTable.compact()
	entries := ix.entries[:0]
	for _, e := range ix.entries {
		if e.doc != nil {
			e.section = secs[e.section]
			entries = append(entries, e)
		}
	}
	ix.entries = slices.Clip(entries)
	sections := ix.sections[:0]
	for id, s := range ix.sections {
		if secs[id] >= 0 {
			sections = append(sections, [2]int32{pass[s[0]], s[1]})
		}
	}
	ix.sections = slices.Clip(sections)
	byDoc := ix.byDoc[:0]
	for _, d := range ix.byDoc {
		if d != nil {
			d.passages.first = pass[d.passages.first]
			d.sections.first = secs[d.sections.first]
			d.id = docs[d.id]
			byDoc = append(byDoc, d)
		}
	}
	ix.byDoc = slices.Clip(byDoc)
}

// A Hit is a passage found and its score.
type Hit struct {
	Passage
	Score    float64
	Coverage float64
	id       int32
}

// Search ranks the passages for query, the best n first, among the
// documents keep accepts (nil: all). It stops with ctx's error when ctx
// is done.
func (ix *Index) Search(ctx context.Context, query string, n int, keep func(path string) bool) ([]Hit, error) {
	terms := Stems(query)
	if queryStops {
		terms = slices.DeleteFunc(terms, func(w string) bool { return stop[w] })
	}
	if pairWeight > 0 {
		terms = append(terms, pairs(terms)...)
	}
	terms = uniq(terms)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if n <= 0 {
		return nil, ctx.Err()
	}
	ps, ss, ds := map[int32]float64{}, map[int32]float64{}, map[int32]float64{}
	pm, sm := map[int32]float64{}, map[int32]float64{}
	for _, s := range []struct {
		t               *table
		scores, matched map[int32]float64
	}{{ix.passages, ps, pm}, {ix.secTable, ss, sm}, {ix.docTable, ds, nil}} {
		if err := s.t.score(ctx, terms, s.scores, s.matched); err != nil {
			return nil, err
		}
	}
	var whole float64
	for _, w := range terms {
		if !strings.Contains(w, " ") && !stop[w] {
			whole += ix.passages.idf(len(ix.passages.postings[w]))
		}
	}
	for _, sec := range topOf(ss, topSections) {
		s := ix.sections[sec]
		for id := s[0]; id < s[0]+s[1]; id++ {
			ps[id] += 0
		}
	}
	for id := range ps {
		if whole > 0 && pm[id] == 0 {
			delete(ps, id) // matched only by words such as "the"
			continue
		}
		e := &ix.entries[id]
		ps[id] += sectionShare*ss[e.section] + documentShare*ds[e.doc.id]
	}
	hits := ix.best(ps, n, keep)
	for i := range hits {
		hits[i].Coverage = max(pm[hits[i].id], coverSection*sm[ix.entries[hits[i].id].section]) / max(whole, 1e-9)
	}
	return hits, nil
}

var coverSection = 0.0

// topOf is the n ids of the highest scores.
func topOf(scores map[int32]float64, n int) []int32 {
	ids := make([]int32, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	byScore(ids, scores)
	return ids[:min(n, len(ids))]
}

// byScore sorts ids by their scores, the highest first (ties by id).
func byScore(ids []int32, scores map[int32]float64) {
	slices.SortFunc(ids, func(x, y int32) int {
		if sx, sy := scores[x], scores[y]; sx != sy {
			if sx > sy {
				return -1
			}
			return 1
		}
		return int(x - y)
	})
}

// best is the n best-scored passages that keep accepts. The caller holds
// mu.
func (ix *Index) best(scores map[int32]float64, n int, keep func(string) bool) []Hit {
	ids := make([]int32, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	byScore(ids, scores)
	var hits []Hit
	for _, id := range ids {
		e := &ix.entries[id]
		if keep != nil && !keep(e.doc.path) {
			continue
		}
		hits = append(hits, Hit{Passage: Passage{e.doc.path, e.doc.version, e.span, e.headings}, Score: scores[id], id: id})
		if len(hits) == n {
			break
		}
	}
	return hits
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

var pairWeight float32 = 1

var queryStops = false

// pairs are the adjacent pairs of words that are not stop words.
func pairs(words []string) []string {
	var out []string
	prev := ""
	for _, w := range words {
		if stop[w] {
			prev = ""
			continue
		}
		if prev != "" {
			out = append(out, prev+" "+w)
		}
		prev = w
	}
	return out
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the of to in on for and or is are be by with as at it this that from can do doe how what i my me you your we our if not no so but into when which who why will would should could there their then than us use") {
		stop[w] = true
	}
}
