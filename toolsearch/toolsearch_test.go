package toolsearch

import (
	"encoding/json"
	"os"
	"testing"
)

// catalog is testdata/toolcatalogs: the tools of real MCP servers, as
// they advertise them, and queries written the way a user asks, each with
// the tool that does it.
type catalog struct {
	docs    []Doc
	queries []struct{ Query, Tool string }
}

func loadCatalog(t testing.TB) catalog {
	t.Helper()
	var c struct {
		Servers []struct {
			Name  string
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
		}
	}
	var q struct {
		Queries []struct{ Query, Tool string }
	}
	for file, v := range map[string]any{"catalogs.json": &c, "queries.json": &q} {
		b, err := os.ReadFile("../testdata/toolcatalogs/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	out := catalog{queries: q.Queries}
	for _, s := range c.Servers {
		for _, tool := range s.Tools {
			out.docs = append(out.docs, Doc{Name: s.Name + "__" + tool.Name, Upstream: s.Name, Description: tool.Description, Schema: tool.InputSchema})
		}
	}
	return out
}

// TestRecall: on 206 tools of 19 real servers and 95 tasks, the right tool
// is first for most and among the first five for at least 90% (go test
// -run Recall -v ./toolsearch).
func TestRecall(t *testing.T) {
	c := loadCatalog(t)
	if len(c.docs) < 150 || len(c.queries) < 80 {
		t.Fatalf("the fixture holds %d tools and %d queries", len(c.docs), len(c.queries))
	}
	ix := New(c.docs)
	at1, at5 := 0, 0
	for _, q := range c.queries {
		hits := ix.Search(q.Query, 5)
		for rank, h := range hits {
			if c.docs[h.Doc].Name == q.Tool {
				if rank == 0 {
					at1++
				}
				at5++
				break
			}
		}
		if len(hits) == 0 || c.docs[hits[0].Doc].Name != q.Tool {
			var got []string
			for _, h := range hits {
				got = append(got, c.docs[h.Doc].Name)
			}
			t.Logf("%q: want %s, got %v", q.Query, q.Tool, got)
		}
	}
	r1, r5 := float64(at1)/float64(len(c.queries)), float64(at5)/float64(len(c.queries))
	t.Logf("%d tools, %d queries: recall@1 %.3f, recall@5 %.3f", len(c.docs), len(c.queries), r1, r5)
	if r5 < 0.9 {
		t.Errorf("recall@5 %.3f, under 0.9", r5)
	}
}

// BenchmarkSearch: one query over 1,030 tools (the fixture five times).
func BenchmarkSearch(b *testing.B) {
	c := loadCatalog(b)
	var docs []Doc
	for range 5 {
		docs = append(docs, c.docs...)
	}
	ix := New(docs)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(c.queries[i%len(c.queries)].Query, 5)
	}
}
