package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/folio-mcp/folio/docsearch"
)

// hitsWanted is how many passages a search ranks, as TestStructured asks.
const hitsWanted = 60

// engine indexes the passages of files and ranks them for a question.
type engine interface {
	// add indexes the passages of f.
	add(f file) error
	// flush makes every passage added searchable.
	flush() error
	search(q string) ([]place, error)
	close() error
}

// place is where a passage is: its file and its lines.
type place struct {
	path        string
	first, last int
}

// folio is docsearch's index as search_docs uses it: a document put
// whole, cut into its passages by the index (as chunks cuts them here),
// ranked by BM25F over the passage and its section, a question's stop
// words dropped.
type folio struct {
	ix *docsearch.Index
}

func newFolio() *folio { return &folio{ix: docsearch.New()} }

func (f *folio) add(fl file) error {
	f.ix.Put(fl.path, "v1", []byte(fl.text))
	return nil
}

func (f *folio) flush() error { return nil }

func (f *folio) search(q string) ([]place, error) {
	hits, err := f.ix.Search(context.Background(), q, hitsWanted, nil)
	if err != nil {
		return nil, err
	}
	ps := make([]place, len(hits))
	for i, h := range hits {
		ps[i] = place{h.Path, h.First, h.Last}
	}
	return ps, nil
}

func (f *folio) close() error { return nil }

// bleveOptions say how a bleve index is made.
type bleveOptions struct {
	analyzer string // en.AnalyzerName or standard.Name
	scoring  string // index.BM25Scoring or index.TFIDFScoring
	path     string // "" for scorch in memory
	// upsidedown makes the index with bleve.NewMemOnly (upsidedown over
	// gtreap) in place of scorch.
	upsidedown bool
	batch      int
	// trueLength passes bleve's BM25 the mean length of each field, in
	// tokens, in place of what it computes itself (distinct terms over
	// documents).
	trueLength bool
	// oneField indexes the headings twice and the body as one field,
	// searched alone, as folio's index counts them.
	oneField bool
}

// bleveEngine is a bleve index of two text fields, body and headings,
// searched by a match query on each, the headings' boosted 2.
type bleveEngine struct {
	opts   bleveOptions
	idx    bleve.Index
	b      *bleve.Batch
	tokens map[string]int // analyzed tokens of each field, for trueLength
	docs   int
}

// indexMapping is a static mapping of body and headings, analyzed and
// indexed only (not stored, no term vectors, not in _all, no doc values).
func indexMapping(analyzer, scoring string) *mapping.IndexMappingImpl {
	doc := bleve.NewDocumentStaticMapping()
	for _, name := range []string{"body", "headings"} {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		doc.AddFieldMappingsAt(name, f)
	}
	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzer
	m.ScoringModel = scoring
	return m
}

func newBleve(o bleveOptions) (*bleveEngine, error) {
	m := indexMapping(o.analyzer, o.scoring)
	var idx bleve.Index
	var err error
	switch {
	case o.upsidedown:
		idx, err = bleve.NewMemOnly(m)
	default:
		idx, err = bleve.NewUsing(o.path, m, scorch.Name, scorch.Name, nil)
	}
	if err != nil {
		return nil, err
	}
	return &bleveEngine{opts: o, idx: idx, b: idx.NewBatch(), tokens: map[string]int{}}, nil
}

// add indexes f's chunks, each under an id that says where it is.
func (e *bleveEngine) add(f file) error {
	for _, c := range chunks(f, chunkWords) {
		if err := e.addChunk(c); err != nil {
			return err
		}
	}
	return nil
}

func (e *bleveEngine) addChunk(c chunk) error {
	fields := map[string]any{"body": c.body, "headings": c.headings}
	if e.opts.oneField {
		fields = map[string]any{"body": c.headings + "\n" + c.headings + "\n" + c.body}
	}
	if e.opts.trueLength {
		a := e.idx.Mapping().AnalyzerNamed(e.opts.analyzer)
		for name, text := range fields {
			e.tokens[name] += len(a.Analyze([]byte(text.(string))))
		}
	}
	e.docs++
	if err := e.b.Index(fmt.Sprintf("%d:%d:%s", c.first, c.last, c.path), fields); err != nil {
		return err
	}
	if e.b.Size() >= e.opts.batch {
		return e.flush()
	}
	return nil
}

func (e *bleveEngine) flush() error {
	if e.b.Size() == 0 {
		return nil
	}
	err := e.idx.Batch(e.b)
	e.b.Reset()
	return err
}

func (e *bleveEngine) search(question string) ([]place, error) {
	body := bleve.NewMatchQuery(question)
	body.SetField("body")
	headings := bleve.NewMatchQuery(question)
	headings.SetField("headings")
	headings.SetBoost(2)
	var q query.Query = bleve.NewDisjunctionQuery(body, headings)
	if e.opts.oneField {
		q = body
	}
	req := bleve.NewSearchRequestOptions(q, hitsWanted, 0, false)
	ctx := context.Background()
	if e.opts.trueLength {
		// bleve takes a field's mean length as ceil(FieldCardinality /
		// DocCount); a field's token total in place of its cardinality
		// makes that the true mean.
		ctx = context.WithValue(ctx, search.BM25StatsKey, &search.BM25Stats{DocCount: float64(e.docs), FieldCardinality: e.tokens})
	}
	res, err := e.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	ps := make([]place, len(res.Hits))
	for i, h := range res.Hits {
		if ps[i], err = parsePlace(h.ID); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// parsePlace reads back a chunk's id, FIRST:LAST:PATH.
func parsePlace(id string) (place, error) {
	first, rest, _ := strings.Cut(id, ":")
	last, path, ok := strings.Cut(rest, ":")
	f, err1 := strconv.Atoi(first)
	l, err2 := strconv.Atoi(last)
	if !ok || err1 != nil || err2 != nil {
		return place{}, fmt.Errorf("bleve answered an id not made here: %q", id)
	}
	return place{path, f, l}, nil
}

func (e *bleveEngine) close() error { return e.idx.Close() }

// meanLength is what bleve's BM25 takes for the mean length of field in
// idx (ceil of the field's distinct terms over the documents), and its
// true mean in analyzed tokens over the chunks cs.
func meanLength(idx bleve.Index, analyzer, field string, cs []chunk) (bleveMean, trueMean float64, err error) {
	dict, err := idx.FieldDict(field)
	if err != nil {
		return 0, 0, err
	}
	defer dict.Close()
	docs, err := idx.DocCount()
	if err != nil {
		return 0, 0, err
	}
	a := idx.Mapping().AnalyzerNamed(analyzer)
	tokens := 0
	for _, c := range cs {
		text := c.body
		if field == "headings" {
			text = c.headings
		}
		tokens += len(a.Analyze([]byte(text)))
	}
	return math.Ceil(float64(dict.Cardinality()) / float64(docs)), float64(tokens) / float64(docs), nil
}

// The analyzers and scoring models by their names here.
var (
	analyzers = map[string]string{"en": en.AnalyzerName, "standard": standard.Name}
	scorings  = map[string]string{"bm25": index.BM25Scoring, "tfidf": index.TFIDFScoring}
)
