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
// extension names: the documents' formats (see DocExtensions), source
// files by their declarations (see Source): Go (.go), C and C++ (.c, .h,
// .cc, .cpp, .cxx, .hpp, .hh, .hxx), Java (.java), C# (.cs), JavaScript
// and TypeScript (.js, .jsx, .mjs, .cjs, .ts, .tsx, .mts, .cts), Rust
// (.rs), Swift (.swift), Kotlin (.kt, .kts), Python (.py, .pyi), shell
// (.sh, .bash, .zsh), Ruby (.rb) and YAML (.yaml, .yml); and plain text
// by paragraphs for any other.
func Of(name string, src []byte) *Doc {
	ext := strings.ToLower(path.Ext(name))
	if languages[ext] != nil {
		return Source(ext, src)
	}
	for _, f := range docFormats {
		if f.ext == ext {
			return f.read(src)
		}
	}
	return Text(src)
}

// docFormats are the documents' extensions and the reader of each:
// Markdown and MDX, HTML, reStructuredText, AsciiDoc, plain text.
var docFormats = [...]struct {
	ext  string
	read func([]byte) *Doc
}{
	{".md", Markdown}, {".mdx", Markdown}, {".markdown", Markdown},
	{".html", HTML}, {".htm", HTML},
	{".rst", RST},
	{".adoc", AsciiDoc}, {".asciidoc", AsciiDoc}, {".asc", AsciiDoc},
	{".txt", Text},
}

// DocExtensions are the extensions of documents, in lower case with the
// dot: Markdown and MDX (.md, .mdx, .markdown), HTML (.html, .htm),
// reStructuredText (.rst), AsciiDoc (.adoc, .asciidoc, .asc), the
// formats Of reads by their structure, and plain text (.txt). Docs
// search indexes them by default, llms.txt lists them (IsDoc).
func DocExtensions() []string {
	out := make([]string, len(docFormats))
	for i, f := range docFormats {
		out[i] = f.ext
	}
	return out
}

// IsDoc reports whether the file name is a document by its extension (in
// any case; see DocExtensions). Source files and data are not.
func IsDoc(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, f := range docFormats {
		if f.ext == ext {
			return true
		}
	}
	return false
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
