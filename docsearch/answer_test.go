package docsearch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/tokencount"
)

// TestAnswerReaderText asks a tree of HTML, MDX and Markdown documents:
// an HTML or MDX passage comes as the text a reader sees (tags, entities,
// imports and components gone; code fenced, lists marked), a Markdown one
// as the file has it, and each opening line names the lines of the file
// that hold the passage; a passage cut to fit its budget inside a code
// block keeps its fences.
func TestAnswerReaderText(t *testing.T) {
	root := t.TempDir()
	docs := map[string]string{
		"guide.html": "<!--{\"Title\": \"Guide\"}-->\n\n<h2 id=\"Kestrel\">Kestrel</h2>\n\n<p>\nThe <code>kestrel</code> flag turns on <a href=\"#hover\">hovering</a>\n&amp; watching.\n</p>\n<ul>\n<li>one <i>kestrel</i> mode</li>\n<li>two</li>\n</ul>\n",
		"page.mdx":   "import {Tabs} from '@theme/Tabs'\n\n# Osprey\n\n<Tabs>\n<Tab label=\"Go\">\n\nThe osprey <Badge>new</Badge> dives.\n\n</Tab>\n</Tabs>\n",
		"notes.md":   "# Heron\n\nThe heron <b>stands</b> still.\n",
		"code.html": "<h2>Listing</h2>\n<pre>\n" + strings.Repeat("filler line of code\n", 40) + "x := heron(egret)\n" +
			strings.Repeat("more filler code\n", 40) + "</pre>\n",
	}
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := fsview.Open([]string{root}, fsview.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	tr := NewTree(fs, TreeOptions{})
	if err := tr.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		question, path string
		budget         int
		header         string // the passage's opening line, version aside
		text           string // its text
	}{
		{"kestrel flag hovering", "guide.html", 500, "guide.html:5-12 § Kestrel",
			"The `kestrel` flag turns on hovering\n& watching.\n\n- one kestrel mode\n- two\n"},
		{"osprey dives", "page.mdx", 500, "page.mdx:8-8 § Osprey", "The osprey new dives.\n"},
		{"heron stands", "notes.md", 500, "notes.md:3-3 § Heron", "The heron <b>stands</b> still.\n"},
		{"heron egret", "code.html", 80, "code.html:", "```\n"},
	} {
		ans, err := tr.Ask(context.Background(), fs, c.path, Query{Text: c.question, MaxTokens: c.budget}, counter.Count)
		if err != nil {
			t.Fatal(err)
		}
		header, text, _ := strings.Cut(ans.Text, "\n")
		if at := strings.Index(header, " @"); at > 0 {
			header = header[:at] + header[at+34:]
		}
		if !strings.HasPrefix(header, c.header) || !strings.HasPrefix(text+"\n", c.text) {
			t.Errorf("%q: answered\n%s\nwant\n%s\n%s", c.question, ans.Text, c.header, c.text)
		}
		// The lines the header names hold the passage's words.
		m := passageHeader.FindStringSubmatch(header)
		first, last := lineRange(t, header)
		lines := strings.Split(docs[m[1]], "\n")
		if held := strings.Join(lines[first-1:last], "\n"); !strings.Contains(held, strings.Fields(c.question)[0]) {
			t.Errorf("%s names lines without %q:\n%s", header, strings.Fields(c.question)[0], held)
		}
		if c.path == "code.html" && (!strings.Contains(ans.Text, "x := heron(egret)") || strings.Count(ans.Text, "```") != 2) {
			t.Errorf("a cut of code without its fences:\n%s", ans.Text)
		}
	}
}

// lineRange is the first and last line an answer's opening line names.
func lineRange(t *testing.T, header string) (int, int) {
	t.Helper()
	_, span, _ := strings.Cut(strings.Fields(header)[0], ":")
	a, b, _ := strings.Cut(span, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("header %q", header)
	}
	return first, last
}
