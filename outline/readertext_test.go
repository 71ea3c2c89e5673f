package outline

import (
	"strings"
	"testing"
)

// textOf is lines as text, each line "N|text" (N its source line).
func textOf(lines []TextLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(itoa(l.Line) + "|" + l.Text + "\n")
	}
	return b.String()
}

// TestHTMLText gives each kind of HTML as the text a reader sees, written
// as Markdown, each line naming the source line it comes from.
func TestHTMLText(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"paragraphs and inline markup", "<p>\nGo is <i>general</i>-purpose; see <a href=\"/x\">the   docs</a>.\nA second line.\n</p>\n\n<p>Next &amp; last&nbsp;one.</p>\n",
			"2|Go is general-purpose; see the docs.\n3|A second line.\n6|\n6|Next & last one.\n"},
		{"headings", "<h2 id=\"Intro\">Intro <code>x</code></h2>\n<p>Text.</p>\n<h3>Sub\nmore</h3>\n",
			"1|## Intro `x`\n2|\n2|Text.\n3|\n3|### Sub more\n"},
		{"pre as fenced code", "<p>Run:</p>\n<pre class=\"ebnf\">\nx := 1 &lt; 2\n\n  <b>y</b>()\n</pre>\n<p>After.</p>\n",
			"1|Run:\n2|\n2|```\n3|x := 1 < 2\n4|\n5|  y()\n6|```\n7|\n7|After.\n"},
		{"a fence longer than the code's backticks", "<pre>a ``` b</pre>",
			"1|````\n1|a ``` b\n1|````\n"},
		{"code spans with backticks", "<p>quotes <code>``</code> and <code>`</code>, <code>a\nb</code></p>",
			"1|quotes ``` `` ``` and `` ` ``, `a b`\n"},
		{"lists", "<ul>\n<li>one\n<li>two <ol><li>first</li><li>second</li></ol></li>\n</ul>\n<p>After.</p>",
			"2|- one\n3|- two\n3|  1. first\n3|  2. second\n5|\n5|After.\n"},
		{"definition list", "<dl><dt>term</dt><dd>what it means</dd></dl>",
			"1|term\n1|  what it means\n"},
		{"table", "<table>\n<tr><th>Op</th><th>Meaning</th></tr>\n<tr><td>&amp;&amp;</td><td>and\nalso</td></tr>\n</table>",
			"2|| Op | Meaning |\n2|| --- | --- |\n3|| && | and also |\n"},
		{"br", "<li><code>NOPROF</code> = 1\n<br>\n(For TEXT items.)</li>",
			"1|- `NOPROF` = 1\n3|(For TEXT items.)\n"},
		{"hidden", "<!--{\n\"Title\": \"x\"\n}-->\n<style>\np { x: y }\n</style>\n<script>var a = 1 < 2;</script>\n<p>Seen.</p>",
			"8|Seen.\n"},
		{"a fragment left open", "<p>Text</p>\n<pre>\ncode",
			"1|Text\n2|\n2|```\n3|code\n3|```\n"},
		{"stray closing tags", "</li></ul>text</p>", "1|text\n"},
		{"a whole page", "<html><head><title>T</title>\n<body><p>Body.</p></body></html>", "2|Body.\n"},
	} {
		if got := textOf(HTMLText([]byte(c.src))); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestMDXText gives MDX as its Markdown with the JSX dropped, each line
// naming the source line it comes from.
func TestMDXText(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"imports and exports", "import {Tabs,\n  TabItem} from '@theme/Tabs'\nexport const meta = {\n  title: 'x',\n}\n\n# Title\n\nText.\n",
			"7|# Title\n8|\n9|Text.\n"},
		{"components", "<Tabs>\n  <TabItem value=\"go\" label=\"Go\">\n\nRun `go <build>` now.\n\n  </TabItem>\n</Tabs>\n",
			"4|Run `go <build>` now.\n"},
		{"inline and self-closing", "A <Badge type=\"tip\">new</Badge> flag.<br/>\n<Image src={img} alt=\"a > b\" />\n",
			"1|A new flag.\n"},
		{"a tag over lines", "<Callout\n  type=\"warning\"\n  onClose={() => x > 1}\n>\nCareful.\n</Callout>\n",
			"5|Careful.\n"},
		{"comments", "Text {/* a note */} here.\n{/*\nlonger\n*/}\n<!-- old -->\nMore.\n",
			"1|Text  here.\n6|More.\n"},
		{"fenced code untouched", "```jsx\nimport x from 'y'\n<Tabs>{/* c */}</Tabs>\n```\n<Note>after</Note>\n",
			"1|```jsx\n2|import x from 'y'\n3|<Tabs>{/* c */}</Tabs>\n4|```\n5|after\n"},
		{"autolink", "See <https://go.dev/doc>.\n", "1|See https://go.dev/doc.\n"},
		{"blank lines one at a time", "a\n\n<X/>\n\nb\n", "1|a\n2|\n5|b\n"},
	} {
		if got := textOf(MDXText([]byte(c.src))); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestReaderText: HTML and MDX have a reader's text, every other format
// is read as it is written.
func TestReaderText(t *testing.T) {
	for name, ok := range map[string]bool{"a.html": true, "b.HTM": true, "c.mdx": true, "d.md": false, "e.rst": false, "f.txt": false, "g.go": false} {
		if _, got := ReaderText(name, []byte("<p>x</p>\n")); got != ok {
			t.Errorf("%s: %v", name, got)
		}
	}
}

// FuzzReaderText: whatever the bytes, each line of a reader's text is one
// line, and names a line of the source, in order.
func FuzzReaderText(f *testing.F) {
	f.Add([]byte(sampleHTML))
	f.Add([]byte("<ul><li><pre>x\n</pre><table><tr><td>a<br>b"))
	f.Add([]byte("import {a,\n b} from 'c'\n<X\ny={1}>\n```\n<Y/>\n```\n{/* c\n*/}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		n := len(splitLines(src))
		for _, lines := range [][]TextLine{HTMLText(src), MDXText(src)} {
			prev := 1
			for _, l := range lines {
				if strings.Contains(l.Text, "\n") || l.Line < prev || l.Line > max(n, 1) {
					t.Fatalf("line %d (after %d, of %d): %q", l.Line, prev, n, l.Text)
				}
				prev = l.Line
			}
		}
	})
}
