package docsearch

import (
	"strings"

	"github.com/folio-mcp/folio/outline"
)

// A Unit is a passage a search may answer with: a block of a document
// (a paragraph, a list, a table with its header, a code block), where it
// is, and the headings it falls under.
type Unit struct {
	outline.Span
	Kind outline.Kind
	// Headings are the titles of the sections that hold the unit, the
	// outermost first.
	Headings []string
	// Section is the index of the innermost section that holds the unit
	// in its document's outline, -1 before the first heading.
	Section int
	// Text is what the unit says, its markup dropped: what is indexed.
	Text string
}

// Units are the passages of the document at name, read by outline.Of.
// Headings and front matter are not units (their words go with the units
// under them).
func Units(name string, src []byte) []Unit {
	return unitsOf(outline.Of(name, src))
}

// unitsOf are the units of the document d (see Units); the units of one
// section share its headings.
func unitsOf(d *outline.Doc) []Unit {
	var out []Unit
	paths := map[int][]string{}
	for _, b := range d.Blocks {
		if b.Kind == outline.Heading || b.Kind == outline.Meta || strings.TrimSpace(b.Text) == "" {
			continue
		}
		headings, ok := paths[b.Section]
		if !ok && b.Section >= 0 {
			headings = d.Path(b.Section)
			paths[b.Section] = headings
		}
		out = append(out, Unit{Span: b.Span, Kind: b.Kind, Headings: headings, Section: b.Section, Text: b.Text})
	}
	return out
}
