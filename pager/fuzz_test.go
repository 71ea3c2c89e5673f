package pager

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/tokencount"
)

// FuzzReconstruction pages arbitrary valid UTF-8 at arbitrary budgets, in
// both formats: every page fits, every page makes progress, and the pages
// give back the text.
func FuzzReconstruction(f *testing.F) {
	f.Add([]byte("hello\r\nworld"), uint16(120), uint8(0))
	f.Add([]byte(strings.Repeat("中文🙂 \"quoted\" \\ path ", 40)), uint16(90), uint8(1))
	f.Add([]byte("\ufeff\x01\x1f\u2028\r\r\n\n"), uint16(75), uint8(2))
	f.Add([]byte(strings.Repeat(" ", 3000)), uint16(100), uint8(0))
	f.Add([]byte("no newline at the end"), uint16(60), uint8(3))
	f.Add([]byte(strings.Repeat("line\n", 500)), uint16(200), uint8(4))
	counters := map[uint8]Counter{}
	for i, name := range tokencount.Names() {
		counters[uint8(i)] = counter(f, name)
	}
	f.Fuzz(func(t *testing.T, text []byte, budget uint16, which uint8) {
		if !utf8.Valid(text) {
			text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
		}
		c := counters[which%uint8(len(counters))]
		format := Format(which / uint8(len(counters)) % 2)
		b := int(budget%4000) + 1
		var got []byte
		for off := 0; ; {
			p, err := Fit(Request{Counter: c, MaxTokens: b, Format: format, URI: testURI, Version: testVersion,
				Window: text[off:], EOF: true, Cursor: func(end int) string { return fakeCursor(off + end) }})
			if err != nil {
				if _, ok := err.(*BudgetError); ok {
					return // a budget below the metadata: a valid answer
				}
				t.Fatal(err)
			}
			if n := c.Count(string(p.JSON)); n > b || n != p.Tokens {
				t.Fatalf("page counts %d (reported %d), budget %d", n, p.Tokens, b)
			}
			if p.Format != format {
				t.Fatalf("a %s page says it is %s", format, p.Format)
			}
			pj, err := p.Decode()
			if err != nil {
				t.Fatalf("%v: %s", err, p.JSON)
			}
			if pj.HasMore != p.HasMore || pj.URI != testURI || pj.Version != testVersion {
				t.Fatalf("page %+v decodes as %+v", p, pj)
			}
			if p.HasMore && p.End == 0 {
				t.Fatal("a page with more to come made no progress")
			}
			got = append(got, pj.Content...)
			if !p.HasMore {
				break
			}
			off += p.End
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("pages give back %q, want %q", got, text)
		}
	})
}

// The chunk boundaries the search prefers are split points of the BPE
// pre-tokenizers: counting the two sides apart gives the count of the whole.
func TestSplitPointsAreExact(t *testing.T) {
	texts := [][]byte{
		corpus(t, "go", 60000),
		corpus(t, "markdown", 60000),
		corpus(t, "cjk", 60000),
		[]byte(strings.Repeat("x:=a(b) \"q\"\t\\n it's 123,456 don't\r\n", 300)),
	}
	counters := []Counter{counter(t, tokencount.O200kBase), counter(t, tokencount.Cl100kBase)}
	for _, text := range texts {
		for p := 1; p < len(text); p++ {
			if err := checkSplitPoint(counters, text, p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// FuzzSplitPoints checks the split points of any text, the page's whole
// count rests on them.
func FuzzSplitPoints(f *testing.F) {
	f.Add([]byte("x:=a(b) \"q\"\t\\n it's 123,456 don't\r\n"))
	f.Add([]byte("\u00a0a b\u3000c\u2028d\x7f.e'S f\u0301 g"))
	counters := []Counter{counter(f, tokencount.O200kBase), counter(f, tokencount.Cl100kBase)}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !utf8.Valid(text) || len(text) > 512 {
			return
		}
		for p := 1; p < len(text); p++ {
			if err := checkSplitPoint(counters, text, p); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// checkSplitPoint checks that when splitsAt(text, p), up to 48 bytes on
// either side of p count apart as they count together: as JSON escapes, and
// as they are (the Text format).
func checkSplitPoint(counters []Counter, text []byte, p int) error {
	if !splitsAt(text, p) {
		return nil
	}
	lo, hi := max(p-48, 0), min(p+48, len(text))
	for !utf8.RuneStart(text[lo]) {
		lo++
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	sides := [][2]string{
		{string(jsonvalue.AppendEscaped(nil, text[lo:p])), string(jsonvalue.AppendEscaped(nil, text[p:hi]))},
		{string(text[lo:p]), string(text[p:hi])},
	}
	for _, s := range sides {
		for _, c := range counters {
			if c.Count(s[0])+c.Count(s[1]) != c.Count(s[0]+s[1]) {
				return fmt.Errorf("%s: %q | %q is not a split point", c.Name(), s[0], s[1])
			}
		}
	}
	return nil
}

// FuzzDecodeText: any bytes either fail to decode as a text page or decode
// to fields that write the same bytes again.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("content\n[folio] end version=ab"))
	f.Add([]byte("\n[folio] next_cursor=123"))
	f.Add([]byte("a\nb\n[folio] lines 7-8 next_cursor=123"))
	f.Add([]byte("a\n[folio] lines 07-8 end version=ab"))
	f.Add([]byte("x\n[folio] end\n[folio] next_cursor=1 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeText(b)
		if err != nil {
			return
		}
		cursor := ""
		if d.NextCursor != nil {
			cursor = *d.NextCursor
		}
		if again := appendFooter([]byte(d.Content), d.FirstLine, d.LastLine, d.Version, cursor); !bytes.Equal(again, b) {
			t.Fatalf("%q decodes to %+v, which writes %q", b, d, again)
		}
	})
}
