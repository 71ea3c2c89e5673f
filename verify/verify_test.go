package verify

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

func setup(t *testing.T, files map[string]string) (*fsview.FS, *reader.Reader, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: []string{"**/*.secret"}, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	ring, _ := cursor.NewRing(bytes.Repeat([]byte{1}, cursor.KeyLen))
	c, _ := tokencount.New(tokencount.O200kBase)
	return fs, reader.New(fs, cursor.NewCodec(ring, 0, nil), c), dir
}

func TestRun(t *testing.T) {
	files := map[string]string{
		"big.bin":    strings.Repeat("x", 2<<20),
		"a.secret":   "s",
		"bin/x.dat":  "\x00",
		"empty.txt":  "",
		"crlf.txt":   strings.Repeat("a line\r\n", 500),
		"lone-cr.md": strings.Repeat("a\rb", 500),
	}
	for i := range 20 {
		files[fmt.Sprintf("docs/%02d.md", i)] = strings.Repeat(fmt.Sprintf("Doc %d: 中文🙂 \"quoted\" \\ path\n", i), 50*(i+1))
	}
	fs, rd, dir := setup(t, files)
	calls := 0
	rep, err := Run(context.Background(), fs, rd, []string{dir}, Options{Budgets: []int{200, 2000}, Workers: 4,
		Progress: func(done, total int) {
			calls++
			if done > total {
				t.Errorf("progress %d/%d", done, total)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("failures: %+v", rep.Failures)
	}
	if rep.Files != 23 || calls != 25 || rep.Skipped != 3 || rep.SkippedBy[toolerr.CodeNotText] != 1 ||
		rep.SkippedBy[toolerr.CodeNotFound] != 1 || rep.SkippedBy[toolerr.CodeTooLarge] != 1 {
		t.Fatalf("report %+v (%d progress calls)", rep, calls)
	}
	if rep.LargestPage > 2000 || rep.MeanFill < 0.95 || rep.MeanFill > 1 {
		t.Fatalf("largest %d, fill %.3f", rep.LargestPage, rep.MeanFill)
	}
}

// Each broken promise is caught.
func TestCheckPagesCatches(t *testing.T) {
	_, rd, dir := setup(t, map[string]string{"f.txt": strings.Repeat("words and more words. ", 200)})
	want, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
	var pages []pager.Page
	err := rd.Pages(context.Background(), reader.PageRequest{Name: "f.txt", MaxTokens: 300}, func(p pager.Page) error {
		pages = append(pages, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(want)
	version := hex.EncodeToString(sum[:fsview.VersionLen])
	uri := fileuri.Of(filepath.Join(dir, "f.txt"))
	if msgs := checkPages(rd.Counter(), 300, pager.JSON, uri, want, version, pages, &fileResult{}); len(msgs) != 0 {
		t.Fatalf("genuine pages fail: %v", msgs)
	}
	replace := func(i int, old, new string) []pager.Page {
		out := append([]pager.Page(nil), pages...)
		out[i].JSON = bytes.Replace(out[i].JSON, []byte(old), []byte(new), 1)
		return out
	}
	for name, tc := range map[string]struct {
		pages  []pager.Page
		budget int
		want   string
	}{
		"over budget":    {pages, 250, "over the budget"},
		"lost byte":      {replace(1, "words", "word"), 300, "differ"},
		"extra byte":     {replace(0, "words", "wordss"), 300, "differ"},
		"wrong version":  {replace(2, version, strings.Repeat("0", 32)), 300, "version"},
		"wrong uri":      {replace(0, uri, uri+"x"), 300, "uri"},
		"not JSON":       {replace(0, `"content":`, `"content"`), 300, "not a page"},
		"key order":      {replace(0, `"uri":`, `"url":`), 300, "not a page"},
		"null cursor":    {replace(0, `"has_more":true`, `"has_more":false`), 300, "not a page"},
		"early end":      {replace(0, `"has_more":true,"next_cursor":"`, `"has_more":false,"next_cursor":null,"x":"`), 300, "not a page"},
		"last page open": {append(pages[:len(pages)-1:len(pages)-1], pager.Page{JSON: pages[1].JSON}), 300, "has_more"},
		"missing page":   {append(append([]pager.Page(nil), pages[:1]...), pages[2:]...), 300, "differ"},
	} {
		msgs := checkPages(rd.Counter(), tc.budget, pager.JSON, uri, want, version, tc.pages, &fileResult{})
		if !strings.Contains(strings.Join(msgs, "; "), tc.want) {
			t.Errorf("%s: %v", name, msgs)
		}
	}
}
