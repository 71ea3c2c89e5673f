//go:build bleve

package main

import (
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// search ranks passages for query with bleve: scorch in memory, the en
// analyzer, BM25.
func search(query string, passages []string) ([]int, error) {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = en.AnalyzerName
	m.ScoringModel = index.BM25Scoring
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	for i, p := range passages {
		if err := idx.Index(strconv.Itoa(i), map[string]any{"body": p}); err != nil {
			return nil, err
		}
	}
	res, err := idx.Search(bleve.NewSearchRequest(bleve.NewMatchQuery(query)))
	if err != nil {
		return nil, err
	}
	var hits []int
	for _, h := range res.Hits {
		n, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, err
		}
		hits = append(hits, n)
	}
	return hits, nil
}
