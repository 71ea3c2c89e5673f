package docsearch

import (
	"context"
	"slices"
	"sync"

	"github.com/folio-mcp/folio/internal/rank"
)

// posting is one entry's weighted count of a term.
type posting struct {
	id int32
	tf float32
}

// termCount is a term, by its id in the index's vocabulary, and its
// weighted count in an entry.
type termCount struct {
	term int32
	tf   float32
}

// table is BM25 over entries (passages or sections), each a bag of
// weighted terms, kept as postings by term id so that a query costs what
// its terms' postings cost, not what the corpus does. An entry is killed,
// not removed; compact drops the killed.
type table struct {
	postings [][]posting // by term id
	// lengths are the entries' weighted term counts, -1 for a killed one.
	lengths     []float32
	live, dead  int
	totalLength float64
}

// add appends an entry of the counts and returns its id.
func (t *table) add(tf []termCount) int32 {
	id := int32(len(t.lengths))
	var length float32
	for _, c := range tf {
		for int(c.term) >= len(t.postings) {
			t.postings = append(t.postings, nil)
		}
		t.postings[c.term] = append(t.postings[c.term], posting{id, c.tf})
		length += c.tf
	}
	t.lengths = append(t.lengths, length)
	t.live++
	t.totalLength += float64(length)
	return id
}

// kill marks the entry dead.
func (t *table) kill(id int32) {
	if t.lengths[id] < 0 {
		return
	}
	t.totalLength -= float64(t.lengths[id])
	t.lengths[id] = -1
	t.live--
	t.dead++
}

// df is how many entries hold the term (killed ones counted until the
// next compaction); 0 for a term of no id (-1).
func (t *table) df(term int32) int {
	if term < 0 || int(term) >= len(t.postings) {
		return 0
	}
	return len(t.postings[term])
}

// score adds to acc each live entry's BM25 score for the terms (ids; -1
// for a term no entry holds). It stops with ctx's error when ctx is done.
func (t *table) score(ctx context.Context, terms []int32, acc *scores) error {
	if t.live == 0 {
		return nil
	}
	acc.size(len(t.lengths))
	avg := t.totalLength / float64(t.live)
	for _, term := range terms {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t.df(term) == 0 {
			continue
		}
		ps := t.postings[term]
		idf := t.idf(len(ps))
		for _, p := range ps {
			length := t.lengths[p.id]
			if length < 0 {
				continue
			}
			tf := float64(p.tf)
			acc.add(p.id, rank.Usual.Score(idf, tf, float64(length), avg))
		}
	}
	return nil
}

// scores are entries' scores as a search adds them up: dense by id, and
// the ids touched, so that adding costs no hashing. They are pooled: a
// search takes them from scoresPool and puts them back reset.
type scores struct {
	of      []float64
	touched []int32
}

var scoresPool = sync.Pool{New: func() any { return new(scores) }}

// size makes room for ids up to n-1.
func (s *scores) size(n int) {
	if len(s.of) < n {
		s.of = append(s.of, make([]float64, n-len(s.of))...)
	}
}

func (s *scores) add(id int32, v float64) {
	if s.of[id] == 0 {
		s.touched = append(s.touched, id)
	}
	s.of[id] += v
}

// get is id's score, 0 for none.
func (s *scores) get(id int32) float64 {
	if int(id) < len(s.of) {
		return s.of[id]
	}
	return 0
}

func (s *scores) reset() {
	for _, id := range s.touched {
		s.of[id] = 0
	}
	s.touched = s.touched[:0]
}

// idf is the inverse document frequency of a term in n entries.
func (t *table) idf(n int) float64 {
	return rank.IDF(t.live, n)
}

// compact drops the killed entries and returns each old id's new one (-1
// for the dropped).
func (t *table) compact() []int32 {
	renumber := make([]int32, len(t.lengths))
	kept := t.lengths[:0]
	for id, l := range t.lengths {
		renumber[id] = -1
		if l >= 0 {
			renumber[id] = int32(len(kept))
			kept = append(kept, l)
		}
	}
	t.lengths = slices.Clip(kept)
	for term, ps := range t.postings {
		out := ps[:0]
		for _, p := range ps {
			if id := renumber[p.id]; id >= 0 {
				out = append(out, posting{id, p.tf})
			}
		}
		t.postings[term] = slices.Clip(out)
	}
	t.dead = 0
	return renumber
}
