package docsearch

import (
	"context"
	"math"
	"slices"
)

// BM25's parameters, the usual ones.
const (
	k1 = 1.2
	b  = 0.75
)

// posting is one entry's weighted count of a word.
type posting struct {
	id int32
	tf float32
}

// table is BM25 over entries (passages, sections or documents), each a bag
// of weighted words, kept as postings so that a query costs what its
// words' postings cost, not what the corpus does. An entry is killed, not
// removed; compact drops the killed.
type table struct {
	postings map[string][]posting
	// lengths are the entries' weighted word counts, -1 for a killed one.
	lengths     []float32
	live, dead  int
	totalLength float64
}

func newTable() *table { return &table{postings: map[string][]posting{}} }

// add appends an entry of the counts and returns its id.
func (t *table) add(tf map[string]float32) int32 {
	id := int32(len(t.lengths))
	var length float32
	for w, n := range tf {
		t.postings[w] = append(t.postings[w], posting{id, n})
		length += n
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

// score adds to scores each live entry's BM25 score for the terms, and
// marks in matched (when not nil) the entries a content term matched (see
// isContent). It stops with ctx's error when ctx is done.
func (t *table) score(ctx context.Context, terms []string, scores map[int32]float64, matched map[int32]bool) error {
	if t.live == 0 {
		return nil
	}
	avg := t.totalLength / float64(t.live)
	for _, w := range terms {
		if err := ctx.Err(); err != nil {
			return err
		}
		ps := t.postings[w]
		idf := t.idf(len(ps))
		for _, p := range ps {
			length := t.lengths[p.id]
			if length < 0 {
				continue
			}
			tf := float64(p.tf)
			scores[p.id] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(length)/avg))
			if matched != nil && isContent(w) {
				matched[p.id] = true
			}
		}
	}
	return nil
}

// idf is the inverse document frequency of a word in n entries (killed
// ones counted: they go at the next compaction).
func (t *table) idf(n int) float64 {
	return math.Log(1 + (float64(t.live)-float64(n)+0.5)/(float64(n)+0.5))
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
	for w, ps := range t.postings {
		out := ps[:0]
		for _, p := range ps {
			if id := renumber[p.id]; id >= 0 {
				out = append(out, posting{id, p.tf})
			}
		}
		if len(out) == 0 {
			delete(t.postings, w)
		} else {
			t.postings[w] = slices.Clip(out)
		}
	}
	t.dead = 0
	return renumber
}
