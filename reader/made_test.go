package reader

import (
	"context"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

// TestPageOf: the pages of a made text join to it, each within its budget
// and with its version; a cursor goes on only for that text, URI and
// subject; line starts the first page at a line.
func TestPageOf(t *testing.T) {
	fx := newFixture(t, "o200k_base")
	ctx := context.Background()
	const uri = "file:///srv/docs/llms-full.txt"
	text := []byte(strings.Repeat("# Title\n\n中文🙂 words and \"quotes\" \\ here.\r\n", 400))
	page := func(text []byte, req PageRequest) (pager.Decoded, error) {
		p, err := fx.rd.PageOf(ctx, text, uri, req)
		if err != nil {
			return pager.Decoded{}, err
		}
		if n := fx.rd.Counter().Count(string(p.JSON)); n > req.MaxTokens {
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
}
