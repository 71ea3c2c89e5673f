package verify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
)

// readerSource serves pages from a real reader, the way folio serve does,
// and lets a test make it lie: tamper rewrites the n-th page it serves of
// a file named a.md.
type readerSource struct {
	fs     *fsview.FS
	rd     *reader.Reader
	tamper func(n int, page []byte) []byte

	mu sync.Mutex
	n  int
}

func (s *readerSource) Files(ctx context.Context, uri string) ([]string, error) {
	var out []string
	err := s.fs.Walk(ctx, uri, nil, func(f fsview.File, err error) error {
		if err == nil {
			out = append(out, f.URI)
		}
		return nil
	})
	return out, err
}

func (s *readerSource) Page(ctx context.Context, uri string, maxTokens int, format, cur string) (pager.Page, error) {
	f, err := pager.ParseFormat(format)
	if err != nil {
		return pager.Page{}, err
	}
	p, err := s.rd.Page(ctx, reader.PageRequest{Name: uri, Subject: "remote", MaxTokens: maxTokens, Cursor: cur, Format: f})
	if err != nil {
		return pager.Page{}, err
	}
	if s.tamper != nil && strings.HasSuffix(uri, "/a.md") {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.n++
		p.JSON = s.tamper(s.n, p.JSON)
	}
	return p, nil
}

func TestRunRemote(t *testing.T) {
	text := strings.Repeat("remote 中文🙂 \"q\" \\ line\r\n", 300)
	fs, rd, dir := setup(t, map[string]string{"a.md": text, "b.md": "short\n", "x.dat": "\x00"})
	c := rd.Counter()
	run := func(tamper func(int, []byte) []byte) *Report {
		t.Helper()
		rep, err := RunRemote(context.Background(), &readerSource{fs: fs, rd: rd, tamper: tamper}, c, []string{dir}, Options{Budgets: []int{300, 1000}, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run(nil)
	if !rep.OK() || rep.Files != 2 || rep.Skipped != 1 || rep.Bytes != int64(len(text)+6) || rep.LargestPage > 1000 || rep.Pages < 6 {
		t.Fatalf("honest server: %+v", rep)
	}
	// A lying server is caught, whatever the lie.
	swap := func(old, neu string) func(int, []byte) []byte {
		return func(n int, p []byte) []byte {
			if n != 2 {
				return p
			}
			return []byte(strings.Replace(string(p), old, neu, 1))
		}
	}
	for name, tamper := range map[string]func(int, []byte) []byte{
		"a changed byte": swap("中", "申"),
		"a dropped line": swap("line\\r\\n", ""),
		"over the budget": func(n int, p []byte) []byte {
			return []byte(strings.Replace(string(p), `"content":"`, `"content":"`+strings.Repeat("word ", 1000), 1))
		},
		"another version": func(n int, p []byte) []byte {
			d, _ := pager.Decode(p)
			return []byte(strings.Replace(string(p), d.Version, strings.Repeat("0", 32), 1))
		},
		"not a page":  func(n int, p []byte) []byte { return []byte("{}") },
		"early end":   swap(`"has_more":true`, `"has_more":false`),
		"another uri": swap("a.md", "c.md"),
		"lost cursors": func(n int, p []byte) []byte {
			return []byte(strings.Replace(string(p), `"has_more":false,"next_cursor":null`, `"has_more":true,"next_cursor":null`, 1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			rep := run(tamper)
			if rep.OK() {
				t.Fatalf("not caught: %+v", rep)
			}
			t.Log(rep.Failures[0].Message)
		})
	}
	// A server that refuses a page mid-file is a failure too.
	rep, err := RunRemote(context.Background(), failingSource{}, c, []string{"x"}, Options{Budgets: []int{500}})
	if err != nil || rep.OK() {
		t.Fatalf("%v %+v", err, rep)
	}
}

type failingSource struct{}

func (failingSource) Files(context.Context, string) ([]string, error) {
	return []string{"file:///x"}, nil
}

func (failingSource) Page(_ context.Context, _ string, _ int, _, cur string) (pager.Page, error) {
	if cur == "" {
		return pager.Page{JSON: []byte(`{"uri":"file:///x","content":"a","version":"` + fmt.Sprintf("%032x", 0) + `","has_more":true,"next_cursor":"c"}`)}, nil
	}
	return pager.Page{}, &toolerr.Error{Code: toolerr.CodeVersionConflict, Message: "changed"}
}
