// Package rank is what folio's two searches rank with: the analyzer that
// cuts a text into words (Words: letters and digits in lower case, with
// camelCase and CJK as options), the stop words (Options.IsStop), one English
// stemmer (Stem: Snowball's English, Porter2, by the Snowball project's
// own Go code), and the BM25 formula (BM25, IDF). Docs search (package
// docsearch) and tool search (package toolsearch) each keep their own
// tables of postings and rank with these; outline's section finder
// reads titles with Words.
package rank

import "math"

// BM25 are the parameters of Okapi BM25: K1, how soon a term's count
// saturates, and B, how much an entry's length normalises it.
type BM25 struct{ K1, B float64 }

// Usual are the usual parameters, k1 1.2 and b 0.75, which both searches
// rank with.
var Usual = BM25{K1: 1.2, B: 0.75}

// Score is the BM25 score of a term of inverse document frequency idf
// (see IDF) counted tf times in an entry of the given length, where
// entries are avg long on average.
func (p BM25) Score(idf, tf, length, avg float64) float64 {
	return idf * tf * (p.K1 + 1) / (tf + p.K1*(1-p.B+p.B*length/avg))
}

// IDF is the inverse document frequency of a term that df of n entries
// hold, as Lucene's BM25 has it: never below zero.
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}
