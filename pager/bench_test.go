package pager

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	textcorpus "github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/tokencount"
)

// corpus returns about size bytes of real text of a kind that
// internal/corpus knows.
func corpus(tb testing.TB, kind string, size int) []byte {
	tb.Helper()
	return textcorpus.For(tb, kind, size)
}

// pageWhole pages text at budget and returns the pages.
func pageWhole(tb testing.TB, c Counter, text []byte, budget int, format Format) []Page {
	var pages []Page
	for off := 0; ; {
		p, err := Fit(Request{Counter: c, MaxTokens: budget, Format: format, URI: testURI, Version: testVersion,
			Window: text[off:], EOF: true, Cursor: func(end int) string { return fakeCursor(off + end) }})
		if err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, p)
		if !p.HasMore {
			return pages
		}
		off += p.End
	}
}

// meanFill is the mean of tokens/budget over all pages but the last.
func meanFill(pages []Page, budget int) float64 {
	if len(pages) < 2 {
		return 1
	}
	sum := 0
	for _, p := range pages[:len(pages)-1] {
		sum += p.Tokens
	}
	return float64(sum) / float64(budget*(len(pages)-1))
}

// BenchmarkCount counts 1 MiB of real text once: the unit the paging
// benchmarks are compared with.
func BenchmarkCount(b *testing.B) {
	for _, kind := range textcorpus.Kinds() {
		text := string(corpus(b, kind, 1<<20))
		c := counter(b, tokencount.O200kBase)
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.Count(text)
			}
		})
	}
}

// BenchmarkPageWhole pages 1 MiB of real text at 2,000 tokens, in JSON
// pages and (KIND-text) in text pages. Each
// iteration also counts the text once, right before, and the benchmark
// reports the paging time as a multiple of that count ("x-count"), and the
// bytes the counter was handed per byte of text ("counted/B", which does not
// depend on the machine's load).
func BenchmarkPageWhole(b *testing.B) {
	for _, bench := range pageWholeCases() {
		kind, format := bench.kind, bench.format
		text := corpus(b, kind, 1<<20)
		c := &meteredCounter{Counter: counter(b, tokencount.O200kBase)}
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var pages []Page
			var counting, paging time.Duration
			for b.Loop() {
				t0 := time.Now()
				c.Counter.Count(string(text))
				t1 := time.Now()
				c.bytes.Store(0)
				pages = pageWhole(b, c, text, 2000, format)
				paging += time.Since(t1)
				counting += t1.Sub(t0)
			}
			b.ReportMetric(float64(len(pages)), "pages")
			b.ReportMetric(meanFill(pages, 2000)*100, "fill%")
			b.ReportMetric(float64(paging)/float64(counting), "x-count")
			b.ReportMetric(float64(c.bytes.Load())/float64(len(text)), "counted/B")
		})
	}
}

type pageWholeCase struct {
	name, kind string
	format     Format
}

// pageWholeCases are the corpus kinds in JSON pages, then in text pages.
func pageWholeCases() []pageWholeCase {
	var cases []pageWholeCase
	for _, format := range []Format{JSON, Text} {
		for _, kind := range textcorpus.Kinds() {
			name := kind
			if format == Text {
				name += "-text"
			}
			cases = append(cases, pageWholeCase{name, kind, format})
		}
	}
	return cases
}

// meteredCounter counts the bytes it is asked to count.
type meteredCounter struct {
	Counter
	bytes atomic.Int64
}

func (c *meteredCounter) Count(s string) int {
	c.bytes.Add(int64(len(s)))
	return c.Counter.Count(s)
}

// BenchmarkPageRuns pages long runs of one character against as many bytes
// of prose: the cost must stay within a small factor.
func BenchmarkPageRuns(b *testing.B) {
	c := counter(b, tokencount.O200kBase)
	prose := corpus(b, "markdown", 200000)
	for _, tc := range []struct {
		name string
		text []byte
	}{
		{"a-200000", bytes.Repeat([]byte("a"), 200000)},
		{"prose-200000", prose},
		{"spaces-100000", bytes.Repeat([]byte(" "), 100000)},
		{"prose-100000", prose[:bytes.LastIndexByte(prose[:100000], '\n')+1]},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			var pages []Page
			for b.Loop() {
				pages = pageWhole(b, c, tc.text, 2000, JSON)
			}
			b.ReportMetric(float64(len(pages)), "pages")
		})
	}
}

// BenchmarkSeedLine pages the seed's 120,000-code-point line at 2,000
// tokens with each counter.
func BenchmarkSeedLine(b *testing.B) {
	for _, name := range tokencount.Names() {
		c := counter(b, name)
		b.Run(name, func(b *testing.B) {
			var pages []Page
			for b.Loop() {
				pages = pageWhole(b, c, seedLine(), 2000, JSON)
			}
			b.ReportMetric(float64(len(pages)), "pages")
		})
	}
}

func TestFill(t *testing.T) {
	c := counter(t, tokencount.O200kBase)
	for _, kind := range []string{"go", "markdown"} {
		pages := pageWhole(t, c, corpus(t, kind, 256<<10), 2000, JSON)
		fill := meanFill(pages, 2000)
		t.Logf("%s: %d pages, mean fill %.4f", kind, len(pages), fill)
		if fill < 0.98 {
			t.Errorf("%s: mean fill %.4f of non-final pages, want at least 0.98", kind, fill)
		}
	}
}
