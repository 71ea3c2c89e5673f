// Package docsearch answers a question about a docs tree with the
// passages most likely to answer it: an Index of documents' passages
// (cut from their structure, see package outline), ranked by BM25F over
// their fields, and Answer, which packs the best of them, read fresh from
// their files, into a token budget (HTML and MDX as the text a reader
// sees); Tree keeps the index of a view's roots. Words, stems, stop
// words and the BM25 formula are package rank's; the tables are this
// package's own.
package docsearch

import (
	"unicode/utf8"

	"github.com/folio-mcp/folio/internal/rank"
)

// words are the words of s as docs search reads them (rank.Words): runs
// of CJK letters in pairs, so that a question's "索引" finds a document's
// "建立索引时"; camelCase left whole, as docs write names.
func words(s string) []string { return rank.Words(s, rank.Options{CJK: true}) }

// stems are words(s) cut to their stems by st, so that a question's
// "issues" finds a doc's "issue", "closing" "closes".
func stems(st *rank.Stemmer, s string) []string { return st.Stems(s, rank.Options{CJK: true}) }

// isCJKPair reports whether the word w is of CJK letters (a pair of them,
// as words cuts them).
func isCJKPair(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return rank.IsCJK(r)
}

// isStop reports whether the stem w is a stop word of questions (see
// rank.Options.IsStop).
func isStop(w string) bool { return rank.Options{CJK: true}.IsStop(w) }
