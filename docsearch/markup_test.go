package docsearch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/tokencount"
)

// TestMarkupCost reports what answers pay for markup: for each of the
// fixture's HTML documents (Go's spec, memory model and assembler guide),
// every passage given alone as an answer gives it, its opening line
// aside, against the passage's lines as the file has them, in o200k_base
// tokens (go test -run MarkupCost -v ./docsearch). An answer gives the
// text a reader sees, so it must cost well under the markup; and every
// label of the fixture's questions in these documents is still found in
// the text (the evaluation would lose hits otherwise).
func TestMarkupCost(t *testing.T) {
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	qs := questions(t)
	for _, name := range []string{"go/go_spec.html", "go/go_mem.html", "go/asm.html"} {
		src, err := os.ReadFile(filepath.Join(fixture, "corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		ix := New()
		ix.Put(name, "v1", src)
		var markup, answer, words int
		for _, u := range Units(name, src) {
			words += counter.Count(u.Text)
		}
		var text strings.Builder
		for _, e := range ix.entries {
			h := Hit{Passage: Passage{Path: name, Version: "v1", Span: e.span, Headings: e.headings}}
			a, err := pack(Query{MaxTokens: 1 << 20}, []Hit{h}, map[string]*fresh{name: {src: src, version: "v1", ok: true}}, counter.Count)
			if err != nil || a.Passages != 1 {
				t.Fatalf("%s:%d-%d: %v, %d passages", name, e.span.First, e.span.Last, err, a.Passages)
			}
			_, body, _ := strings.Cut(a.Text, "\n")
			markup += counter.Count(string(src[e.span.Start:e.span.End]))
			answer += counter.Count(body)
			text.WriteString(body + "\n")
		}
		ratio := float64(answer) / float64(markup)
		t.Logf("%s: %d passages, %d tokens as written, %d as answered: %.2f (their words alone, as indexed: %d)", name, len(ix.entries), markup, answer, ratio, words)
		if ratio > 0.85 {
			t.Errorf("%s: answers cost %.2f of the markup", name, ratio)
		}
		for _, q := range qs {
			for _, a := range q.Answers {
				if a.Path == name && !strings.Contains(text.String(), a.Text) {
					t.Errorf("%s's label in %s is not in the answers' text: %q", q.ID, name, a.Text)
				}
			}
		}
	}
}
