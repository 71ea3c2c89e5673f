//go:build !bleve

package main

import "github.com/folio-mcp/folio/docsearch"

// search ranks passages for query with folio's docsearch.
func search(query string, passages []string) ([]int, error) {
	ix := docsearch.NewIndex(docsearch.Stems)
	for _, p := range passages {
		ix.Add(docsearch.Field{Text: p, Weight: 1})
	}
	var hits []int
	for _, h := range ix.Search(query, 10) {
		hits = append(hits, h.Passage)
	}
	return hits, nil
}
