// Package docsearch answers a question about a docs tree with the
// passages most likely to answer it (issue 36, under way). This file is
// its scorer: Okapi BM25 over passages, each a bag of words from fields
// weighted apart, kept as postings so that a query costs what its words'
// postings cost, not what the corpus does.
package docsearch

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// BM25's parameters, the usual ones.
const (
	k1 = 1.2
	b  = 0.75
)

// A Field is text of a passage and how many times each of its words
// counts (a heading's words may count more than the body's).
type Field struct {
	Text   string
	Weight float64
}

// posting is one passage's weighted count of a word.
type posting struct {
	passage int32
	tf      float32
}

// Index is BM25 over passages. Add them all, then Search; it is not safe
// for Add and Search at once.
type Index struct {
	terms    func(string) []string
	postings map[string][]posting
	lengths  []float32
	total    float64
}

// NewIndex returns an empty index whose terms are those terms gives of a
// text (Words, or Stems).
func NewIndex(terms func(string) []string) *Index {
	return &Index{terms: terms, postings: map[string][]posting{}}
}

// Len is how many passages the index holds.
func (ix *Index) Len() int { return len(ix.lengths) }

// Add indexes a passage made of fields, and returns its number (from 0,
// in the order added).
func (ix *Index) Add(fields ...Field) int {
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

// Hit is a passage found: its number, and its score.
type Hit struct {
	Passage int
	Score   float64
}

// Search ranks the passages for query, the n best first (ties by number);
// a passage with none of the query's words is not found.
func (ix *Index) Search(query string, n int) []Hit {
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
		idf := math.Log(1 + (float64(len(ix.lengths))-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := k1 * (1 - b + b*float64(ix.lengths[p.passage])/avg)
			scores[p.passage] += idf * tf * (k1 + 1) / (tf + norm)
		}
	}
	hits := make([]Hit, 0, len(scores))
	for p, s := range scores {
		hits = append(hits, Hit{int(p), s})
	}
	slices.SortFunc(hits, func(x, y Hit) int {
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

// Words are the words of s as the index counts them: runs of letters and
// digits, in lower case.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Stems are Words cut to a rough stem, so that a question's "flags" finds
// a doc's "flag", "setting" "set" and "defined" "define": plurals, -ing
// and -ed go.
func Stems(s string) []string {
	words := Words(s)
	for i, w := range words {
		words[i] = stem(w)
	}
	return words
}

// stem is w without the common English endings of a plural, a gerund or a
// past tense, when what is left is a word still.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ing"):
		return strings.TrimSuffix(w[:n-3], "e")
	case n > 4 && strings.HasSuffix(w, "ed"):
		return strings.TrimSuffix(w[:n-2], "e")
	case n > 4 && strings.HasSuffix(w, "e"):
		return w[:n-1]
	}
	return w
}
