package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/wire"
)

// seedLine is the seed's hard line: CJK, emoji, quotes, backslashes.
var seedLine = strings.Repeat("中文🙂 \"quoted\" \\ path ", 600)

// pageAll reads uri to the end at budget and checks each page against the
// contract; it returns the contents joined and the pages.
func pageAll(t testing.TB, cs *mcp.ClientSession, c pager.Counter, uri string, budget int) (string, []pager.Decoded) {
	t.Helper()
	var got strings.Builder
	var pages []pager.Decoded
	args := map[string]any{"path": uri, "max_tokens": budget}
	for i := 0; ; i++ {
		r := call(t, cs, "read", args)
		if r.isError {
			t.Fatalf("page %d: %s", i+1, r.text)
		}
		if r.raw.StructuredContent != nil {
			t.Fatal("a page carries structuredContent")
		}
		if n := c.Count(r.text); n > budget {
			t.Fatalf("page %d counts %d tokens, over %d", i+1, n, budget)
		} else if tok, _ := r.meta[wire.MetaTokens].(float64); int(tok) != n || r.meta[wire.MetaTokenizer] != c.Name() {
			t.Fatalf("page %d _meta %v, counted %d", i+1, r.meta, n)
		}
		p, err := pager.Decode([]byte(r.text))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
		got.WriteString(p.Content)
		if !p.HasMore {
			return got.String(), pages
		}
		args["cursor"] = *p.NextCursor
	}
}

func TestReadPagesEveryTransport(t *testing.T) {
	e := newEnv(t)
	text := "# Title\r\n\ufeffBOM inside\r\n" + seedLine + "\n" + strings.Repeat("plain line\n", 300)
	uri := e.write(t, "docs/hard.md", text)
	tok := e.addToken(t, "alice")
	c := counter(t, tokencount.O200kBase)
	for _, tc := range []struct {
		name string
		dial func(t *testing.T) *mcp.ClientSession
	}{
		{"memory", func(t *testing.T) *mcp.ClientSession {
			return dialMemory(t, e.server(t, serverOpts{local: true}), nil)
		}},
		{"http", func(t *testing.T) *mcp.ClientSession {
			return dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)
		}},
		{"http stateless", func(t *testing.T) *mcp.ClientSession {
			return dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{stateless: true})), tok, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.dial(t)
			for _, budget := range []int{300, 2000} {
				got, pages := pageAll(t, cs, c, "docs/hard.md", budget)
				if got != text {
					t.Fatalf("budget %d: reconstruction differs (%d bytes, want %d)", budget, len(got), len(text))
				}
				if len(pages) < 2 || pages[0].URI != uri {
					t.Fatalf("budget %d: %d pages, uri %s", budget, len(pages), pages[0].URI)
				}
			}
		})
	}
}

// TestLongLineFooter: a line cut in a line read is named in the footer
// with the exact page read that gives it whole, and that read does.
func TestLongLineFooter(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", 2500)
	e.write(t, "long.txt", "first\n"+long+"\nlast\n")
	cs := dialMemory(t, e.server(t, serverOpts{}), nil)
	r := call(t, cs, "read", map[string]any{"path": "long.txt"})
	_, footer, _ := strings.Cut(r.text, "\n[folio] ")
	start := strings.Index(footer, "read {")
	if r.isError || !strings.Contains(footer, "1 line(s) cut at 2000 characters (first: 2)") || start < 0 {
		t.Fatalf("footer %q", footer)
	}
	var args map[string]any
	if err := json.NewDecoder(strings.NewReader(footer[start+len("read "):])).Decode(&args); err != nil || args["line"] != 2.0 || args["max_tokens"] != 2000.0 {
		t.Fatalf("the footer's call %q: %v", footer[start:], err)
	}
	// Its pages, followed, give the line whole.
	var got strings.Builder
	for range 10 {
		var page struct {
			Content    string
			HasMore    bool   `json:"has_more"`
			NextCursor string `json:"next_cursor"`
		}
		json.Unmarshal([]byte(call(t, cs, "read", args).text), &page)
		got.WriteString(page.Content)
		if !page.HasMore {
			break
		}
		args["cursor"] = page.NextCursor
		delete(args, "line")
	}
	if got.String() != long+"\nlast\n" {
		t.Fatalf("the pages the footer gives read %.80q", got.String())
	}
}

// TestNumberedLines: numbers: true gives each line its number as cat -n
// does (right-aligned in six columns, a tab), and the call that goes on
// keeps them; pages, which give the file's bytes, refuse it. It logs what
// the numbers cost on Go source (go test -run NumberedLines -v ./mcpserver).
func TestNumberedLines(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "one\ntwo\r\nthree\n")
	src, err := os.ReadFile(mcptest.GoSource(t, "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(t, "server.go", string(src))
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	r := call(t, cs, "read", map[string]any{"path": "a.txt", "limit": 2, "numbers": true})
	if want := "     1\tone\n     2\ttwo\r\n\n[folio] lines 1-2 of 3; more: read {\"path\":\"a.txt\",\"offset\":3,\"limit\":2,\"numbers\":true}"; r.text != want {
		t.Errorf("got %q\nwant %q", r.text, want)
	}
	wantCode(t, call(t, cs, "read", map[string]any{"path": "a.txt", "max_tokens": 100, "numbers": true}), "invalid_argument")

	c := counter(t, tokencount.O200kBase)
	plain := call(t, cs, "read", map[string]any{"path": "server.go", "limit": 1000})
	numbered := call(t, cs, "read", map[string]any{"path": "server.go", "limit": 1000, "numbers": true})
	np, nn := c.Count(plain.text), c.Count(numbered.text)
	t.Logf("net/http/server.go, lines 1-1000: %d tokens, %d numbered (%.3fx, %.2f tokens a line)", np, nn, float64(nn)/float64(np), float64(nn-np)/1000)
	if !strings.HasPrefix(numbered.text, "     1\t// Copyright") || nn <= np || nn > np*17/10 {
		t.Errorf("numbered lines cost %d tokens against %d", nn, np)
	}
}

// TestPageLines: a page read from a line says which lines it holds: in a
// text page's footer, and in _meta (a JSON page's keys are the
// contract's); the pages that follow from a cursor do not know.
func TestPageLines(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	e.write(t, "f.txt", b.String())
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	text := call(t, cs, "read", map[string]any{"path": "f.txt", "line": 120, "max_tokens": 100, "format": "text"})
	d, err := pager.DecodeText([]byte(text.text))
	if err != nil || d.FirstLine != 120 || !strings.HasPrefix(d.Content, "line 120 of") {
		t.Fatalf("%v %+v", err, d)
	}
	last := 120 + strings.Count(strings.TrimSuffix(d.Content, "\n"), "\n")
	if d.LastLine != last || !strings.Contains(text.text, fmt.Sprintf("[folio] lines 120-%d next_cursor=", last)) {
		t.Errorf("lines %d-%d, want 120-%d: %q", d.FirstLine, d.LastLine, last, text.text[len(d.Content):])
	}
	j := call(t, cs, "read", map[string]any{"path": "f.txt", "line": 120, "max_tokens": 100})
	if j.meta[wire.MetaFirstLine] != float64(120) || j.meta[wire.MetaLastLine] == nil {
		t.Errorf("_meta %v", j.meta)
	}
	more := call(t, cs, "read", map[string]any{"path": "f.txt", "max_tokens": 100, "format": "text", "cursor": *d.NextCursor})
	if strings.Contains(more.text, "[folio] lines") || more.meta[wire.MetaFirstLine] != nil {
		t.Errorf("a page from a cursor: %q", more.text)
	}

	// From a line to the end, the pages give the file's bytes from that
	// line: read whole while the file is new, and through the line index
	// it makes as it reads once it has settled.
	from := b.String()[strings.Index(b.String(), "line 250 of"):]
	follow := func() string {
		var got strings.Builder
		args := map[string]any{"path": "f.txt", "line": 250, "max_tokens": 100, "format": "text"}
		for {
			p, err := pager.DecodeText([]byte(call(t, cs, "read", args).text))
			if err != nil {
				t.Fatal(err)
			}
			got.WriteString(p.Content)
			if p.NextCursor == nil {
				return got.String()
			}
			args = map[string]any{"path": "f.txt", "max_tokens": 100, "format": "text", "cursor": *p.NextCursor}
		}
	}
	if got := follow(); got != from {
		t.Errorf("from line 250 of a new file: %q, want %q", got, from)
	}
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond)
	if got := follow(); got != from {
		t.Errorf("from line 250 of a settled file: %q, want %q", got, from)
	}
}
