package docsearch

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/folio-mcp/folio/outline"
)

// storeFormat is the version of the format Save writes; Load refuses any
// other (the index is then built again). 2: terms are Snowball's stems
// (package rank), where 1 held the stems of an earlier stemmer.
const storeFormat = 2

// stored is an Index as Save writes it (gob): its live documents, their
// passages and sections, the postings and the vocabulary.
type stored struct {
	Format    int
	Docs      []storedDoc
	Entries   []storedEntry
	Headings  [][]string // heading paths, shared by the entries that name them
	Passages  storedTable
	Sections  storedTable
	Vocab     []string   // words, by term id ("" for a pair's)
	Pairs     [][3]int32 // a pair's words' ids, and its own
	TermCount int32
}

type storedDoc struct {
	Path, Version      string
	Size               int64
	Passages, Sections [2]int32 // first id and count
}

type storedEntry struct {
	Doc, Headings, Section  int32
	Start, End, First, Last int
}

type storedTable struct {
	IDs     [][]int32 // by term, each entry holding it
	TFs     [][]float32
	Lengths []float32
}

// Save writes the index to w, to be read back by Load.
func (ix *Index) Save(w io.Writer) error {
	ix.mu.Lock()
	ix.compactNow()
	s := ix.stored()
	ix.mu.Unlock()
	return gob.NewEncoder(w).Encode(s)
}

// stored is the index as Save writes it. The caller holds mu, the index
// compacted.
func (ix *Index) stored() *stored {
	s := &stored{Format: storeFormat, Passages: storeTable(ix.passages), Sections: storeTable(ix.sections), TermCount: ix.terms}
	docID := map[*document]int32{}
	for path, d := range ix.docs {
		docID[d] = int32(len(s.Docs))
		s.Docs = append(s.Docs, storedDoc{path, d.version, d.size, [2]int32{d.passages.first, d.passages.n}, [2]int32{d.sections.first, d.sections.n}})
	}
	headingID := map[string]int32{}
	for _, e := range ix.entries {
		key := strings.Join(e.headings, "\x00")
		id, ok := headingID[key]
		if !ok {
			id = int32(len(s.Headings))
			headingID[key] = id
			s.Headings = append(s.Headings, e.headings)
		}
		s.Entries = append(s.Entries, storedEntry{docID[e.doc], id, e.section, e.span.Start, e.span.End, e.span.First, e.span.Last})
	}
	s.Vocab = make([]string, ix.terms)
	for w, id := range ix.vocab {
		s.Vocab[id] = w
	}
	for ab, id := range ix.pairs {
		s.Pairs = append(s.Pairs, [3]int32{ab[0], ab[1], id})
	}
	return s
}

func storeTable(t *table) storedTable {
	s := storedTable{IDs: make([][]int32, len(t.postings)), TFs: make([][]float32, len(t.postings)), Lengths: t.lengths}
	for term, ps := range t.postings {
		for _, p := range ps {
			s.IDs[term] = append(s.IDs[term], p.id)
			s.TFs[term] = append(s.TFs[term], p.tf)
		}
	}
	return s
}

// ErrStore is the error of an index file Load cannot use.
var ErrStore = errors.New("docsearch: not an index file of this version")

// Load reads an index that Save wrote. What it reads is checked whole (every
// id in range), so a damaged file is an error, never a panic later.
func Load(r io.Reader) (*Index, error) {
	var s stored
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStore, err)
	}
	if s.Format != storeFormat {
		return nil, fmt.Errorf("%w: format %d", ErrStore, s.Format)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStore, err)
	}
	return s.index(), nil
}

// check reports the first id out of range.
func (s *stored) check() error {
	terms := int(s.TermCount)
	if len(s.Vocab) != terms || len(s.Passages.IDs) > terms || len(s.Sections.IDs) > terms {
		return errors.New("vocabulary")
	}
	for _, p := range s.Pairs {
		if min(p[0], p[1], p[2]) < 0 || max(int(p[0]), int(p[1]), int(p[2])) >= terms {
			return errors.New("pairs")
		}
	}
	for _, t := range []storedTable{s.Passages, s.Sections} {
		if err := t.check(); err != nil {
			return err
		}
	}
	return s.checkDocs()
}

// checkDocs reports a document or a passage whose ids are out of range.
func (s *stored) checkDocs() error {
	n, sections := int32(len(s.Entries)), int32(len(s.Sections.Lengths))
	within := func(r [2]int32, n int32) bool { return r[0] >= 0 && r[1] >= 0 && r[0]+r[1] <= n }
	for _, d := range s.Docs {
		if !within(d.Passages, n) || !within(d.Sections, sections) {
			return errors.New("documents")
		}
	}
	for _, e := range s.Entries {
		if !within([2]int32{e.Doc, 1}, int32(len(s.Docs))) || !within([2]int32{e.Headings, 1}, int32(len(s.Headings))) ||
			!within([2]int32{e.Section, 1}, sections) || e.Start < 0 || e.End < e.Start || e.First < 1 || e.Last < e.First {
			return errors.New("passages")
		}
	}
	if len(s.Entries) != len(s.Passages.Lengths) {
		return errors.New("passages table")
	}
	return nil
}

func (t storedTable) check() error {
	if len(t.IDs) != len(t.TFs) {
		return errors.New("postings")
	}
	for term, ids := range t.IDs {
		if len(ids) != len(t.TFs[term]) {
			return errors.New("postings")
		}
		for _, id := range ids {
			if id < 0 || int(id) >= len(t.Lengths) {
				return errors.New("postings")
			}
		}
	}
	return nil
}

// index is the Index s holds, checked.
func (s *stored) index() *Index {
	ix := New()
	ix.passages, ix.sections = s.Passages.table(), s.Sections.table()
	ix.terms = s.TermCount
	for id, w := range s.Vocab {
		if w != "" {
			ix.vocab[w] = int32(id)
		}
	}
	for _, p := range s.Pairs {
		ix.pairs[[2]int32{p[0], p[1]}] = p[2]
	}
	docs := make([]*document, len(s.Docs))
	for i, d := range s.Docs {
		docs[i] = &document{path: d.Path, version: d.Version, size: d.Size,
			passages: span32{d.Passages[0], d.Passages[1]}, sections: span32{d.Sections[0], d.Sections[1]}}
		ix.docs[d.Path] = docs[i]
		ix.bytes += d.Size
	}
	ix.entries = make([]passageEntry, len(s.Entries))
	for i, e := range s.Entries {
		ix.entries[i] = passageEntry{doc: docs[e.Doc], headings: s.Headings[e.Headings], section: e.Section,
			span: outline.Span{Start: e.Start, End: e.End, First: e.First, Last: e.Last}}
	}
	return ix
}

func (t storedTable) table() *table {
	out := &table{postings: make([][]posting, len(t.IDs)), lengths: t.Lengths}
	for term, ids := range t.IDs {
		out.postings[term] = make([]posting, len(ids))
		for i, id := range ids {
			out.postings[term][i] = posting{id, t.TFs[term][i]}
		}
	}
	for _, l := range t.Lengths {
		if l >= 0 {
			out.live++
			out.totalLength += float64(l)
		}
	}
	return out
}
