package pager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// Decode parses the page as written in format f.
func (p Page) Decode(f Format) (Decoded, error) {
	if f == Text {
		return DecodeText(p.JSON, p.End)
	}
	return Decode(p.JSON)
}

// DecodeText parses a page in the Text format: contentBytes is the length
// of its content (the _meta the server sends with it says), which the
// footer line follows, after a newline when the content does not end with
// one.
func DecodeText(b []byte, contentBytes int) (Decoded, error) {
	var d Decoded
	if contentBytes < 0 || contentBytes > len(b) {
		return d, fmt.Errorf("content length %d is outside the page's %d bytes", contentBytes, len(b))
	}
	content, footer := b[:contentBytes], b[contentBytes:]
	if len(content) > 0 && content[len(content)-1] != '\n' {
		var ok bool
		if footer, ok = bytes.CutPrefix(footer, []byte("\n")); !ok {
			return d, errors.New("no newline between the content and the footer")
		}
	}
	if !utf8.Valid(content) {
		return d, errors.New("the content is not valid UTF-8")
	}
	d.Content = string(content)
	rest, ok := bytes.CutPrefix(footer, []byte(footerPrefix))
	fields := strings.Split(string(rest), " ")
	if !ok || len(fields) != 4 {
		return d, fmt.Errorf("not a footer line: %q", footer)
	}
	d.URI = fields[0]
	for i, key := range []string{"version=", "has_more=", "next_cursor="} {
		v, ok := strings.CutPrefix(fields[i+1], key)
		if !ok || v == "" {
			return d, fmt.Errorf("footer: want %s, found %q", key, fields[i+1])
		}
		switch key {
		case "version=":
			d.Version = v
		case "has_more=":
			if v != "true" && v != "false" {
				return d, fmt.Errorf("footer: has_more=%s", v)
			}
			d.HasMore = v == "true"
		case "next_cursor=":
			if v != "null" {
				d.NextCursor = &v
			}
		}
	}
	if d.HasMore == (d.NextCursor == nil) {
		return d, fmt.Errorf("has_more %v with next_cursor %v", d.HasMore, d.NextCursor)
	}
	return d, nil
}
