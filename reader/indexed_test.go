package reader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
)

// TestIndexedLines: once a file has settled and been read whole, line
// reads go through its line index and read only what they give: every
// kind of request answers exactly what reading the whole text answers,
// lines longer than the first window included; a rewrite is read anew.
func TestIndexedLines(t *testing.T) {
	fx := newFixtureCap(t, tokencount.O200kBase, 0)
	var b strings.Builder
	for i := 1; b.Len() < 3<<20; i++ {
		switch {
		case i == 5000:
			b.WriteString(strings.Repeat("long ", 100_000) + "\n") // past the first window
		case i%7 == 0:
			fmt.Fprintf(&b, "line %d with a CRLF\r\n", i)
		default:
			fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%90))
		}
	}
	b.WriteString("the last line, without a newline")
	text := b.String()
	path := filepath.Join(fx.dir, "big.txt")
	os.WriteFile(path, []byte(text), 0o644)
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond) // settled: its version can be trusted
	reqs := []LineRequest{
		{Offset: 1, Limit: 10},
		{Offset: 4990, Limit: 20},
		{Offset: 5000, Limit: 2, MaxLineChars: 2000},
		{Offset: 4999, Limit: 3},
		{Offset: 30000, Limit: 100, Numbered: true},
		{Offset: -100},
		{Offset: -1},
		{Offset: 20001, MaxLines: 2000, MaxLineChars: 2000, MaxTokens: 5000},
		{Offset: 12345, Limit: 1},
	}
	check := func(text string) {
		t.Helper()
		for _, req := range reqs {
			req.Name = "big.txt"
			got, err := fx.rd.ReadLines(context.Background(), req)
			want, werr := fx.rd.LinesOf(context.Background(), []byte(text), "x", req)
			if (err != nil) != (werr != nil) {
				t.Fatalf("%+v: %v, want %v", req, err, werr)
			}
			if err != nil {
				continue
			}
			if string(got.Text) != string(want.Text) || got.First != want.First || got.Count != want.Count || got.Total != want.Total ||
				!slices.Equal(got.Cut, want.Cut) || got.Capped != want.Capped || got.Version != want.Version {
				t.Fatalf("%+v: lines %d+%d of %d (cut %v, capped %v), want %d+%d of %d (cut %v, capped %v)",
					req, got.First, got.Count, got.Total, got.Cut, got.Capped, want.First, want.Count, want.Total, want.Cut, want.Capped)
			}
		}
	}
	check(text) // reads it whole, and indexes it
	f, err := fx.rd.fs.Regular("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fx.rd.fs.LineIndexOf(f); !ok {
		t.Fatal("no line index after a whole read of a settled file")
	}
	check(text) // through the index
	if _, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: "big.txt", Offset: 1 << 30}); err == nil {
		t.Error("an offset past the end was read")
	}

	// Rewritten: the index is of another version; the lines are the new
	// ones.
	changed := strings.Replace(text, "line 3 ", "LINE 3 ", 1)
	os.WriteFile(path, []byte(changed), 0o644)
	check(changed)
}

// TestIndexedPageAtLine: a first page from a line, once the file's lines
// are indexed, is found through the index and is the page, byte for byte
// and cursor for cursor, that finding the line in the whole file gives;
// a line past the end is the same error; a rewrite is read anew.
func TestIndexedPageAtLine(t *testing.T) {
	fx := newFixtureCap(t, tokencount.O200kBase, 0)
	var b strings.Builder
	for i := 1; b.Len() < 2<<20; i++ {
		if i == 3000 {
			b.WriteString(strings.Repeat("long ", 100_000) + "\n") // past the first window
		}
		fmt.Fprintf(&b, "line %d %s\r\n", i, strings.Repeat("y", i%70))
	}
	b.WriteString("no newline at the end")
	text := b.String()
	lines := strings.Count(text, "\n") + 1
	path := filepath.Join(fx.dir, "big.txt")
	os.WriteFile(path, []byte(text), 0o644)
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond)
	ctx := context.Background()
	at := func(line int) PageRequest {
		return PageRequest{Name: "big.txt", MaxTokens: 700, Line: line, Format: pager.Text}
	}
	// The first read indexes the file as it reads it, then reads the page.
	if _, err := fx.rd.Page(ctx, at(2)); err != nil {
		t.Fatal(err)
	}
	f, err := fx.rd.fs.Regular("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fx.rd.fs.LineIndexOf(f); !ok {
		t.Fatal("no line index after a page from a line")
	}
	for _, line := range []int{1, 2, 63, 64, 65, 2999, 3000, 3001, 12345, lines - 1, lines, lines + 1, 1 << 30} {
		got, err := fx.rd.Page(ctx, at(line))
		_, st, _, serr := fx.rd.start(context.Background(), at(line))
		if serr != nil {
			t.Fatal(serr)
		}
		want, werr := fx.rd.pageFrom(ctx, f, st, nil, at(line), fsview.Version{})
		if (err != nil) != (werr != nil) || (err != nil && err.Error() != werr.Error()) || (err != nil) != (line > lines) {
			t.Fatalf("line %d of %d: %v, want %v", line, lines, err, werr)
		}
		if err == nil && (string(got.JSON) != string(want.JSON) || got.End != want.End || got.FirstLine != want.FirstLine) {
			t.Fatalf("line %d: page\n%.300s\nwant\n%.300s", line, got.JSON, want.JSON)
		}
	}
	changed := strings.Replace(text, "line 12345 ", "LINE 12345 ", 1)
	os.WriteFile(path, []byte(changed), 0o644)
	got, err := fx.rd.Page(ctx, at(12346)) // the long line is line 3000
	if err != nil || !strings.HasPrefix(string(got.JSON), "LINE 12345 ") {
		t.Fatalf("after a rewrite: %v, %.40q", err, got.JSON)
	}
}

// settledLorem is a fixture with big.md, 64 MiB of lines of Lorem ipsum,
// left to settle so that its version can be trusted, and its text.
func settledLorem(b *testing.B) (*fixture, string) {
	fx := newFixtureCap(b, tokencount.O200kBase, 0)
	line := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 2) + "\n"
	text := strings.Repeat(line, (64<<20)/len(line))
	if err := os.WriteFile(filepath.Join(fx.dir, "big.md"), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond)
	return fx, text
}

// BenchmarkLineRead reads 100 lines in the middle of a 64 MiB file whose
// version and line index are known: it reads what it gives, not the file.
func BenchmarkLineRead(b *testing.B) {
	fx, text := settledLorem(b)
	middle := strings.Count(text, "\n") / 2
	req := LineRequest{Name: "big.md", Offset: middle, Limit: 100}
	if _, err := fx.rd.ReadLines(context.Background(), req); err != nil { // indexes it
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := fx.rd.ReadLines(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPageAtLine reads a 2,000-token first page from a line near the
// start and near the end of a 64 MiB file whose lines are indexed: each
// reads its window, not the file.
func BenchmarkPageAtLine(b *testing.B) {
	fx, text := settledLorem(b)
	lines := strings.Count(text, "\n")
	for _, at := range []struct {
		name string
		line int
	}{{"start", 10}, {"end", lines - 1000}} {
		req := PageRequest{Name: "big.md", MaxTokens: 2000, Line: at.line}
		if _, err := fx.rd.Page(context.Background(), req); err != nil { // indexes it
			b.Fatal(err)
		}
		b.Run(at.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := fx.rd.Page(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
