package docsearch

import (
	"slices"

	"github.com/folio-mcp/folio/internal/rank"
)

// plainBM25 is the baseline the issue measures against: Okapi BM25 over
// passages given whole, one field, no weights.
// field is text of a passage and how many times each of its words
// counts.
type field struct {
	Text   string
	Weight float64
}

// plainBM25 is BM25 over passages. Add them all, then Search; it is not safe
// for Add and Search at once.
type plainBM25 struct {
	terms    func(string) []string
	postings map[string][]posting
	lengths  []float32
	total    float64
}

// newPlainBM25 returns an empty index whose terms are those terms gives of a
// text (words).
func newPlainBM25(terms func(string) []string) *plainBM25 {
	return &plainBM25{terms: terms, postings: map[string][]posting{}}
}

// Len is how many passages the index holds.
func (ix *plainBM25) Len() int { return len(ix.lengths) }

// Add indexes a passage made of fields, and returns its number (from 0,
// in the order added).
func (ix *plainBM25) Add(fields ...field) int {
	id := int32(len(ix.lengths))
	tf := map[string]float32{}
	var length float32
	for _, f := range fields {
		for _, w := range ix.terms(f.Text) {
			tf[w] += float32(f.Weight)
			length += float32(f.Weight)
		}
	}
	for w, n := range tf {
		ix.postings[w] = append(ix.postings[w], posting{id, n})
	}
	ix.lengths = append(ix.lengths, length)
	ix.total += float64(length)
	return int(id)
}

// plainHit is a passage found: its number, and its score.
type plainHit struct {
	Passage int
	Score   float64
}

// Search ranks the passages for query, the n best first (ties by number);
// a passage with none of the query's words is not found.
func (ix *plainBM25) Search(query string, n int) []plainHit {
	if len(ix.lengths) == 0 || n <= 0 {
		return nil
	}
	avg := ix.total / float64(len(ix.lengths))
	scores := map[int32]float64{}
	seen := map[string]bool{}
	for _, w := range ix.terms(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		ps := ix.postings[w]
		if len(ps) == 0 {
			continue
		}
		idf := rank.IDF(len(ix.lengths), len(ps))
		for _, p := range ps {
			scores[p.id] += rank.Usual.Score(idf, float64(p.tf), float64(ix.lengths[p.id]), avg)
		}
	}
	hits := make([]plainHit, 0, len(scores))
	for p, s := range scores {
		hits = append(hits, plainHit{int(p), s})
	}
	slices.SortFunc(hits, func(x, y plainHit) int {
		switch {
		case x.Score > y.Score:
			return -1
		case x.Score < y.Score:
			return 1
		}
		return x.Passage - y.Passage
	})
	return hits[:min(n, len(hits))]
}
