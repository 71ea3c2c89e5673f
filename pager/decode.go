package pager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decoded is a page as a client reads it.
type Decoded struct {
	URI        string
	Content    string
	Version    string
	HasMore    bool
	NextCursor *string // nil on the last page
	// FirstLine and LastLine are the lines of a Text page read from a
	// line, as its footer says; 0 otherwise.
	FirstLine, LastLine int
}

// pageKeys are the page's keys, in their order.
var pageKeys = [...]string{"uri", "content", "version", "has_more", "next_cursor"}

// Decode parses a serialized page and checks its form: one JSON object with
// exactly the page's keys in their order, next_cursor null exactly when
// has_more is false.
func Decode(b []byte) (Decoded, error) {
	var d Decoded
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return d, errors.New("a page is a JSON object")
	}
	for _, key := range pageKeys {
		tok, err := dec.Token()
		if err != nil || tok != key {
			return d, fmt.Errorf("want key %q, found %v", key, tok)
		}
		var dst any
		switch key {
		case "uri":
			dst = &d.URI
		case "content":
			dst = &d.Content
		case "version":
			dst = &d.Version
		case "has_more":
			dst = &d.HasMore
		case "next_cursor":
			dst = &d.NextCursor
		}
		if err := dec.Decode(dst); err != nil {
			return d, fmt.Errorf("%s: %w", key, err)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return d, fmt.Errorf("unexpected %v after next_cursor", tok)
	}
	if _, err := dec.Token(); err != io.EOF {
		return d, errors.New("text after the page")
	}
	if d.HasMore == (d.NextCursor == nil) || d.NextCursor != nil && *d.NextCursor == "" {
		return d, fmt.Errorf("has_more %v with next_cursor %v", d.HasMore, d.NextCursor)
	}
	return d, nil
}

// Decode parses the page as written in its format. A page in the Text
// format must hold End bytes of content; its URI and version are the
// page's own fields (its footer may hold the version, which must agree).
func (p Page) Decode() (Decoded, error) {
	if p.Format != Text {
		return Decode(p.JSON)
	}
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
