//go:build !bleve

package main

import (
	"context"
	"strconv"

	"github.com/folio-mcp/folio/docsearch"
)

// search ranks passages for query with folio's docsearch: each passage a
// document of its own, named by its number.
func search(query string, passages []string) ([]int, error) {
	ix := docsearch.New()
	for i, p := range passages {
		ix.Put(strconv.Itoa(i)+".txt", "v1", []byte(p))
	}
	found, err := ix.Search(context.Background(), query, 10, nil)
	if err != nil {
		return nil, err
	}
	var hits []int
	for _, h := range found {
		n, err := strconv.Atoi(h.Path[:len(h.Path)-len(".txt")])
		if err != nil {
			return nil, err
		}
		hits = append(hits, n)
	}
	return hits, nil
}
