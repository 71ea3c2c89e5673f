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
	mu                 sync.RWMutex
	docs               map[string]*document
	entries            []passageEntry // by id in the passages table
	passages, sections *table
	bytes              int64
}

// New returns an empty index.
func New() *Index {
	return &Index{docs: map[string]*document{}, passages: newTable(), sections: newTable()}
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
	cs := chunks(Units(path, src))
	tfs := passageCounts(cs, Stems(outline.Of(path, src).Title))
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
		sec := ix.sections.add(merged(tfs[i:j]))
		for k := i; k < j; k++ {
			ix.passages.add(tfs[k])
			ix.entries = append(ix.entries, passageEntry{doc: d, span: cs[k].span, headings: cs[k].headings, section: sec})
		}
		i = j
	}
	d.passages.n = int32(len(ix.entries)) - d.passages.first
	d.sections.n = int32(len(ix.sections.lengths)) - d.sections.first
	ix.compact()
}

// passageCounts are the weighted word counts of each chunk: its body, its
// pairs of words, its heading path and its document's title.
func passageCounts(cs []chunk, title []string) []counts {
	tfs := make([]counts, len(cs))
	for i, c := range cs {
		body := Stems(c.body)
		tfs[i] = counts{}
		tfs[i].add(body, bodyWeight)
		tfs[i].add(pairs(body), pairWeight)
		tfs[i].add(Stems(strings.Join(c.headings, " ")), headingWeight)
		tfs[i].add(title, titleWeight)
	}
	return tfs
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
	if ix.passages.dead < 1024 || ix.passages.dead < ix.passages.live {
		return
	}
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
// documents keep accepts (nil: all). A passage that holds none of the
// query's words but stop words is not found. It stops with ctx's error
// when ctx is done.
func (ix *Index) Search(ctx context.Context, query string, n int, keep func(path string) bool) ([]Hit, error) {
	words := Stems(query)
	terms := uniq(append(words, pairs(words)...))
	content := slices.ContainsFunc(terms, isContent)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ps, matched, ss := map[int32]float64{}, map[int32]bool{}, map[int32]float64{}
	if err := ix.passages.score(ctx, terms, ps, matched); err != nil {
		return nil, err
	}
	if err := ix.sections.score(ctx, terms, ss, nil); err != nil {
		return nil, err
	}
	for id := range ps {
		if content && !matched[id] {
			delete(ps, id)
			continue
		}
		ps[id] += sectionShare * ss[ix.entries[id].section]
	}
	return ix.best(ps, n, keep), nil
}

// isContent reports whether a term of a query says what it is about: a
// word not a stop word, or a pair.
func isContent(w string) bool { return !stop[w] }

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
		hits = append(hits, Hit{Passage{e.doc.path, e.doc.version, e.span, e.headings}, scores[id]})
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

// pairs are the pairs of words side by side (stop words aside, which part
// pairs): indexed, and asked for, as terms of their own, they rank
// passages that say a question's words together above those that hold
// them apart.
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

// stop holds the stop words: English words so common that they say
// nothing of what a passage is about (as Stems gives them).
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the of to in on for and or is are be by with as at it this that from can do doe how what i my me you your we our if not no so but into when which who why will would should could there their then than us use") {
		stop[w] = true
	}
}
