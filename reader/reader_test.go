package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

type fixture struct {
	dir   string
	rd    *Reader
	clock *time.Time
}

func newFixture(t testing.TB, counter string) *fixture {
	t.Helper()
	return newFixtureCap(t, counter, 1<<20)
}

// newFixtureCap is a reader over a new directory with a size cap.
func newFixtureCap(t testing.TB, counter string, maxFileBytes int64) *fixture {
	t.Helper()
	dir := t.TempDir()
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: fsview.DefaultDeny(), MaxFileBytes: maxFileBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	c, err := tokencount.New(counter)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := cursor.NewRing(bytes.Repeat([]byte{7}, cursor.KeyLen))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	fx := &fixture{dir: dir, clock: &now}
	fx.rd = New(fs, cursor.NewCodec(ring, time.Hour, func() time.Time { return *fx.clock }), c)
	return fx
}

func (fx *fixture) write(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(fx.dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) page(t *testing.T, req PageRequest) (pager.Decoded, error) {
	t.Helper()
	p, err := fx.rd.Page(context.Background(), req)
	if err != nil {
		return pager.Decoded{}, err
	}
	pj, err := pager.Decode(p.JSON)
	if err != nil {
		t.Fatalf("%v: %s", err, p.JSON)
	}
	if n := fx.rd.Counter().Count(string(p.JSON)); n > req.MaxTokens {
		t.Fatalf("page counts %d tokens, budget %d", n, req.MaxTokens)
	}
	return pj, nil
}

// readAll pages name through cursors to EOF and returns the text.
func (fx *fixture) readAll(t *testing.T, name, subject string, budget int) (string, int) {
	t.Helper()
	var sb strings.Builder
	req := PageRequest{Name: name, Subject: subject, MaxTokens: budget}
	for n := 1; ; n++ {
		pj, err := fx.page(t, req)
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		sb.WriteString(pj.Content)
		if !pj.HasMore {
			if pj.NextCursor != nil {
				t.Fatal("last page has a cursor")
			}
			return sb.String(), n
		}
		req.Cursor = *pj.NextCursor
	}
}

func TestContinuationToEOF(t *testing.T) {
	for _, counter := range tokencount.Names() {
		fx := newFixture(t, counter)
		texts := map[string]string{
			"seed.txt":  strings.Repeat("中文🙂 \"quoted\" \\ path ", 6000),
			"crlf.md":   strings.Repeat("| a | b |\r\n", 2000),
			"bom.txt":   "\ufeff" + strings.Repeat("x\u2028y\x01\r", 1000),
			"empty.txt": "",
		}
		for name, text := range texts {
			fx.write(t, name, text)
			got, pages := fx.readAll(t, name, "alice", 2000)
			if got != text {
				t.Fatalf("%s/%s: pages do not reconstruct the file", counter, name)
			}
			if name == "empty.txt" && pages != 1 {
				t.Fatalf("empty file took %d pages", pages)
			}
		}
	}
}

func TestRepeatedCursorGivesSamePage(t *testing.T) {
	fx := newFixture(t, tokencount.O200kBase)
	fx.write(t, "f.md", strings.Repeat("some words here. ", 3000))
	first, err := fx.page(t, PageRequest{Name: "f.md", Subject: "alice", MaxTokens: 500})
	if err != nil {
		t.Fatal(err)
	}
	req := PageRequest{Name: "f.md", Subject: "alice", MaxTokens: 500, Cursor: *first.NextCursor}
	a, err := fx.rd.Page(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	*fx.clock = fx.clock.Add(10 * time.Minute)
	b, err := fx.rd.Page(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.JSON, b.JSON) {
		t.Fatalf("a repeated cursor gave another page:\n%s\n%s", a.JSON, b.JSON)
	}
}

func TestChangedFileIsVersionConflict(t *testing.T) {
	fx := newFixture(t, tokencount.Estimate)
	fx.write(t, "f.txt", "A-first\nA-middle\nA-last\n"+strings.Repeat("a", 2000))
	p := filepath.Join(fx.dir, "f.txt")
	info, _ := os.Stat(p)
	first, err := fx.page(t, PageRequest{Name: "f.txt", Subject: "alice", MaxTokens: 100})
	if err != nil || !first.HasMore {
		t.Fatalf("first page: %v %+v", err, first)
	}
	// Same size, same mtime, other bytes.
	fx.write(t, "f.txt", "B-first\nB-middle\nB-last\n"+strings.Repeat("b", 2000))
	os.Chtimes(p, info.ModTime(), info.ModTime())
	if info2, _ := os.Stat(p); info2.Size() != info.Size() || !info2.ModTime().Equal(info.ModTime()) {
		t.Fatal("could not keep size and mtime")
	}
	_, err = fx.page(t, PageRequest{Name: "f.txt", Subject: "alice", MaxTokens: 100, Cursor: *first.NextCursor})
	if mcptest.Code(err) != toolerr.CodeVersionConflict {
		t.Fatalf("err = %v, want version_conflict", err)
	}
	if strings.Contains(err.Error(), "B-") {
		t.Fatal("the error leaks text of the new version")
	}
	// Shrunk below the cursor's offset: a conflict too.
	fx.write(t, "f.txt", "short")
	if _, err := fx.page(t, PageRequest{Name: "f.txt", Subject: "alice", MaxTokens: 100, Cursor: *first.NextCursor}); mcptest.Code(err) != toolerr.CodeVersionConflict {
		t.Fatalf("shrunk file: %v", err)
	}
	// Deleted: not_found.
	os.Remove(p)
	if _, err := fx.page(t, PageRequest{Name: "f.txt", Subject: "alice", MaxTokens: 100, Cursor: *first.NextCursor}); mcptest.Code(err) != toolerr.CodeNotFound {
		t.Fatalf("deleted file: %v", err)
	}
}

func TestCursorBinding(t *testing.T) {
	fx := newFixture(t, tokencount.Estimate)
	fx.write(t, "a.txt", strings.Repeat("a", 5000))
	fx.write(t, "b.txt", strings.Repeat("a", 5000))
	first, err := fx.page(t, PageRequest{Name: "a.txt", Subject: "alice", MaxTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	cur := *first.NextCursor
	changed := []byte(cur)
	changed[10] ^= 1
	for _, tc := range []struct {
		name string
		req  PageRequest
		want string
	}{
		{"another uri", PageRequest{Name: "b.txt", Subject: "alice", MaxTokens: 200, Cursor: cur}, toolerr.CodeInvalidCursor},
		{"another subject", PageRequest{Name: "a.txt", Subject: "bob", MaxTokens: 200, Cursor: cur}, toolerr.CodeInvalidCursor},
		{"changed", PageRequest{Name: "a.txt", Subject: "alice", MaxTokens: 200, Cursor: string(changed)}, toolerr.CodeInvalidCursor},
		{"garbage", PageRequest{Name: "a.txt", Subject: "alice", MaxTokens: 200, Cursor: "not a cursor"}, toolerr.CodeInvalidCursor},
		{"same file, other spelling", PageRequest{Name: filepath.Join(fx.dir, "a.txt"), Subject: "alice", MaxTokens: 200, Cursor: cur}, ""},
		{"same file, URI", PageRequest{Name: first.URI, Subject: "alice", MaxTokens: 200, Cursor: cur}, ""},
		{"other budget", PageRequest{Name: "a.txt", Subject: "alice", MaxTokens: 300, Cursor: cur}, ""},
	} {
		if _, err := fx.page(t, tc.req); mcptest.Code(err) != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	*fx.clock = fx.clock.Add(2 * time.Hour)
	if _, err := fx.page(t, PageRequest{Name: "a.txt", Subject: "alice", MaxTokens: 200, Cursor: cur}); mcptest.Code(err) != toolerr.CodeCursorExpired {
		t.Fatalf("expired: %v", err)
	}
}

func TestErrors(t *testing.T) {
	fx := newFixture(t, tokencount.O200kBase)
	fx.write(t, "f.txt", "hello")
	fx.write(t, "bin.dat", "a\x00b")
	fx.write(t, ".env", "SECRET=1")
	fx.write(t, "big.txt", strings.Repeat("x", 2<<20))
	fx.write(t, "dir/x.txt", "x")
	for _, tc := range []struct {
		req  PageRequest
		want string
	}{
		{PageRequest{Name: "f.txt", MaxTokens: 5}, toolerr.CodeBudgetTooSmall},
		{PageRequest{Name: "f.txt", MaxTokens: 0}, toolerr.CodeInvalidArgument},
		{PageRequest{Name: "f.txt", MaxTokens: MaxTokensLimit + 1}, toolerr.CodeInvalidArgument},
		{PageRequest{Name: "missing.txt", MaxTokens: 100}, toolerr.CodeNotFound},
		{PageRequest{Name: ".env", MaxTokens: 100}, toolerr.CodeNotFound},
		{PageRequest{Name: "../x", MaxTokens: 100}, toolerr.CodeNotFound},
		{PageRequest{Name: "bin.dat", MaxTokens: 100}, toolerr.CodeNotText},
		{PageRequest{Name: "big.txt", MaxTokens: 100}, toolerr.CodeTooLarge},
		{PageRequest{Name: "dir", MaxTokens: 100}, toolerr.CodeInvalidArgument},
	} {
		_, err := fx.page(t, tc.req)
		if mcptest.Code(err) != tc.want {
			t.Errorf("%+v: err = %v, want %s", tc.req, err, tc.want)
		}
		if e := toolerr.From(err); e != nil && !json.Valid(e.JSON()) {
			t.Errorf("error body %s", e.JSON())
		}
	}
	_, err := fx.page(t, PageRequest{Name: "f.txt", MaxTokens: 5})
	var be *pager.BudgetError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "at least") {
		t.Fatalf("budget error %v", err)
	}
	if _, err := fx.page(t, PageRequest{Name: "f.txt", MaxTokens: be.Min}); err != nil {
		t.Fatalf("at the named minimum: %v", err)
	}
}

func TestLines(t *testing.T) {
	fx := newFixture(t, tokencount.O200kBase)
	fx.write(t, "f.txt", "A-first\r\nA-middle\nA-last")
	fx.write(t, "empty.txt", "")
	for _, tc := range []struct {
		name          string
		offset, limit int
		want          string
		first, next   int
	}{
		{"f.txt", 0, 0, "A-first\r\nA-middle\nA-last", 1, 0},
		{"f.txt", 1, 0, "A-first\r\nA-middle\nA-last", 1, 0},
		{"f.txt", 1, 1, "A-first\r\n", 1, 2},
		{"f.txt", 2, 0, "A-middle\nA-last", 2, 0},
		{"f.txt", 2, 1, "A-middle\n", 2, 3},
		{"f.txt", 3, 5, "A-last", 3, 0},
		{"f.txt", -1, 0, "A-last", 3, 0},
		{"f.txt", -2, 1, "A-middle\n", 2, 3},
		{"f.txt", -9, 0, "A-first\r\nA-middle\nA-last", 1, 0},
		{"empty.txt", 0, 0, "", 1, 0},
		{"empty.txt", -3, 0, "", 1, 0},
	} {
		l, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: tc.name, Offset: tc.offset, Limit: tc.limit})
		if err != nil || string(l.Text) != tc.want || l.First != tc.first || l.Next() != tc.next {
			t.Errorf("%s offset %d limit %d: %q from %d, next %d, %v", tc.name, tc.offset, tc.limit, l.Text, l.First, l.Next(), err)
		}
	}
	for _, offset := range []int{4, 9} {
		_, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: "f.txt", Offset: offset})
		if mcptest.Code(err) != toolerr.CodeInvalidArgument || !strings.Contains(err.Error(), "past the end") || !strings.Contains(err.Error(), "has 3 lines") {
			t.Errorf("offset %d: %v", offset, err)
		}
	}
}

// testFooter is a footer as long as the tool layer's, of the same numbers.
func testFooter(l *Lines) string {
	return fmt.Sprintf("[footer] %s lines %d-%d of %d, version %s; cut %v; capped %v; more: offset %d limit %d",
		l.URI, l.First, l.First+l.Count-1, l.Total, l.Version, l.Cut, l.Capped, l.Next(), l.Limit)
}

// A line read stops at its token cap, counted whole with its footer, and
// cuts long lines with a marker that says how much is left.
func TestLinesBounded(t *testing.T) {
	fx := newFixture(t, tokencount.O200kBase)
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i+1)
	}
	fx.write(t, "log.txt", b.String())
	l, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: "log.txt", MaxLineChars: MaxLineChars, MaxTokens: 5000, Footer: testFooter})
	if err != nil {
		t.Fatal(err)
	}
	n := fx.rd.Counter().Count(string(l.Text) + "\n" + testFooter(l))
	if !l.Capped || n > 5000 || n < 4800 || l.Total != 5000 || l.Next() != l.Count+1 {
		t.Fatalf("%d lines, %d tokens, capped %v, total %d, next %d", l.Count, n, l.Capped, l.Total, l.Next())
	}
	if !strings.HasSuffix(string(l.Text), fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog\n", l.Count)) {
		t.Fatal("the lines do not end with a whole line")
	}

	long := strings.Repeat("é", 2500) + "\r\n" + "short\n"
	fx.write(t, "long.txt", long)
	l, err = fx.rd.ReadLines(context.Background(), LineRequest{Name: "long.txt", MaxLineChars: MaxLineChars})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("é", 2000) + "…[+500 characters]\r\nshort\n"
	if string(l.Text) != want || !slices.Equal(l.Cut, []int{1}) {
		t.Fatalf("%q cut %v", l.Text, l.Cut)
	}
}

func TestPagesMatchesPage(t *testing.T) {
	fx := newFixture(t, tokencount.O200kBase)
	text := strings.Repeat("line of text, with words\n", 800)
	fx.write(t, "f.txt", text)
	var all [][]byte
	err := fx.rd.Pages(context.Background(), PageRequest{Name: "f.txt", Subject: "alice", MaxTokens: 300}, func(p pager.Page) error {
		all = append(all, p.JSON)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Paging one call at a time gives the same bytes.
	req := PageRequest{Name: "f.txt", Subject: "alice", MaxTokens: 300}
	for i, want := range all {
		p, err := fx.rd.Page(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.JSON, want) {
			t.Fatalf("page %d differs:\n%s\n%s", i+1, p.JSON, want)
		}
		req.Cursor = p.NextCursor
	}
}

// Many readers page many files at once through one Reader (run with -race).
func TestConcurrentReads(t *testing.T) {
	fx := newFixture(t, tokencount.O200kBase)
	texts := make([]string, 8)
	for i := range texts {
		texts[i] = strings.Repeat(fmt.Sprintf("file %d: 中文🙂 \"quoted\" \\ path\r\n", i), 300+50*i)
		fx.write(t, fmt.Sprintf("f%d.md", i), texts[i])
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(texts))
	for i, text := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sb strings.Builder
			req := PageRequest{Name: fmt.Sprintf("f%d.md", i), Subject: fmt.Sprintf("user%d", i), MaxTokens: 500}
			for {
				p, err := fx.rd.Page(context.Background(), req)
				if err != nil {
					errs <- err
					return
				}
				d, err := pager.Decode(p.JSON)
				if err != nil {
					errs <- err
					return
				}
				sb.WriteString(d.Content)
				if !d.HasMore {
					break
				}
				req.Cursor = *d.NextCursor
			}
			if sb.String() != text {
				errs <- fmt.Errorf("file %d does not reconstruct", i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
