package pager

import (
	"strings"

	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// Format names how a page is written. Each format is one type in a file
// of its own (format_json.go, format_text.go, format_raw.go) that knows
// its name, how it writes a page around the content and decodes one, and
// what an answer carrying one of its pages says in _meta; it registers
// itself under its Format.
type Format int

// pageFormat is what a page format does.
type pageFormat interface {
	// name is the format's name, as read's format argument and the
	// flags take it; summary says in a few words what a page of it is,
	// for the flags' help.
	name() string
	summary() string
	// paged reports whether its pages carry where they come from and
	// how to go on (a cursor and a version): the read tool's formats.
	// The others are chunks, the command line's (ParseChunkFormat).
	paged() bool
	// appendHead appends what comes before a page's content.
	appendHead(b []byte, uri string) []byte
	// appendContent appends content as the format writes it.
	appendContent(b, content []byte) []byte
	// appendTail appends what follows the content of the page of f that
	// ends at end, whose next_cursor is cursor (empty on the last page).
	appendTail(b []byte, f *fitter, end int, cursor string) []byte
	// decode parses p, a page in this format.
	decode(p Page) (Decoded, error)
	// meta adds to m, an answer's _meta, what the answer's text does not
	// say of p (see package wire's keys).
	meta(p Page, m map[string]any)
	// fromMeta is the page an answer in this format carries: its text
	// and its _meta, as meta wrote it.
	fromMeta(text []byte, m map[string]any) (Page, error)
}

// formats are the registered formats, by Format.
var formats []pageFormat

// register makes pf the format f; each format's file calls it from init.
func register(f Format, pf pageFormat) {
	if int(f) >= len(formats) {
		formats = append(formats, make([]pageFormat, int(f)+1-len(formats))...)
	}
	if formats[f] != nil {
		panic("pager: format registered twice: " + pf.name())
	}
	formats[f] = pf
}

// FormatNames lists the names ParseFormat accepts, in Format order: the
// formats of pages, which carry where they come from and how to go on.
func FormatNames() []string {
	var names []string
	for _, pf := range formats {
		if pf.paged() {
			names = append(names, pf.name())
		}
	}
	return names
}

// FormatsHelp names the page formats, each with what its page is, for a
// flag's help: "json (…) or text (…)".
func FormatsHelp() string {
	var each []string
	for _, pf := range formats {
		if pf.paged() {
			each = append(each, pf.name()+" ("+pf.summary()+")")
		}
	}
	last := len(each) - 1
	if last == 0 {
		return each[0]
	}
	return strings.Join(each[:last], ", ") + " or " + each[last]
}

// String is the format's name.
func (f Format) String() string { return formats[f].name() }

// ParseFormat is the format of a name in FormatNames; any other name is
// an invalid_argument *toolerr.Error.
func ParseFormat(name string) (Format, error) {
	return parseFormat(name, false)
}

// ParseChunkFormat is ParseFormat, and the formats of chunks too (raw).
func ParseChunkFormat(name string) (Format, error) {
	return parseFormat(name, true)
}

// parseFormat is the format named name: a page format, or with chunks any.
func parseFormat(name string, chunks bool) (Format, error) {
	var names []string
	for f, pf := range formats {
		if !pf.paged() && !chunks {
			continue
		}
		if pf.name() == name {
			return Format(f), nil
		}
		names = append(names, pf.name())
	}
	want := names[len(names)-1]
	if len(names) > 1 {
		want = strings.Join(names[:len(names)-1], ", ") + " or " + want
	}
	return JSON, toolerr.Invalid("unknown page format %q (want %s)", name, want)
}

// FormatOr is the format named, or def when the name is empty (a read
// that names no format); an unknown name is ParseFormat's error.
func FormatOr(name string, def Format) (Format, error) {
	if name == "" {
		return def, nil
	}
	return ParseFormat(name)
}

// Decode parses the page as written in its format (see each format's).
func (p Page) Decode() (Decoded, error) {
	return formats[p.Format].decode(p)
}

// Meta adds to m, the _meta of an answer that carries p, the page's
// format and what the page's text does not say (for programs; a model
// reads the text): PageOf reads it back.
func (p Page) Meta(m map[string]any) {
	m[wire.MetaFormat] = p.Format.String()
	formats[p.Format].meta(p, m)
}

// PageOf is the page an answer carries: its text and its _meta, where
// Page.Meta said the page's format and what the text leaves out. An
// answer whose _meta names no format comes from a server before
// folio/format: a text page when its _meta gives the content's length
// (as those servers gave it only with text pages), else a JSON page (the
// page contract's object holds all).
func PageOf(text []byte, m map[string]any) (Page, error) {
	f := JSON
	if _, ok := m[wire.MetaContentBytes]; ok {
		f = Text
	}
	if v, ok := m[wire.MetaFormat]; ok {
		name, _ := v.(string)
		var err error
		if f, err = ParseChunkFormat(name); err != nil {
			return Page{JSON: text}, err
		}
	}
	p, err := formats[f].fromMeta(text, m)
	p.Format = f
	return p, err
}
