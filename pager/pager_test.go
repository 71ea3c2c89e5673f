package pager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/folio-mcp/folio/cursor"
	textcorpus "github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/tokencount"
)

const testURI = "file:///srv/docs/large.md"
const testVersion = "af1349b9f5f9a1a6a0404dea36dcc949"

func counter(t testing.TB, name string) Counter {
	t.Helper()
	c, err := tokencount.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fakeCursor stands for a signed cursor: deterministic in the offset, of a
// real cursor's length and randomness.
func fakeCursor(offset int) string {
	h := fmt.Sprintf("%016x", uint64(offset)*0x9e3779b97f4a7c15)
	return strings.Repeat(h, 4)[:58]
}

// pageAll pages text from the start and checks every page against the
// contract: it fits, it is valid JSON with the keys in order, the cursor
// is right, progress is made, and the pages reconstruct text.
func pageAll(t testing.TB, c Counter, text []byte, budget int) []Page {
	t.Helper()
	var pages []Page
	var got []byte
	off := 0
	for {
		p, err := Fit(Request{
			Counter: c, MaxTokens: budget, URI: testURI, Version: testVersion,
			Window: text[off:], EOF: true,
			Cursor: func(end int) string { return fakeCursor(off + end) },
		})
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		checkPage(t, c, p, budget)
		pj, err := Decode(p.JSON)
		if err != nil {
			t.Fatalf("offset %d: %v\n%s", off, err, p.JSON)
		}
		if pj.URI != testURI || pj.Version != testVersion || pj.HasMore != p.HasMore {
			t.Fatalf("offset %d: metadata %+v", off, pj)
		}
		if pj.Content != string(text[off:off+p.End]) {
			t.Fatalf("offset %d: content does not match the window", off)
		}
		got = append(got, pj.Content...)
		pages = append(pages, p)
		if !p.HasMore {
			if pj.NextCursor != nil || off+p.End != len(text) {
				t.Fatalf("last page at %d of %d, cursor %v", off+p.End, len(text), pj.NextCursor)
			}
			break
		}
		if pj.NextCursor == nil || *pj.NextCursor != fakeCursor(off+p.End) {
			t.Fatalf("offset %d: next_cursor %v", off, pj.NextCursor)
		}
		if p.End <= 0 {
			t.Fatalf("offset %d: no progress", off)
		}
		off += p.End
	}
	if !bytes.Equal(got, text) {
		t.Fatalf("pages do not reconstruct the text")
	}
	return pages
}

func checkPage(t testing.TB, c Counter, p Page, budget int) {
	t.Helper()
	if n := c.Count(string(p.JSON)); n != p.Tokens || n > budget {
		t.Fatalf("page counts %d (reported %d), budget %d", n, p.Tokens, budget)
	}
	if !json.Valid(p.JSON) {
		t.Fatalf("invalid JSON: %s", p.JSON)
	}
}

func seedLine() []byte {
	return []byte(strings.Repeat("中文🙂 \"quoted\" \\ path ", 6000))
}

func TestEstimateSeedLine(t *testing.T) {
	line := seedLine()
	if n := len([]rune(string(line))); n != 120000 {
		t.Fatalf("seed line has %d code points", n)
	}
	if n := counter(t, tokencount.Estimate).Count(string(line)); n != 55500 {
		t.Fatalf("estimate of the seed line = %d, the seed says 55,500", n)
	}
}

func TestReconstruction(t *testing.T) {
	cases := map[string]string{
		"seed line":       string(seedLine()),
		"empty":           "",
		"one char":        "x",
		"crlf":            strings.Repeat("line one\r\nline two\r\n", 300),
		"lone cr":         strings.Repeat("a\rb\r\r\n\n", 400),
		"bom":             "\ufeffhello\r\nworld\n" + strings.Repeat("bom ", 500),
		"controls":        strings.Repeat("\x00\x01\x1f\t\b\f\x7f<>&'\"\\", 300),
		"line separators": strings.Repeat("a\u2028b\u2029c ", 800),
		"cjk":             strings.Repeat("日本語のテキストと한국어 텍스트와中文文本", 400),
		"emoji":           strings.Repeat("🙂👍🏽👨‍👩‍👧‍👦🇫🇷", 500),
		"a run":           strings.Repeat("a", 50000),
		"space run":       strings.Repeat(" ", 50000),
		"newline run":     strings.Repeat("\n", 20000),
		"prose":           strings.Repeat("The quick brown fox jumps over the lazy dog. ", 800),
	}
	for _, name := range tokencount.Names() {
		c := counter(t, name)
		for label, text := range cases {
			for _, budget := range []int{200, 2000} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, label, budget), func(t *testing.T) {
					pageAll(t, c, []byte(text), budget)
				})
			}
		}
	}
}

func TestSeedLinePageCounts(t *testing.T) {
	for _, tc := range []struct {
		counter string
		most    int
	}{{tokencount.Estimate, 31}, {tokencount.O200kBase, 23}} {
		pages := pageAll(t, counter(t, tc.counter), seedLine(), 2000)
		t.Logf("%s: %d pages", tc.counter, len(pages))
		if len(pages) > tc.most {
			t.Errorf("%s: %d pages at 2,000 tokens, want at most %d", tc.counter, len(pages), tc.most)
		}
	}
}

func TestBudgetTooSmall(t *testing.T) {
	c := counter(t, tokencount.O200kBase)
	req := Request{Counter: c, MaxTokens: 10, URI: testURI, Version: testVersion,
		Window: []byte("hello world"), EOF: true, Cursor: fakeCursor}
	_, err := Fit(req)
	var be *BudgetError
	if !errors.As(err, &be) || !errors.Is(err, ErrBudgetTooSmall) {
		t.Fatalf("err = %v, want a BudgetError", err)
	}
	req.MaxTokens = be.Min
	p, err := Fit(req)
	if err != nil {
		t.Fatalf("at the named minimum %d: %v", be.Min, err)
	}
	if p.End == 0 {
		t.Fatalf("no progress at the minimum budget")
	}
	// The empty file needs its metadata only.
	req.Window, req.MaxTokens = nil, 5
	if _, err := Fit(req); !errors.Is(err, ErrBudgetTooSmall) {
		t.Fatalf("empty file at 5 tokens: %v", err)
	}
}

func TestNeverSplitsCRLF(t *testing.T) {
	c := counter(t, tokencount.Estimate)
	text := []byte(strings.Repeat("\r\n", 5000))
	for _, p := range pageAll(t, c, text, 100) {
		if p.End%2 != 0 {
			t.Fatalf("page of %d bytes splits a CRLF", p.End)
		}
	}
}

func TestWindowNotAtEOF(t *testing.T) {
	c := counter(t, tokencount.O200kBase)
	text := []byte(strings.Repeat("é", 10) + "\r\n")
	// A window that stops inside a code point or after a lone "\r" is
	// trimmed: the page never ends there.
	for _, cut := range []int{3, len(text) - 1} {
		p, err := Fit(Request{Counter: c, MaxTokens: 2000, URI: testURI, Version: testVersion,
			Window: text[:cut], EOF: false, Cursor: fakeCursor})
		if err != nil {
			t.Fatal(err)
		}
		if !validCut(text, p.End) || !p.HasMore {
			t.Fatalf("window of %d: page ends at %d (has_more %v)", cut, p.End, p.HasMore)
		}
	}
}

func TestGallop(t *testing.T) {
	for n := 2; n < 40; n++ {
		for want := 0; want < n; want++ {
			for k := 1; k < n; k++ {
				calls := 0
				got := gallop(k, n, func(i int) bool {
					calls++
					if i <= 0 || i >= n {
						t.Fatalf("ok(%d) called with n=%d", i, n)
					}
					return i <= want
				})
				if got != want {
					t.Fatalf("gallop(%d, %d) = %d, want %d", k, n, got, want)
				}
			}
		}
	}
}

// With the estimate counter a page's count only grows with its content (a
// cursor is always 58 one-unit characters), so "the longest prefix that
// fits" is exact: one more code point must not fit.
func TestEstimatePagesAreLongest(t *testing.T) {
	c := counter(t, tokencount.Estimate)
	text, err := os.ReadFile("../testdata/mixed.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{60, 150, 400} {
		off := 0
		for _, p := range pageAll(t, c, text, budget) {
			if !p.HasMore {
				break
			}
			next := nextCut(text[off:], p.End)
			longer := appendHead(nil, testURI)
			longer = jsonvalue.AppendEscaped(longer, text[off:off+next])
			if off+next == len(text) {
				longer = appendFinalTail(longer, testVersion)
			} else {
				longer = appendMoreTail(longer, testVersion, fakeCursor(off+next))
			}
			if n := c.Count(string(longer)); n <= budget {
				t.Fatalf("budget %d, offset %d: the page stops at %d, but %d bytes fit (%d tokens)", budget, off, p.End, next, n)
			}
			off += p.End
		}
	}
}

// shrink, the fallback when the piecewise search keeps overshooting, finds
// a fitting page by whole counts alone.
func TestShrink(t *testing.T) {
	c := counter(t, tokencount.O200kBase)
	text := []byte(strings.Repeat("中文🙂 \"quoted\" \\ path ", 200))
	req := Request{Counter: c, MaxTokens: 300, URI: testURI, Version: testVersion, Window: text, EOF: true, Cursor: fakeCursor}
	want, err := Fit(req)
	if err != nil {
		t.Fatal(err)
	}
	f := &fitter{req: req, w: text, head: string(appendHead(nil, testURI))}
	p, err := f.shrink(len(text))
	if err != nil {
		t.Fatal(err)
	}
	if p.Tokens > 300 || p.End < want.End*9/10 || !validCut(text, p.End) {
		t.Fatalf("shrink: %d bytes, %d tokens; the search found %d bytes", p.End, p.Tokens, want.End)
	}
	req.MaxTokens = 20
	f.req = req
	if _, err := f.shrink(len(text)); !errors.Is(err, ErrBudgetTooSmall) {
		t.Fatalf("tiny budget: %v", err)
	}
}

// TestTextPageCost reads whole files in pages of both formats, with real
// cursors, and compares the tokens they cost with the file's own count: the
// Text format's goal is at most 1.12 times the file at 500 tokens and 1.03
// at 2,000, with no footer over 45 tokens. It logs the table docs/tools.md
// quotes (go test -run TextPageCost -v ./pager).
func TestTextPageCost(t *testing.T) {
	c := counter(t, tokencount.O200kBase)
	ring, err := cursor.NewRing(bytes.Repeat([]byte{7}, cursor.KeyLen))
	if err != nil {
		t.Fatal(err)
	}
	codec := cursor.NewCodec(ring, 0, nil)
	issued := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	files := []struct {
		name string
		text []byte
	}{
		{"net/http/server.go", textcorpus.File(t, "src/net/http/server.go")},
		{"doc/go_spec.html", textcorpus.File(t, "doc/go_spec.html")},
		{"doc/markdown.md", textcorpus.For(t, "markdown", 200_000)},
		{"doc/cjk.md", textcorpus.For(t, "cjk", 200_000)},
	}
	goal := map[int]float64{500: 1.12, 2000: 1.03}
	t.Logf("%-28s %8s %6s %8s %8s %6s %6s %6s", "file", "raw", "budget", "json", "text", "json/r", "text/r", "footer")
	for _, f := range files {
		raw := c.Count(string(f.text))
		uri := "file:///usr/local/go/src/" + f.name
		for _, budget := range []int{500, 2000} {
			cost, footer := map[Format]int{}, 0
			for _, format := range []Format{JSON, Text} {
				var got []byte
				for off := 0; ; {
					p, err := Fit(Request{Counter: c, MaxTokens: budget, Format: format, URI: uri, Version: testVersion,
						Window: f.text[off:], EOF: true, Cursor: func(end int) string {
							s, err := codec.Encode(cursor.State{Offset: int64(off + end), Issued: issued}, uri, "alice")
							if err != nil {
								t.Fatal(err)
							}
							return s
						}})
					if err != nil {
						t.Fatal(err)
					}
					d, err := p.Decode()
					if err != nil || p.Tokens > budget {
						t.Fatalf("%s %s at %d: %v, %d tokens", f.name, format, budget, err, p.Tokens)
					}
					if format == Text {
						footer = max(footer, c.Count(string(p.JSON[len(d.Content):])))
					}
					got = append(got, d.Content...)
					cost[format] += p.Tokens
					if !p.HasMore {
						break
					}
					off += p.End
				}
				if !bytes.Equal(got, f.text) {
					t.Fatalf("%s %s at %d: the pages do not give back the file", f.name, format, budget)
				}
			}
			jr, tr := float64(cost[JSON])/float64(raw), float64(cost[Text])/float64(raw)
			t.Logf("%-28s %8d %6d %8d %8d %6.3f %6.3f %6d", f.name, raw, budget, cost[JSON], cost[Text], jr, tr, footer)
			if tr > goal[budget] || footer > 45 {
				t.Errorf("%s in text pages of %d costs %.3f times the file (goal %.2f), footers up to %d tokens (goal 45)", f.name, budget, tr, goal[budget], footer)
			}
		}
	}
}
