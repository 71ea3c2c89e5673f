package reader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/outline"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

// FuzzLines holds a line read of any text, offset, limit and cut to lines
// split independently (strings.SplitAfter), and checks the footer's
// numbers: the lines given, the total, and where the next read starts.
func FuzzLines(f *testing.F) {
	f.Add("a\nb\r\nc", 2, 1, uint8(0))
	f.Add("x\n\n\ny", -2, 0, uint8(3))
	f.Add("中文🙂 long line here\nshort\n", 1, 0, uint8(4))
	f.Add("", 0, 0, uint8(1))
	fx := newFixture(f, tokencount.O200kBase)
	path := filepath.Join(fx.dir, "f.txt")
	f.Fuzz(func(t *testing.T, text string, offset, limit int, cut uint8) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || limit < 0 || limit > 1<<20 {
			return
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		maxChars := int(cut % 8) // 0: no cut
		l, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: "f.txt", Offset: offset, Limit: limit, MaxLineChars: maxChars})
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		start := offset - 1
		switch {
		case offset < 0:
			start = max(len(lines)+offset, 0)
		case offset == 0:
			start = 0
		}
		if start > 0 && start >= len(lines) {
			if mcptest.Code(err) != toolerr.CodeInvalidArgument {
				t.Fatalf("offset %d of %d lines: %v", offset, len(lines), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		end := len(lines)
		if limit > 0 {
			end = min(end, start+limit)
		}
		var want strings.Builder
		var cuts []int
		for i, line := range lines[start:end] {
			body, ending := strings.CutSuffix(line, "\n")
			if ending {
				if b, crlf := strings.CutSuffix(body, "\r"); crlf {
					body = b
				}
			}
			if runes := []rune(body); maxChars > 0 && len(runes) > maxChars {
				cuts = append(cuts, start+i+1)
				line = string(runes[:maxChars]) + fmt.Sprintf("…[+%d characters]", len(runes)-maxChars) + line[len(body):]
			}
			want.WriteString(line)
		}
		if string(l.Text) != want.String() || l.Total != len(lines) || l.First != start+1 || l.Count != end-start || fmt.Sprint(l.Cut) != fmt.Sprint(cuts) {
			t.Fatalf("%q offset %d limit %d cut %d: got %q (first %d, count %d, total %d, cut %v), want %q (cut %v)",
				text, offset, limit, maxChars, l.Text, l.First, l.Count, l.Total, l.Cut, want.String(), cuts)
		}
		if next := l.Next(); (end < len(lines)) != (next == end+1) || (end == len(lines) && next != 0) {
			t.Fatalf("next %d after lines %d-%d of %d", next, start+1, end, len(lines))
		}
	})
}

// FuzzChunks cuts any text into chunks of any budget, natural or tight,
// through a reader that gives a few bytes at a time: the chunks are the
// text, each within its budget (recounted), each natural cut a valid one.
func FuzzChunks(f *testing.F) {
	f.Add("Hello world. This is a test.\n\nAnother paragraph, with more words.\r\n", uint8(5), false)
	f.Add("短い文です。これは長い文で、まだ続いています🙂🙂\r\n\r\n", uint8(3), true)
	f.Add("a\r\nb\r\n\r\nc", uint8(1), false)
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, budget uint8, tight bool) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || budget == 0 {
			return
		}
		var got strings.Builder
		err := Chunks(context.Background(), iotest.HalfReader(strings.NewReader(text)), ChunkRequest{Counter: counter, MaxTokens: int(budget), Tight: tight}, func(c []byte, tokens int) error {
			if n := counter.Count(string(c)); n > int(budget) || n != tokens || len(c) == 0 {
				t.Fatalf("a chunk of %d bytes counts %d tokens, budget %d", len(c), n, budget)
			}
			if end := got.Len() + len(c); end < len(text) && (!utf8.RuneStart(text[end]) || (text[end-1] == '\r' && text[end] == '\n')) {
				t.Fatalf("a chunk ends inside a code point or a CRLF at %d", end)
			}
			got.Write(c)
			return nil
		})
		if e := toolerr.From(err); e != nil && e.Code == toolerr.CodeBudgetTooSmall {
			// A code point that alone counts more than the budget.
			rest := text[got.Len():]
			if first := rest[:nextBoundary(rest)]; counter.Count(first) <= int(budget) {
				t.Fatalf("budget_too_small before %q, which fits", first)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != text {
			t.Fatalf("the chunks are not the text")
		}
		cut := pager.NaturalCut([]byte(text))
		if cut < len(text)/2 || cut > len(text) {
			t.Fatalf("NaturalCut %d of %d", cut, len(text))
		}
	})
}

// nextBoundary is the end of the first code point of s, or of its first
// CRLF: the least a chunk can hold.
func nextBoundary(s string) int {
	if strings.HasPrefix(s, "\r\n") {
		return 2
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// FuzzCount counts any text in windows of a few bytes, read a few at a
// time (Count) or held whole (CountText), and holds the count to the count
// of the text whole, with both byte-pair encodings: the places they cut at
// must be where pieces end.
func FuzzCount(f *testing.F) {
	f.Add("Hello\r\n\r\nworld 42\n  indented\n\n\nx\n1\n'twas\nA's\n")
	f.Add("日本語\nabc\n\u00a0x\n\t\ny")
	f.Add("テスト\n漢字 ١٢٣\n²x\nⅫ\n\u0301a\n\U0001E030b")
	counters := []pager.Counter{}
	for _, name := range []string{tokencount.O200kBase, tokencount.Cl100kBase, tokencount.Estimate} {
		c, err := tokencount.New(name)
		if err != nil {
			f.Fatal(err)
		}
		counters = append(counters, c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
			return
		}
		for _, c := range counters {
			want := c.Count(text)
			n, err := count(context.Background(), iotest.HalfReader(strings.NewReader(text)), c, 0, "-", 8)
			if err != nil || n != want {
				t.Fatalf("%s: %d (%v) in windows, %d whole", c.Name(), n, err, want)
			}
			if n, err := countText(context.Background(), []byte(text), c, 8); err != nil || n != want {
				t.Fatalf("%s: %d (%v) in windows of the text read, %d whole", c.Name(), n, err, want)
			}
		}
	})
}

// FuzzSectionPages pages every section of any Markdown, HTML or RST text
// by its anchor, at any budget, and holds the contents joined to exactly
// the section's bytes (as package outline cuts it), each page within the
// budget; and reads the section's lines whole.
func FuzzSectionPages(f *testing.F) {
	f.Add("# A\r\n\r\ntext\r\n## B\r\n中文🙂\r\n# C\r\nend", ".md", uint16(60))
	f.Add("Title\n=====\n\npara\n\nSub\n---\n\n```\n# no\n```\n", ".md", uint16(40))
	f.Add("<h1 id=\"x\">X</h1>\n<p>a</p>\n<h2>Y</h2>\n<p>b</p>", ".html", uint16(50))
	f.Add("Top\n===\n\nintro\n\nNext\n----\n\nlast", ".rst", uint16(45))
	fx := newFixture(f, tokencount.O200kBase)
	f.Fuzz(func(t *testing.T, text, ext string, budget uint16) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || budget < 40 || budget > 4000 {
			return
		}
		switch ext {
		case ".md", ".html", ".rst":
		default:
			return
		}
		name := "s" + ext
		if err := os.WriteFile(filepath.Join(fx.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		doc := outline.Of(name, []byte(text))
		for i, s := range doc.Sections[:min(len(doc.Sections), 8)] {
			if j, err := doc.Find("#" + s.Anchor); err != nil || j != i {
				continue // an anchor two HTML headings share
			}
			req := PageRequest{Name: name, Subject: LocalSubject, MaxTokens: int(budget), Format: pager.JSON, Section: "#" + s.Anchor}
			var got strings.Builder
			for range 10000 {
				p, err := fx.rd.Page(context.Background(), req)
				if mcptest.Code(err) == toolerr.CodeBudgetTooSmall {
					return
				}
				if err != nil {
					t.Fatalf("%q #%s: %v", text, s.Anchor, err)
				}
				d, err := pager.Decode(p.JSON)
				if err != nil || p.Tokens > int(budget) {
					t.Fatalf("%v, %d tokens", err, p.Tokens)
				}
				got.WriteString(d.Content)
				if !d.HasMore {
					break
				}
				req.Cursor = *d.NextCursor
			}
			if got.String() != text[s.Start:s.End] {
				t.Fatalf("%q #%s: pages %q, want %q", text, s.Anchor, got.String(), text[s.Start:s.End])
			}
			l, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: name, Section: "#" + s.Anchor})
			if err != nil || string(l.Text) != text[s.Start:s.End] || l.First != s.First || l.Next() != 0 {
				t.Fatalf("%q #%s: lines %q (%v)", text, s.Anchor, l.Text, err)
			}
		}
	})
}
