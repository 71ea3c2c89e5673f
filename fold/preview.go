package fold

import (
	"errors"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// previewDepth is how deep a preview shows a value: a list or an object
// nested deeper comes out empty (the shape and result_query tell the
// rest). It also keeps a preview's cost linear in the answer: each level
// scans what it holds once.
const previewDepth = 16

// preview returns the JSON value d (valid JSON) with each list cut to its
// first items items and each string to its first chars characters. When
// members > 0, each object also keeps only its first members members.
// Lists and objects nested deeper than previewDepth come out empty. It
// reads no further into a list than the items it keeps.
func preview(d []byte, items, chars, members int) any {
	return previewAt(d, items, chars, members, 1)
}

func previewAt(d []byte, items, chars, members, depth int) any {
	d = jsonvalue.Trim(d)
	if depth > previewDepth {
		switch d[0] {
		case '[':
			return []any{}
		case '{':
			return &jsonvalue.Object{Keys: []string{}, Values: []any{}}
		}
	}
	switch d[0] {
	case '"':
		s, _ := jsonvalue.DecodeString(d)
		return cutString(s, chars)
	case '[':
		out := []any{}
		p := jsonvalue.NewScanner(d, true)
		p.Each(0, ']', func() error {
			if len(out) == items {
				return errEnough
			}
			start := p.Pos()
			if err := p.Value(1); err != nil {
				return err
			}
			out = append(out, previewAt(d[start:p.Pos()], items, chars, members, depth+1))
			return nil
		})
		return out
	case '{':
		elems, _ := jsonvalue.Elements(d)
		n := len(elems)
		if members > 0 {
			n = min(n, members)
		}
		out := &jsonvalue.Object{Keys: make([]string, n), Values: make([]any, n)}
		for i := range n {
			out.Keys[i] = elems[i].Key
			out.Values[i] = previewAt(d[elems[i].Start:elems[i].End], items, chars, members, depth+1)
		}
		return out
	}
	v, _ := jsonvalue.Parse(d)
	return v
}

// errEnough stops a scan that has what it needs.
var errEnough = errors.New("enough")

// cutString returns the first n characters of s.
func cutString(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
