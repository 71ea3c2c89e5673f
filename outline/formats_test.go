package outline

import (
	"slices"
	"strings"
	"testing"
)

// blocksOf is the kinds of d's blocks, and its sections' titles with
// their levels.
func blocksOf(d *Doc) (string, []string) {
	var kinds, titles []string
	for _, b := range d.Blocks {
		kinds = append(kinds, b.Kind.String())
	}
	for _, s := range d.Sections {
		titles = append(titles, strings.Repeat("#", s.Level)+s.Title)
	}
	return strings.Join(kinds, " "), titles
}

const sampleRST = `=========
The Guide
=========

Intro paragraph.

Install
=======

Run this::

    go install example.com/x

Options
-------

- first
- second

  more of it

.. code-block:: go

   func main() {}

.. note:: Notes are text.

.. a comment

+-----+-----+
| a   | b   |
+-----+-----+

=====  =====
key    value
=====  =====
`

// TestRST reads each kind of block and heading of reStructuredText, the
// levels in the order the styles first appear.
func TestRST(t *testing.T) {
	d := RST([]byte(sampleRST))
	kinds, titles := blocksOf(d)
	if want := []string{"#The Guide", "##Install", "###Options"}; !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	if want := "heading paragraph heading paragraph code heading list code paragraph meta table table"; kinds != want {
		t.Errorf("blocks %s\nwant   %s", kinds, want)
	}
	if d.Title != "The Guide" || d.Blocks[4].Text != "go install example.com/x\n" || d.Blocks[10].Text != "a b\n" {
		t.Errorf("title %q, code %q, table %q", d.Title, d.Blocks[4].Text, d.Blocks[10].Text)
	}
	checkShape(t, []byte(sampleRST), d)
}

const sampleAsciiDoc = `= The Guide
:toc:

Intro paragraph.

== Install

[source,sh]
----
go install example.com/x
----

=== Options

* first
* second
+
more of it

[[tables]]
== Tables

|===
| a | b
|===

////
a comment
////
`

// TestAsciiDoc reads each kind of block and heading of AsciiDoc.
func TestAsciiDoc(t *testing.T) {
	d := AsciiDoc([]byte(sampleAsciiDoc))
	kinds, titles := blocksOf(d)
	if want := []string{"#The Guide", "##Install", "###Options", "##Tables"}; !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	if want := "heading meta paragraph heading code heading list meta heading table meta"; kinds != want {
		t.Errorf("blocks %s\nwant   %s", kinds, want)
	}
	if d.Blocks[4].Text != "go install example.com/x\n" || d.Blocks[6].Text != "first\nsecond\nmore of it\n" || d.Blocks[9].Text != "a b\n" {
		t.Errorf("code %q, list %q, table %q", d.Blocks[4].Text, d.Blocks[6].Text, d.Blocks[9].Text)
	}
	checkShape(t, []byte(sampleAsciiDoc), d)
}

// TestText reads plain text as paragraphs, and nothing else.
func TestText(t *testing.T) {
	src := []byte("one\ntwo\n\n\n# not a heading\n")
	d := Text(src)
	if kinds, titles := blocksOf(d); kinds != "paragraph paragraph" || len(titles) != 0 || d.Blocks[1].Text != "# not a heading\n" {
		t.Errorf("blocks %s, sections %q", kinds, titles)
	}
	checkShape(t, src, d)
}

// FuzzFormats: whatever the bytes, each reader's structure keeps its
// shape (see checkShape).
func FuzzFormats(f *testing.F) {
	f.Add([]byte(sampleRST))
	f.Add([]byte(sampleAsciiDoc))
	f.Add([]byte("a\n==\n\n----\n::\n\n  x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkShape(t, src, RST(src))
		checkShape(t, src, AsciiDoc(src))
		checkShape(t, src, Text(src))
	})
}

// TestDocExtensions: the one list of documents' extensions, which docs
// search and llms.txt take, names each format Of reads by its structure
// (a heading is a section) and plain text, and IsDoc agrees with it in
// any case; source files are not documents.
func TestDocExtensions(t *testing.T) {
	heading := map[string]string{".md": "# T\n\nx\n", ".mdx": "# T\n\nx\n", ".markdown": "# T\n\nx\n", ".html": "<h1>T</h1><p>x</p>\n", ".htm": "<h1>T</h1><p>x</p>\n", ".rst": "Title\n=====\n\nx\n", ".adoc": "= T\n\nx\n", ".asciidoc": "= T\n\nx\n", ".asc": "= T\n\nx\n"}
	exts := DocExtensions()
	if len(exts) != len(heading)+1 || exts[len(exts)-1] != ".txt" {
		t.Fatalf("DocExtensions() = %q", exts)
	}
	for _, ext := range exts {
		if !IsDoc("a"+ext) || !IsDoc("A"+strings.ToUpper(ext)) {
			t.Errorf("IsDoc(a%s) is false", ext)
		}
		if src, ok := heading[ext]; ok {
			if d := Of("a"+ext, []byte(src)); len(d.Sections) == 0 || !strings.HasPrefix(d.Sections[0].Title, "T") {
				t.Errorf("Of(a%s) reads no heading: %+v", ext, d.Sections)
			}
		}
	}
	for _, name := range []string{"main.go", "a.json", "README", "a.md.bak"} {
		if IsDoc(name) {
			t.Errorf("IsDoc(%q)", name)
		}
	}
}
