// Package outline reads the structure of a document: its sections (each
// heading with the lines it governs, its level, its title and the anchor
// GitHub makes for it) and its blocks (paragraphs, lists, tables, code),
// each with the lines it spans and the section that holds it: what docs
// search (package docsearch) cuts its passages from.
//
// Readers: Markdown (and MDX), HTML, RST, AsciiDoc and Text for documents;
// Source for source files, whose sections are their declarations ("func
// Parse", "class Server" and its methods) and whose blocks are each
// declaration's doc comment with its signature, the file's doc, and the
// fields and values of types and constants, function bodies left as Meta.
// Of picks the reader by a file's extension. Positions are byte offsets
// of whole lines, so a section or a block is always the exact bytes of the
// file from its first line to its last.
//
// ReaderText (HTMLText, MDXText) gives the text a reader sees of lines of
// an HTML or MDX document, written as Markdown, each line naming the line
// it comes from: what docs search answers with for those formats.
package outline

import (
	"path"
	"strings"
)

// Of is the structure of the document at name, read by the reader its
// extension names: Markdown and MDX (.md, .mdx, .markdown), HTML (.html,
// .htm), reStructuredText (.rst), AsciiDoc (.adoc, .asciidoc, .asc),
// source files by their declarations (see Source): Go (.go), C and C++
// (.c, .h, .cc, .cpp, .cxx, .hpp, .hh, .hxx), Java (.java), C# (.cs),
// JavaScript and TypeScript (.js, .jsx, .mjs, .cjs, .ts, .tsx, .mts,
// .cts), Rust (.rs), Swift (.swift), Kotlin (.kt, .kts), Python (.py,
// .pyi), shell (.sh, .bash, .zsh), Ruby (.rb) and YAML (.yaml, .yml);
// and plain text by paragraphs for any other.
func Of(name string, src []byte) *Doc {
	ext := strings.ToLower(path.Ext(name))
	if languages[ext] != nil {
		return Source(ext, src)
	}
	switch ext {
	case ".md", ".mdx", ".markdown":
		return Markdown(src)
	case ".html", ".htm":
		return HTML(src)
	case ".rst":
		return RST(src)
	case ".adoc", ".asciidoc", ".asc":
		return AsciiDoc(src)
	}
	return Text(src)
}

// Kind is what a block is.
type Kind uint8

// The kinds of blocks.
const (
	// Paragraph is running text.
	Paragraph Kind = iota
	// Heading is a heading's own lines.
	Heading
	// List is a list, all its items and their continuation lines.
	List
	// Table is a table with its header.
	Table
	// Code is a code block, fenced or indented; in source, a declaration
	// without a comment, or code among a type's fields or a value's.
	Code
	// Meta is what a reader does not read as text: front matter, HTML
	// comments; in source, function bodies, imports, license headers and
	// directives.
	Meta
)

// String is the kind's name.
func (k Kind) String() string {
	return [...]string{"paragraph", "heading", "list", "table", "code", "meta"}[k]
}

// A Span is a run of whole lines of a document: bytes [Start, End), lines
// First to Last, counted from 1.
type Span struct {
	Start, End  int
	First, Last int
}

// A Section is a heading and the lines it governs: from its heading to
// the next heading of the same or a higher level, or the end.
type Section struct {
	Span
	// Level is 1 to 6.
	Level int
	// Title is the heading's text, its markup dropped.
	Title string
	// Anchor is the fragment GitHub links the heading by ("installing-folio"),
	// unique in the document.
	Anchor string
	// Parent is the index of the section that holds this one, -1 for none.
	Parent int
}

// A Block is a unit of a document's text.
type Block struct {
	Span
	Kind Kind
	// Section is the index of the innermost section that holds the block,
	// -1 before the first heading.
	Section int
	// Text is the block's words as a reader takes them: markup, tags and
	// fences dropped. Empty for Meta blocks.
	Text string
}

// A Doc is a document's structure.
type Doc struct {
	// Title is the front matter's title, else the first top-level
	// heading's, else ""; a source file's is the first sentence of its
	// doc.
	Title    string
	Sections []Section
	Blocks   []Block
}

// Path is the titles of section i and of the sections that hold it, the
// outermost first.
func (d *Doc) Path(i int) []string {
	var path []string
	for ; i >= 0; i = d.Sections[i].Parent {
		path = append(path, d.Sections[i].Title)
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	return path
}
