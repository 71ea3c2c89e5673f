package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/outline"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// sectionDocs are documents whose sections are hard to cut: CRLF line
// ends, CJK, nested sections, Setext headings, a section at the end with
// no newline, HTML and reStructuredText.
var sectionDocs = map[string]string{
	"docs/guide.md": "---\r\ntitle: The Guide\r\n---\r\n\r\nIntro 中文 text.\r\n\r\n# Install\r\n\r\n" + strings.Repeat("Run 中文🙂 \"quoted\" \\ it.\r\n", 40) +
		"\r\n## From source\r\n\r\n```sh\r\n# not a heading\r\ngo build\r\n```\r\n\r\nUsage\r\n=====\r\n\r\n" + strings.Repeat("Some usage text here.\n", 60) +
		"\nExamples\n--------\n\nOne.\n\n## Examples\n\nTwo 中文.\n\n### Deep\n\nThe end, no newline",
	"docs/page.html":  "<html><body>\n<h1 id=\"top\">Top</h1>\n<p>Intro.</p>\n<h2>Part one</h2>\n" + strings.Repeat("<p>Para of part one.</p>\n", 50) + "<h2>Part two</h2>\n<p>Last.</p>\n</body></html>\n",
	"docs/manual.rst": "======\nManual\n======\n\nIntro.\n\nSetup\n=====\n\n" + strings.Repeat("Setup text line.\n", 50) + "\nDetails\n-------\n\nMore.\n\nUse\n===\n\nLast line",
}

// sectionPages reads the section of uri that query names to its end in
// pages of budget, in format, each within the budget, and returns the
// contents joined.
func sectionPages(t *testing.T, cs *mcp.ClientSession, c pager.Counter, uri, query string, budget int, format string) string {
	t.Helper()
	var got strings.Builder
	args := map[string]any{"path": uri, "section": query, "max_tokens": budget, "format": format}
	for i := 0; ; i++ {
		r := call(t, cs, "read", args)
		if r.isError {
			t.Fatalf("%s %q page %d: %s", uri, query, i+1, r.text)
		}
		if n := c.Count(r.text); n > budget {
			t.Fatalf("%s %q page %d: %d tokens, over %d", uri, query, i+1, n, budget)
		}
		decode := pager.Decode
		if format == "text" {
			decode = pager.DecodeText
		}
		p, err := decode([]byte(r.text))
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(p.Content)
		if !p.HasMore {
			return got.String()
		}
		args["cursor"] = *p.NextCursor
	}
}

// TestReadSection: a section read by anchor or by heading path, in pages
// of any budget and format, gives back exactly the bytes from its heading
// to the next heading of its level or higher; in lines, its lines, and a
// footer that goes on within it.
func TestReadSection(t *testing.T) {
	e := newEnv(t)
	for name, text := range sectionDocs {
		e.write(t, name, text)
	}
	c := counter(t, tokencount.O200kBase)
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	sections := 0
	for name, text := range sectionDocs {
		doc := outline.Of(name, []byte(text))
		if len(doc.Sections) < 3 {
			t.Fatalf("%s: %d sections", name, len(doc.Sections))
		}
		for i, s := range doc.Sections {
			want := text[s.Start:s.End]
			sections++
			for _, budget := range []int{100, 300} {
				for _, format := range []string{"json", "text"} {
					if got := sectionPages(t, cs, c, name, "#"+s.Anchor, budget, format); got != want {
						t.Fatalf("%s #%s at %d in %s: got %q\nwant %q", name, s.Anchor, budget, format, got, want)
					}
				}
			}
			if _, err := doc.Find(strings.Join(doc.Path(i), outline.PathSep)); err == nil {
				if got := sectionPages(t, cs, c, name, strings.Join(doc.Path(i), outline.PathSep), 2000, "json"); got != want {
					t.Fatalf("%s %v: got %q, want %q", name, doc.Path(i), got, want)
				}
			}
			// Lines: the section's own, and the footer says so.
			r := call(t, cs, "read", map[string]any{"path": name, "section": "#" + s.Anchor})
			lines, footer, _ := strings.Cut(r.text, "\n[folio] ")
			if r.isError || lines != want || !strings.Contains(footer, fmt.Sprintf("lines %d-%d of ", s.First, s.Last)) || !strings.HasSuffix(footer, "end of section") {
				t.Fatalf("%s #%s lines: %q", name, s.Anchor, r.text)
			}
		}
	}
	if sections < 12 {
		t.Fatalf("%d sections read", sections)
	}
	// Lines two at a time: the footer's call goes on inside the section.
	doc := outline.Of("docs/guide.md", []byte(sectionDocs["docs/guide.md"]))
	i, _ := doc.Find("Install")
	s := doc.Sections[i]
	var got strings.Builder
	args := map[string]any{"path": "docs/guide.md", "section": "Install", "limit": 2}
	for range 100 {
		r := call(t, cs, "read", args)
		lines, footer, _ := strings.Cut(r.text, "\n[folio] ")
		got.WriteString(lines)
		_, more, ok := strings.Cut(footer, "more: read ")
		if !ok {
			break
		}
		args = map[string]any{}
		if err := json.Unmarshal([]byte(more), &args); err != nil || args["section"] != "Install" {
			t.Fatalf("footer %q", footer)
		}
	}
	if want := sectionDocs["docs/guide.md"][s.Start:s.End]; got.String() != want {
		t.Fatalf("lines two at a time: %q\nwant %q", got.String(), want)
	}
	// A negative offset counts back from the section's end.
	r := call(t, cs, "read", map[string]any{"path": "docs/guide.md", "section": "#install", "offset": -1})
	if lines, _, _ := strings.Cut(r.text, "\n[folio] "); lines != "\r\n" {
		t.Fatalf("last line of Install: %q", r.text)
	}
	wantCode(t, call(t, cs, "read", map[string]any{"path": "docs/guide.md", "section": "#install", "offset": s.Last + 1}), toolerr.CodeInvalidArgument)
}

// TestReadSectionRefused: a section that is no one section, of a file the
// caller may not see, of a directory, or mixed with what it does not go
// with; and cursors that are not the section's.
func TestReadSectionRefused(t *testing.T) {
	e := newEnv(t)
	for name, text := range sectionDocs {
		e.write(t, name, text)
	}
	e.write(t, "secret/.env", "# Install\n\ntoken\n")
	e.write(t, "hidden.md", "# Install\n\nhidden words\n")
	alice := e.addToken(t, "alice", "docs/**")
	ca := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), alice, nil)
	for _, tc := range []struct {
		args map[string]any
		code string
		want []string // in the message
	}{
		{map[string]any{"path": "docs/guide.md", "section": "Examples"}, toolerr.CodeInvalidArgument, []string{`"Usage > Examples" (#examples,`, `"Usage > Examples" (#examples-1,`}},
		{map[string]any{"path": "docs/guide.md", "section": "Instal from sourc", "max_tokens": 100}, toolerr.CodeNotFound, []string{"closest", "#from-source"}},
		{map[string]any{"path": "docs/guide.md", "section": "Nothing alike"}, toolerr.CodeNotFound, []string{"heading path"}},
		{map[string]any{"path": "docs", "section": "Install"}, toolerr.CodeInvalidArgument, nil},
		{map[string]any{"path": "secret/.env", "section": "Install"}, toolerr.CodeNotFound, nil},
		{map[string]any{"path": "hidden.md", "section": "Install", "max_tokens": 100}, toolerr.CodeNotFound, nil},
		{map[string]any{"paths": []string{"docs/guide.md"}, "section": "Install"}, toolerr.CodeInvalidArgument, nil},
		{map[string]any{"path": "docs/guide.md", "section": "Install", "line": 3, "max_tokens": 100}, toolerr.CodeInvalidArgument, nil},
		{map[string]any{"path": "docs/guide.md", "section": "  "}, toolerr.CodeInvalidArgument, nil},
	} {
		r := call(t, ca, "read", tc.args)
		wantCode(t, r, tc.code)
		var body struct{ Error struct{ Message string } }
		json.Unmarshal([]byte(r.text), &body)
		for _, w := range tc.want {
			if !strings.Contains(body.Error.Message, w) {
				t.Errorf("%v: %s lacks %q", tc.args, body.Error.Message, w)
			}
		}
		if strings.Contains(r.text, "hidden words") || strings.Contains(r.text, "token") {
			t.Errorf("%v: %s", tc.args, r.text)
		}
	}
	// A section's cursor goes on only with the same section; a whole
	// file's cursor not at all.
	r := call(t, ca, "read", map[string]any{"path": "docs/guide.md", "section": "Install", "max_tokens": 100})
	p, err := pager.Decode([]byte(r.text))
	if err != nil || !p.HasMore {
		t.Fatalf("%v %s", err, r.text)
	}
	for _, args := range []map[string]any{
		{"path": "docs/guide.md", "max_tokens": 100, "cursor": *p.NextCursor},
		{"path": "docs/guide.md", "section": "#usage", "max_tokens": 100, "cursor": *p.NextCursor},
		{"path": "docs/guide.md", "section": "#install", "max_tokens": 100, "cursor": *p.NextCursor},
	} {
		wantCode(t, call(t, ca, "read", args), toolerr.CodeInvalidCursor)
	}
	r = call(t, ca, "read", map[string]any{"path": "docs/guide.md", "max_tokens": 100})
	whole, _ := pager.Decode([]byte(r.text))
	wantCode(t, call(t, ca, "read", map[string]any{"path": "docs/guide.md", "section": "Install", "max_tokens": 100, "cursor": *whole.NextCursor}), toolerr.CodeInvalidCursor)
	// A changed file: version_conflict, and no text of it.
	path := filepath.Join(e.dir, "docs/guide.md")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(sectionDocs["docs/guide.md"], "Run", "NEW")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = call(t, ca, "read", map[string]any{"path": "docs/guide.md", "section": "Install", "max_tokens": 100, "cursor": *p.NextCursor})
	wantCode(t, r, toolerr.CodeVersionConflict)
	if strings.Contains(r.text, "NEW") {
		t.Fatal(r.text)
	}
}

// outlineLine is one section's line of a file's outline.
var outlineLine = regexp.MustCompile(`^(\d+)-(\d+) (\d+) (#+) (.*?)( \{#(\S+)\})?$`)

// outlineAll follows an outline of uri to its end at budget, each answer
// within it, and returns the lines that are not notes.
func outlineAll(t *testing.T, cs *mcp.ClientSession, c pager.Counter, uri string, budget int) []string {
	t.Helper()
	var lines []string
	args := map[string]any{"path": uri, "max_tokens": budget}
	for i := 0; i < 1000; i++ {
		r := call(t, cs, "outline", args)
		if r.isError {
			t.Fatalf("outline %s page %d: %s", uri, i+1, r.text)
		}
		if n := c.Count(r.text); n > budget || r.meta[wire.MetaTokens] != float64(n) {
			t.Fatalf("outline %s page %d: %d tokens (_meta %v), budget %d", uri, i+1, n, r.meta[wire.MetaTokens], budget)
		}
		next := ""
		for l := range strings.Lines(r.text) {
			l = strings.TrimSuffix(l, "\n")
			if more, ok := strings.CutPrefix(l, "[folio] more: outline "); ok {
				var a map[string]any
				if err := json.Unmarshal([]byte(more), &a); err != nil {
					t.Fatal(err)
				}
				next = a["cursor"].(string)
			} else if !strings.HasPrefix(l, "[folio] ") {
				lines = append(lines, l)
			}
		}
		if next == "" {
			return lines
		}
		args["cursor"] = next
	}
	t.Fatal("the outline never ends")
	return nil
}

// TestOutlineFile: each section's line range and its tokens, exactly the
// counter's count of its bytes, for every format; the same lines whatever
// the budget, each answer within it; a changed file between answers is a
// version_conflict.
func TestOutlineFile(t *testing.T) {
	e := newEnv(t)
	for name, text := range sectionDocs {
		e.write(t, name, text)
	}
	c := counter(t, tokencount.O200kBase)
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	for name, text := range sectionDocs {
		doc := outline.Of(name, []byte(text))
		whole := outlineAll(t, cs, c, name, 5000)
		lines := strings.Count(text, "\n")
		if !strings.HasSuffix(text, "\n") {
			lines++
		}
		if want := fmt.Sprintf("%s: %d lines, %d tokens", name, lines, c.Count(text)); whole[0] != want {
			t.Fatalf("head %q, want %q", whole[0], want)
		}
		if len(whole) != len(doc.Sections)+1 {
			t.Fatalf("%s: %d lines for %d sections", name, len(whole)-1, len(doc.Sections))
		}
		for i, s := range doc.Sections {
			m := outlineLine.FindStringSubmatch(whole[i+1])
			if m == nil {
				t.Fatalf("%s: line %q", name, whole[i+1])
			}
			tokens, _ := strconv.Atoi(m[3])
			if m[1] != strconv.Itoa(s.First) || m[2] != strconv.Itoa(s.Last) || tokens != c.Count(text[s.Start:s.End]) || len(m[4]) != s.Level || m[5] != s.Title {
				t.Fatalf("%s: line %q for %+v (%d tokens)", name, whole[i+1], s, c.Count(text[s.Start:s.End]))
			}
			// The line names the section for read: by its title, or by
			// the anchor it gives when the title repeats.
			query := s.Title
			if m[7] != "" {
				query = "#" + m[7]
			}
			if got := sectionPages(t, cs, c, name, query, 5000, "text"); got != text[s.Start:s.End] {
				t.Fatalf("%s: section %q read back %q", name, query, got)
			}
		}
		for _, budget := range []int{70, 120} {
			var got []string
			for _, l := range outlineAll(t, cs, c, name, budget) {
				if l != whole[0] {
					got = append(got, l)
				}
			}
			if strings.Join(got, "\n") != strings.Join(whole[1:], "\n") {
				t.Fatalf("%s at %d: %q\nwant %q", name, budget, got, whole[1:])
			}
		}
	}
	e.write(t, "plain.txt", "no headings here\n")
	if r := call(t, cs, "outline", map[string]any{"path": "plain.txt"}); r.text != fmt.Sprintf("plain.txt: 1 lines, %d tokens\n[folio] no headings\n", c.Count("no headings here\n")) {
		t.Fatalf("plain text: %q", r.text)
	}
	wantCode(t, call(t, cs, "outline", map[string]any{"path": "docs/guide.md", "max_tokens": 10}), toolerr.CodeBudgetTooSmall)
	r := call(t, cs, "outline", map[string]any{"path": "docs/guide.md", "max_tokens": 70})
	_, more, _ := strings.Cut(r.text, "[folio] more: outline ")
	var next map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(more)), &next); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	e.write(t, "docs/guide.md", sectionDocs["docs/guide.md"]+"\n# Appendix\n")
	wantCode(t, call(t, cs, "outline", next), toolerr.CodeVersionConflict)
}

// TestOutlineDir: a directory's text files, as list shows them, with
// their tokens and titles; what a caller may not see is never named; a
// small budget pages through them, each answer within it; a cursor
// changed in its path is refused.
func TestOutlineDir(t *testing.T) {
	e := newEnv(t)
	for name, text := range sectionDocs {
		e.write(t, name, text)
	}
	e.write(t, "docs/.env", "SECRET=1\n")
	e.write(t, "docs/key.pem", "# Key\n")
	e.write(t, "docs/bin.dat", "\x00\x01\x02binary")
	e.write(t, "docs/images/a.png", "\x89PNG\x00\x00")
	e.write(t, "docs/build/out.md", "# Built\n")
	e.write(t, "docs/.gitignore", "build/\n")
	e.write(t, "notes.md", "# Notes\n")
	for i := range 30 {
		e.write(t, fmt.Sprintf("docs/many/%02d.md", i), fmt.Sprintf("# Page %d\n\nText of page %d.\n", i, i))
	}
	c := counter(t, tokencount.O200kBase)
	alice := e.addToken(t, "alice", "docs/**")
	ca := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), alice, nil)
	whole := outlineAll(t, ca, c, "docs", 5000)
	want := []string{
		fmt.Sprintf("%d docs/.gitignore", c.Count("build/\n")),
		fmt.Sprintf("%d docs/guide.md # The Guide", c.Count(sectionDocs["docs/guide.md"])),
		fmt.Sprintf("%d docs/manual.rst # Manual", c.Count(sectionDocs["docs/manual.rst"])),
	}
	for i := range 30 {
		want = append(want, fmt.Sprintf("%d docs/many/%02d.md # Page %d", c.Count(fmt.Sprintf("# Page %d\n\nText of page %d.\n", i, i)), i, i))
	}
	want = append(want, fmt.Sprintf("%d docs/page.html # Top", c.Count(sectionDocs["docs/page.html"])))
	if strings.Join(whole, "\n") != strings.Join(want, "\n") {
		t.Fatalf("outline of docs:\n%s\nwant\n%s", strings.Join(whole, "\n"), strings.Join(want, "\n"))
	}
	for _, budget := range []int{90, 150} {
		if got := outlineAll(t, ca, c, "docs", budget); strings.Join(got, "\n") != strings.Join(whole, "\n") {
			t.Fatalf("at %d:\n%s", budget, strings.Join(got, "\n"))
		}
	}
	if all := outlineAll(t, ca, c, ".", 5000); strings.Join(all, "\n") != strings.Join(whole, "\n") {
		t.Fatalf("alice's outline of the root:\n%s", strings.Join(all, "\n"))
	}
	if r := call(t, ca, "outline", map[string]any{"path": "docs/images"}); r.text != "[folio] no text files\n" {
		t.Fatalf("no text files: %q", r.text)
	}
	wantCode(t, call(t, ca, "outline", map[string]any{"path": "notes.md"}), toolerr.CodeNotFound)
	wantCode(t, call(t, ca, "outline", map[string]any{"path": "docs/.env"}), toolerr.CodeNotFound)
	if all := outlineAll(t, ca, c, "", 5000); strings.Join(all, "\n") != strings.Join(whole, "\n") {
		t.Fatalf("alice's outline without path:\n%s", strings.Join(all, "\n"))
	}
	wantCode(t, call(t, ca, "outline", map[string]any{"path": "docs", "max_tokens": 0}), toolerr.CodeInvalidArgument)
	r := call(t, ca, "outline", map[string]any{"path": "docs", "max_tokens": 90})
	_, more, _ := strings.Cut(r.text, "[folio] more: outline ")
	var next map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(more)), &next); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	cur := next["cursor"].(string)
	digits, _, _ := strings.Cut(cur, ":")
	for _, bad := range []string{digits + ":docs/many/20.md", digits, "1:" + cur} {
		wantCode(t, call(t, ca, "outline", map[string]any{"path": "docs", "cursor": bad}), toolerr.CodeInvalidCursor)
	}
	wantCode(t, call(t, ca, "outline", map[string]any{"path": "docs/many", "cursor": cur}), toolerr.CodeInvalidCursor)
}

// TestOutlineDirBounds: one answer reads at most reader.OutlineFiles
// files, says so, and its cursor goes on with the rest.
func TestOutlineDirBounds(t *testing.T) {
	e := newEnv(t)
	for i := range reader.OutlineFiles + 2 {
		e.write(t, fmt.Sprintf("big/%04d.md", i), "# T\n")
	}
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	r := call(t, cs, "outline", map[string]any{"path": "big", "max_tokens": 100000})
	if n := strings.Count(r.text, " # T\n"); n != reader.OutlineFiles || !strings.Contains(r.text, fmt.Sprintf("[folio] stopped after %d files\n", reader.OutlineFiles)) {
		t.Fatalf("%d files, %q", n, r.text[max(len(r.text)-300, 0):])
	}
	all := outlineAll(t, cs, counter(t, tokencount.O200kBase), "big", 100000)
	if len(all) != reader.OutlineFiles+2 || !strings.HasSuffix(all[len(all)-1], fmt.Sprintf("big/%04d.md # T", reader.OutlineFiles+1)) {
		t.Fatalf("%d lines, last %q", len(all), all[len(all)-1])
	}
}
