package outline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sample = "---\ntitle: \"The Guide\"\ntags: [a]\n---\n\n" +
	"Intro text, *before* any heading.\n\n" +
	"# Installing folio\n\nRun `go install` with [the module](https://x.test/m).\n\n" +
	"## On Linux\n\n- one item\n- two items,\n  continued\n\n  still the second\n\n" +
	"```go\n# not a heading\nfunc main() {}\n```\n\n" +
	"Setext Title\n============\n\n" +
	"| flag | what |\n|:--|--:|\n| `-x` | fast |\n\n" +
	"## On Linux\n\n    indented code\n\n<!-- a\ncomment -->\n<Tabs>text in JSX</Tabs>\n" +
	"### Deep #\ntext\r\n"

// TestMarkdown reads each kind of block and heading, and the sections
// they make, from one document.
func TestMarkdown(t *testing.T) {
	d := Markdown([]byte(sample))
	if d.Title != "The Guide" {
		t.Errorf("title %q", d.Title)
	}
	var titles, anchors []string
	for _, s := range d.Sections {
		titles = append(titles, s.Title)
		anchors = append(anchors, s.Anchor)
	}
	if want := []string{"Installing folio", "On Linux", "Setext Title", "On Linux", "Deep"}; !slices.Equal(titles, want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
	if want := []string{"installing-folio", "on-linux", "setext-title", "on-linux-1", "deep"}; !slices.Equal(anchors, want) {
		t.Errorf("anchors %q, want %q", anchors, want)
	}
	if got := d.Path(4); !slices.Equal(got, []string{"Setext Title", "On Linux", "Deep"}) {
		t.Errorf("path of Deep: %q", got)
	}
	var kinds []string
	for _, b := range d.Blocks {
		kinds = append(kinds, b.Kind.String())
	}
	want := "meta paragraph heading paragraph heading list code heading table heading code meta paragraph heading paragraph"
	if strings.Join(kinds, " ") != want {
		t.Errorf("blocks %s\nwant   %s", strings.Join(kinds, " "), want)
	}
	for _, c := range []struct {
		block int
		text  string
	}{
		{1, "Intro text, before any heading.\n"},
		{3, "Run go install with the module.\n"},
		{5, "one item\ntwo items,\ncontinued\nstill the second\n"},
		{6, "# not a heading\nfunc main() {}\n"},
		{8, "flag what\n-x fast\n"},
		{12, "text in JSX\n"},
	} {
		if got := d.Blocks[c.block].Text; got != c.text {
			t.Errorf("block %d (%s): %q, want %q", c.block, d.Blocks[c.block].Kind, got, c.text)
		}
	}
	checkShape(t, []byte(sample), d)
}

// checkShape holds d to src: blocks in order, apart, of whole lines;
// sections from their heading to the next of their level or higher, each
// the part before its first child and its children, the top-level ones
// with what comes before them the whole document.
func checkShape(t *testing.T, src []byte, d *Doc) {
	t.Helper()
	starts := map[int]bool{len(src): true}
	for _, l := range splitLines(src) {
		starts[l.start] = true
	}
	last := 0
	for i, b := range d.Blocks {
		if b.Start < last || b.End <= b.Start || !starts[b.Start] || !starts[b.End] || b.First > b.Last {
			t.Fatalf("block %d %+v after %d, in %q", i, b.Span, last, src)
		}
		last = b.End
	}
	for i, s := range d.Sections {
		end := len(src)
		for _, n := range d.Sections[i+1:] {
			if n.Level <= s.Level {
				end = n.Start
				break
			}
		}
		if s.End != end || s.Start >= s.End || !starts[s.Start] {
			t.Fatalf("section %d %+v, want end %d, in %q", i, s, end, src)
		}
		var joined []byte
		from := s.Start
		for j, c := range d.Sections {
			if c.Parent == i {
				if len(joined) == 0 {
					joined = append(joined, src[from:c.Start]...)
				}
				joined = append(joined, src[c.Start:c.End]...)
				_ = j
			}
		}
		if len(joined) > 0 && string(joined) != string(src[from:s.End]) {
			t.Fatalf("section %d's children do not join to it in %q", i, src)
		}
	}
	var whole []byte
	first := true
	for _, s := range d.Sections {
		if s.Parent != -1 {
			continue
		}
		if first {
			whole, first = append(whole, src[:s.Start]...), false
		}
		whole = append(whole, src[s.Start:s.End]...)
	}
	if !first && string(whole) != string(src) {
		t.Fatalf("the top-level sections do not join to the document %q", src)
	}
}

// TestCorpus reads every Markdown and HTML file of the docs fixture: each
// keeps its shape, and has blocks of text.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/docsearch/corpus/*/*.md")
	more, _ := filepath.Glob("../testdata/docsearch/corpus/*/*/*/*.md")
	pages, _ := filepath.Glob("../testdata/docsearch/corpus/*/*.html")
	for _, f := range slices.Concat(files, more, pages) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := Markdown(src)
		if strings.HasSuffix(f, ".html") {
			d = HTML(src)
		}
		checkShape(t, src, d)
		if len(d.Blocks) == 0 {
			t.Errorf("%s: no blocks", f)
		}
	}
	if len(files) < 10 || len(pages) < 3 {
		t.Fatalf("%d Markdown and %d HTML files in the fixture", len(files), len(pages))
	}
}

// FuzzMarkdown: whatever the bytes, the structure keeps its shape (see
// checkShape), so a file's sections give it back.
func FuzzMarkdown(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("a\n---\n# b\n```\n# c\n"))
	f.Add([]byte("- a\n\n  b\n# c\n## d\n# e"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkShape(t, src, Markdown(src))
	})
}

const sampleHTML = `<!--{
	"Title": "The Spec",
	"Path": "/ref/spec"
}-->

<style>
p.rule { font-style: italic; }
</style>

<h2 id="Intro">Introduction</h2>

<p>
Go is &lt;general&gt; purpose.
</p>
Loose text
after a block.

<h3 id="Notation">Notation</h3>
<pre class="ebnf">
Production = name "=" .
</pre>
<ul><li>one</li><li>two</li></ul>
<table><tr><th>a</th><td>b</td></tr></table>
<h2 id="Next">Next</h2><p>same line</p>
`

// TestHTML reads each kind of block and heading of an HTML fragment, as
// Go's docs are written.
func TestHTML(t *testing.T) {
	d := HTML([]byte(sampleHTML))
	if d.Title != "The Spec" {
		t.Errorf("title %q", d.Title)
	}
	var titles []string
	for _, s := range d.Sections {
		titles = append(titles, s.Title+"#"+s.Anchor)
	}
	if want := []string{"Introduction#Intro", "Notation#Notation", "Next#Next"}; !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	var kinds []string
	for _, b := range d.Blocks {
		kinds = append(kinds, b.Kind.String())
	}
	// The last heading shares its line with a paragraph: the block is a
	// paragraph of both (its section stays).
	if want := "meta meta heading paragraph paragraph heading code list table paragraph"; strings.Join(kinds, " ") != want {
		t.Errorf("blocks %s\nwant   %s", strings.Join(kinds, " "), want)
	}
	for _, c := range []struct {
		block int
		text  string
	}{
		{3, "\nGo is <general> purpose.\n"},
		{4, "\nLoose text\nafter a block."},
		{9, "Next\nsame line"},
		{6, "\nProduction = name \"=\" .\n"},
		{7, "\none\ntwo"},
	} {
		if got := d.Blocks[c.block].Text; got != c.text {
			t.Errorf("block %d (%s): %q, want %q", c.block, d.Blocks[c.block].Kind, got, c.text)
		}
	}
	checkShape(t, []byte(sampleHTML), d)
}

// FuzzHTML: whatever the bytes, the structure keeps its shape (see
// checkShape).
func FuzzHTML(f *testing.F) {
	f.Add([]byte(sampleHTML))
	f.Add([]byte("<p>a<h2>b</h2>\n\n<pre>"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkShape(t, src, HTML(src))
	})
}
