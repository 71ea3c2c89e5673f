package toolsearch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// fixture is testdata/toolcatalogs: the tools of real MCP servers as they
// advertise them (catalogs.json), and requests written the way users ask,
// blind to any ranking, each with the tools that do it (requests.jsonl,
// split once into tune and heldout by split.txt).
const fixture = "../testdata/toolcatalogs/"

// request is one line of requests.jsonl, with its half.
type request struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Tools []string `json:"tools"`
	Split string   `json:"-"`
}

// catalog is the fixture read.
type catalog struct {
	docs     []Doc
	requests []request
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
	b, err := os.ReadFile(fixture + "catalogs.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	var out catalog
	names := map[string]bool{}
	for _, s := range c.Servers {
		for _, tool := range s.Tools {
			d := Doc{Name: s.Name + "__" + tool.Name, Upstream: s.Name, Description: tool.Description, Schema: tool.InputSchema}
			out.docs = append(out.docs, d)
			names[d.Name] = true
		}
	}
	split := map[string]string{}
	f, err := os.Open(fixture + "split.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if id, half, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(id, "#") {
			split[id] = half
		}
	}
	b, err = os.ReadFile(fixture + "requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r request
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Split = split[r.ID]; r.Split == "" {
			t.Fatalf("%s is in no half of split.txt", r.ID)
		}
		for _, tool := range r.Tools {
			if !names[tool] {
				t.Fatalf("%s: no tool %s in the catalogs", r.ID, tool)
			}
		}
		out.requests = append(out.requests, r)
	}
	return out
}

// recall is a ranking's recall@1 and recall@5 on one half of the
// requests: how often a tool that does the request is first, and among
// the first five.
type recall struct {
	n, at1, at5 int
	misses      []string
}

func (r recall) String() string {
	return fmt.Sprintf("recall@1 %.3f, recall@5 %.3f (%d requests)", float64(r.at1)/float64(r.n), float64(r.at5)/float64(r.n), r.n)
}

// measure ranks c's tools with sig for every request of half.
func measure(c catalog, sig signals, half string) recall {
	ix := newIndex(c.docs, sig)
	var r recall
	for _, q := range c.requests {
		if q.Split != half {
			continue
		}
		r.n++
		hits := ix.Search(q.Query, 5)
		var got []string
		for rank, h := range hits {
			got = append(got, c.docs[h.Doc].Name)
			if slices.Contains(q.Tools, c.docs[h.Doc].Name) {
				if rank == 0 {
					r.at1++
				}
				r.at5++
				break
			}
		}
		if len(got) == 0 || !slices.Contains(q.Tools, got[0]) {
			r.misses = append(r.misses, fmt.Sprintf("%s %q: want %v, got %v", q.ID, q.Query, q.Tools, got))
		}
	}
	return r
}

// TestRecall reports tool search's recall on the fixture's requests: on
// the tune half, which the ranking's choices were made by, and on the
// held-out half, which none was; and plain BM25's beside them (go test
// -run Recall -v ./toolsearch; MISSES=1 lists what it ranks wrong). It
// fails where the ranking finds fewer tools among its first five than
// plain BM25 does.
func TestRecall(t *testing.T) {
	c := loadCatalog(t)
	if len(c.docs) < 200 || len(c.requests) < 240 {
		t.Fatalf("the fixture holds %d tools and %d requests", len(c.docs), len(c.requests))
	}
	for _, half := range []string{"tune", "heldout"} {
		plain, r := measure(c, signals{}, half), measure(c, chosen, half)
		t.Logf("%s: %s; plain BM25 %s", half, r, plain)
		if testing.Verbose() && os.Getenv("MISSES") != "" {
			for _, m := range r.misses {
				t.Log(m)
			}
		}
		if r.at5 <= plain.at5 {
			t.Errorf("%s: recall@5 %d of %d, plain BM25 %d", half, r.at5, r.n, plain.at5)
		}
	}
}

// TestSignals reports each signal's worth: plain BM25 with it alone, and
// the chosen ranking without it (go test -run Signals -v ./toolsearch).
func TestSignals(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("reports only")
	}
	c := loadCatalog(t)
	each := []struct {
		name string
		set  func(*signals, bool)
	}{
		{"field weights", func(s *signals, v bool) { s.weights = v }},
		{"stems", func(s *signals, v bool) { s.stems = v }},
		{"stop words", func(s *signals, v bool) { s.stop = v }},
		{"vocabulary", func(s *signals, v bool) { s.vocabulary = v }},
		{"operations", func(s *signals, v bool) { s.operations = v }},
		{"wordnet", func(s *signals, v bool) { s.wordnet = v }},
		{"server", func(s *signals, v bool) { s.server = v }},
		{"typos", func(s *signals, v bool) { s.typos = v }},
		{"named", func(s *signals, v bool) { s.named = v }},
	}
	for _, half := range []string{"tune", "heldout"} {
		t.Logf("%s: chosen %s; plain %s", half, measure(c, chosen, half), measure(c, signals{}, half))
		for _, e := range each {
			alone, without := signals{}, chosen
			e.set(&alone, true)
			e.set(&without, false)
			t.Logf("%s: %-13s alone %s; chosen without it %s", half, e.name, measure(c, alone, half), measure(c, without, half))
		}
	}
}

// BenchmarkSearch: one request over 1,000 tools (the fixture's, and again
// from its first).
func BenchmarkSearch(b *testing.B) {
	c := loadCatalog(b)
	var docs []Doc
	for len(docs) < 1000 {
		docs = append(docs, c.docs...)
	}
	docs = docs[:1000]
	ix := New(docs)
	for i := 0; b.Loop(); i++ {
		ix.Search(c.requests[i%len(c.requests)].Query, 5)
	}
	b.ReportMetric(float64(len(docs)), "tools")
}

// TestNamedServer: a request that names one server, whole or cut short,
// lifts that server's tools over another's that match it as well; one
// that names two lifts neither.
func TestNamedServer(t *testing.T) {
	docs := []Doc{
		{Name: "docs__search_docs", Upstream: "docs", Description: "Search documents by words."},
		{Name: "mongodb__search_docs", Upstream: "mongodb", Description: "Search documents by words."},
	}
	ix := New(docs)
	for _, c := range []struct {
		query string
		first int
	}{
		{"search the documents", 0},
		{"search the documents in mongo", 1},
		{"search the documents in mongodb", 1},
	} {
		hits := ix.Search(c.query, 2)
		if len(hits) != 2 || hits[0].Doc != c.first {
			t.Errorf("%q: %v, want %s first", c.query, hits, docs[c.first].Name)
		}
	}
	unnamed := chosen
	unnamed.named = false
	two := "search the documents of docs in mongodb"
	// The same scores (within rounding: the terms are summed in map
	// order).
	same := func(a, b Hit) bool { return a.Doc == b.Doc && math.Abs(a.Score-b.Score) < 1e-9 }
	if got, want := ix.Search(two, 2), newIndex(docs, unnamed).Search(two, 2); !slices.EqualFunc(got, want, same) {
		t.Errorf("%q: %v, without the lift %v", two, got, want)
	}
}

// TestStemsJoinForms: with stems alone among the signals, a request in
// the plural or in another verb form finds the tool that says the word
// otherwise ("files" a tool's "file", "closing" a tool's "closes",
// "labelled" "label"), by the stems of package rank; the tool that does
// not say it comes first in the catalog, so a tie would pick it.
func TestStemsJoinForms(t *testing.T) {
	docs := []Doc{
		{Name: "db__size", Upstream: "db", Description: "Show the size of a table."},
		{Name: "fs__size", Upstream: "fs", Description: "Show the size of a file."},
		{Name: "tracker__label", Upstream: "tracker", Description: "Label an issue."},
		{Name: "tracker__close", Upstream: "tracker", Description: "Closes an issue."},
		{Name: "tracker__open", Upstream: "tracker", Description: "Opens an issue."},
	}
	ix := newIndex(docs, signals{stems: true, stop: true})
	for query, want := range map[string]string{
		"size of my files":   "fs__size",
		"closing old issues": "tracker__close",
		"issues labelled":    "tracker__label",
	} {
		hits := ix.Search(query, 1)
		if len(hits) == 0 || docs[hits[0].Doc].Name != want {
			t.Errorf("%q: %v, want %s first", query, hits, want)
		}
	}
}
