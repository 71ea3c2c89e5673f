package reader

import (
	"context"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

// madeText makes llms-full.txt, its text whatever *text is when asked.
type madeText struct{ text *[]byte }

func (m madeText) Makes(base string) bool { return base == "llms-full.txt" }

func (m madeText) Make(context.Context, *fsview.FS, string, string) ([]byte, error) {
	return *m.text, nil
}

// TestPageMade: a file the view makes (a served llms.txt) is paged as any
// file: the pages join to its text, each within its budget and with the
// BLAKE3 of the text as version; a cursor goes on only for that text, URI
// and subject; line starts the first page at a line; lines read it too.
func TestPageMade(t *testing.T) {
	fx := newFixture(t, "o200k_base")
	ctx := context.Background()
	uri := fileuri.Of(fx.rd.fs.Roots()[0] + "/llms-full.txt")
	text := []byte(strings.Repeat("# Title\n\n中文🙂 words and \"quotes\" \\ here.\r\n", 400))
	made := text
	rd := New(fx.rd.fs.WithMaker(madeText{&made}), fx.rd.cursors, fx.rd.counter)
	page := func(text []byte, req PageRequest) (pager.Decoded, error) {
		made, req.Name = text, "llms-full.txt"
		p, err := rd.Page(ctx, req)
		if err != nil {
			return pager.Decoded{}, err
		}
		if n := rd.Counter().Count(string(p.JSON)); n > req.MaxTokens {
			t.Fatalf("page counts %d tokens, budget %d", n, req.MaxTokens)
		}
		return pager.Decode(p.JSON)
	}
	var joined strings.Builder
	req := PageRequest{Subject: "alice", MaxTokens: 300}
	var second string
	for n := 0; ; n++ {
		p, err := page(text, req)
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		if p.URI != uri || p.Version != fsview.VersionOf(text).String() {
			t.Fatalf("page %d: %s %s", n, p.URI, p.Version)
		}
		joined.WriteString(p.Content)
		if !p.HasMore {
			break
		}
		req.Cursor = *p.NextCursor
		if n == 0 {
			second = req.Cursor
		}
	}
	if joined.String() != string(text) {
		t.Fatalf("pages joined: %d bytes, want %d", joined.Len(), len(text))
	}
	for _, tc := range []struct {
		name string
		text []byte
		req  PageRequest
		code string
	}{
		{"text made anew", append([]byte("changed\n"), text...), PageRequest{Subject: "alice", MaxTokens: 300, Cursor: second}, toolerr.CodeVersionConflict},
		{"another subject", text, PageRequest{Subject: "bob", MaxTokens: 300, Cursor: second}, toolerr.CodeInvalidCursor},
		{"a forged cursor", text, PageRequest{Subject: "alice", MaxTokens: 300, Cursor: "12345678901234567890"}, toolerr.CodeInvalidCursor},
		{"line with a cursor", text, PageRequest{Subject: "alice", MaxTokens: 300, Cursor: second, Line: 3}, toolerr.CodeInvalidArgument},
		{"no budget", text, PageRequest{Subject: "alice"}, toolerr.CodeInvalidArgument},
		{"not text", []byte("a\x00b"), PageRequest{Subject: "alice", MaxTokens: 300}, toolerr.CodeNotText},
	} {
		if _, err := page(tc.text, tc.req); mcptest.Code(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	p, err := page(text, PageRequest{Subject: "alice", MaxTokens: 300, Line: 4})
	if err != nil || !strings.HasPrefix(string(text), "# Title\n\n中文🙂 words and \"quotes\" \\ here.\r\n"+p.Content) {
		t.Errorf("a page from line 4: %q, %v", p.Content, err)
	}
	made = text
	l, err := rd.ReadLines(ctx, LineRequest{Name: "llms-full.txt", Offset: 4, Limit: 2})
	if err != nil || string(l.Text) != "# Title\n\n" || l.Total != 1200 || l.URI != uri || l.Name != uri || l.Version != fsview.VersionOf(text).String() {
		t.Errorf("lines 4-5: %+v, %v", l, err)
	}
}
