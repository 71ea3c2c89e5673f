package pager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
