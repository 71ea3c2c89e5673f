package fold

import "errors"

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
	d = trim(d)
	if depth > previewDepth {
		switch d[0] {
		case '[':
			return []any{}
		case '{':
			return &object{Keys: []string{}, Values: []any{}}
		}
	}
	switch d[0] {
	case '"':
		s, _ := (&parser{data: d}).string()
		return cutString(s, chars)
	case '[':
		out := []any{}
		p := &parser{data: d, check: true, trusted: true}
		p.each(0, ']', func() error {
			if len(out) == items {
				return errEnough
			}
			start := p.pos
			if _, err := p.value(1); err != nil {
				return err
			}
			out = append(out, previewAt(d[start:p.pos], items, chars, members, depth+1))
			return nil
		})
		return out
	case '{':
		elems, _ := elements(d)
		n := len(elems)
		if members > 0 {
			n = min(n, members)
		}
		out := &object{Keys: make([]string, n), Values: make([]any, n)}
		for i := range n {
			out.Keys[i] = elems[i].key
			out.Values[i] = previewAt(d[elems[i].start:elems[i].end], items, chars, members, depth+1)
		}
		return out
	}
	v, _ := parse(d)
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
