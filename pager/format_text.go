package pager

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/folio-mcp/folio/wire"
)

// Text is the content as it is, a newline, and one footer line with the
// next_cursor, or on the last page "end" and the version (see
// DecodeText). What the footer leaves out is in the answer's _meta.
const Text Format = 1

func init() { register(Text, textFormat{}) }

// textFormat writes the content itself and a footer line: what the model
// needs of the page, no more (the rest is in the answer's _meta).
type textFormat struct{}

func (textFormat) name() string { return "text" }

func (textFormat) summary() string { return "the content as it is, then a [folio] footer line" }

func (textFormat) paged() bool { return true }

func (textFormat) appendHead(b []byte, _ string) []byte { return b }

func (textFormat) appendContent(b, content []byte) []byte { return append(b, content...) }

// appendTail appends the newline and the footer line (see appendFooter).
func (textFormat) appendTail(b []byte, f *fitter, end int, cursor string) []byte {
	first, last := f.lines(end)
	return appendFooter(b, first, last, f.req.Version, cursor)
}

// appendFooter appends the newline and the footer line that end a page in
// the Text format: what the model needs of it, no more (the rest is in the
// result's _meta). A page started at a line says which lines it holds; a
// page with more names its next_cursor; the last page says "end" and the
// version of what was read.
func appendFooter(b []byte, first, last int, version, cursor string) []byte {
	b = append(b, footerPrefix...)
	if first > 0 {
		b = append(b, "lines "...)
		b = strconv.AppendInt(b, int64(first), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(last), 10)
		b = append(b, ' ')
	}
	if cursor == "" {
		b = append(b, "end version="...)
		return append(b, version...)
	}
	b = append(b, "next_cursor="...)
	return append(b, cursor...)
}

// footerPrefix ends the content of a page in the Text format and starts
// its footer line.
const footerPrefix = "\n" + wire.NotePrefix

// decode parses a text page: it must hold End bytes of content; its URI
// and version are the page's own fields (its footer may hold the version,
// which must agree).
func (textFormat) decode(p Page) (Decoded, error) {
	d, err := DecodeText(p.JSON)
	switch {
	case err != nil:
	case len(d.Content) != p.End:
		err = fmt.Errorf("the content is %d bytes, not the %d given", len(d.Content), p.End)
	case d.Version != "" && p.Version != "" && d.Version != p.Version:
		err = fmt.Errorf("the footer's version %s is not the page's %s", d.Version, p.Version)
	}
	d.URI = p.URI
	if d.Version == "" {
		d.Version = p.Version
	}
	return d, err
}

// meta gives what the footer leaves out, for programs: the URI, the
// version, has_more and next_cursor (null on the last page), and the
// length of the content (the footer follows it).
func (textFormat) meta(p Page, m map[string]any) {
	var next *string
	if p.HasMore {
		next = &p.NextCursor
	}
	m[wire.MetaURI], m[wire.MetaVersion], m[wire.MetaHasMore] = p.URI, p.Version, p.HasMore
	m[wire.MetaNextCursor], m[wire.MetaContentBytes] = next, p.End
}

// fromMeta is the text page an answer carries: its content's length, URI
// and version from _meta (the footer names neither the URI nor, but on
// the last page, the version).
func (textFormat) fromMeta(text []byte, m map[string]any) (Page, error) {
	p := Page{JSON: text}
	v := m[wire.MetaContentBytes]
	n, ok := v.(float64)
	if !ok || n < 0 || n > float64(len(text)) || n != float64(int(n)) {
		return p, fmt.Errorf("%s is %v", wire.MetaContentBytes, v)
	}
	p.End = int(n)
	p.URI, _ = m[wire.MetaURI].(string)
	p.Version, _ = m[wire.MetaVersion].(string)
	return p, nil
}

// DecodeText parses a page in the Text format: the content is all that
// comes before the last newline that starts a footer line, which holds no
// newline itself: "next_cursor=C" on a page with more, "end version=V" on
// the last. The URI is not in the text, nor the version of a page with
// more.
func DecodeText(b []byte) (Decoded, error) {
	var d Decoded
	at := bytes.LastIndex(b, []byte(footerPrefix))
	if at < 0 {
		return d, errors.New("no [folio] footer line")
	}
	content, rest := b[:at], string(b[at+len(footerPrefix):])
	if !utf8.Valid(content) {
		return d, errors.New("the content is not valid UTF-8")
	}
	d.Content = string(content)
	if after, ok := strings.CutPrefix(rest, "lines "); ok {
		// "lines A-B " of a page read from a line.
		r, more, _ := strings.Cut(after, " ")
		a, b, _ := strings.Cut(r, "-")
		first, last := lineNumber(a), lineNumber(b)
		if first < 1 || last < first {
			return d, fmt.Errorf("not a footer line: %q", rest)
		}
		d.FirstLine, d.LastLine, rest = first, last, more
	}
	if v, ok := strings.CutPrefix(rest, "next_cursor="); ok && v != "" && !strings.ContainsAny(v, " \n") {
		d.HasMore, d.NextCursor = true, &v
		return d, nil
	}
	if v, ok := strings.CutPrefix(rest, "end version="); ok && v != "" && !strings.ContainsAny(v, " \n") {
		d.Version = v
		return d, nil
	}
	return d, fmt.Errorf("not a footer line: %q", rest)
}

// lineNumber is s as a line number written in a footer (decimal, no sign,
// no leading zero), or 0.
func lineNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0
	}
	return n
}
