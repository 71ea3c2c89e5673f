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

// Decode parses the page as written in its format. A page in the Text
// format must hold End bytes of content.
func (p Page) Decode() (Decoded, error) {
	if p.Format != Text {
		return Decode(p.JSON)
	}
	d, err := DecodeText(p.JSON)
	if err == nil && len(d.Content) != p.End {
		err = fmt.Errorf("the content is %d bytes, not the %d given", len(d.Content), p.End)
	}
	return d, err
}

// DecodeText parses a page in the Text format: the content is all that
// comes before the last newline that starts a footer line, which holds no
// newline itself.
func DecodeText(b []byte) (Decoded, error) {
	var d Decoded
	at := bytes.LastIndex(b, []byte(footerPrefix))
	if at < 0 {
		return d, errors.New("no [folio] footer line")
	}
	content, rest := b[:at], b[at+len(footerPrefix):]
	if !utf8.Valid(content) {
		return d, errors.New("the content is not valid UTF-8")
	}
	d.Content = string(content)
	fields := strings.Split(string(rest), " ")
	if len(fields) != 4 {
		return d, fmt.Errorf("not a footer line: %q", rest)
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
