package fold

import (
	"bytes"
	"unicode/utf8"
)

// Bounds of a shape.
const (
	// shapeDepth is how deep a shape describes a value at most.
	shapeDepth = 8
	// shapeKeys is how many keys of one object a shape names; the count of
	// the others is given as other_keys.
	shapeKeys = 64
)

// summary merges the values seen at one place of a value: the root, the
// members under one key, or the items of a list.
type summary struct {
	null, boolean, number int
	str                   *lengths
	arr                   *arraySummary
	obj                   *objectSummary
}

type lengths struct{ n, min, max int }

func (l *lengths) add(n int) {
	if l.n == 0 || n < l.min {
		l.min = n
	}
	if l.n == 0 || n > l.max {
		l.max = n
	}
	l.n++
}

type arraySummary struct {
	lengths
	items *summary
}

type objectSummary struct {
	n       int // objects seen
	keys    []string
	members map[string]*memberSummary
	other   map[string]struct{}
}

type memberSummary struct {
	summary
	seen int // objects that have the key
}

// add merges the value whose bytes are d (valid JSON) into s; below depth
// levels, containers give only their lengths.
func (s *summary) add(d []byte, depth int, keys keyCache) {
	switch d[0] {
	case 'n':
		s.null++
	case 't', 'f':
		s.boolean++
	case '"':
		if s.str == nil {
			s.str = &lengths{}
		}
		s.str.add(charCount(d))
	case '[':
		items, _ := keys.elements(d)
		if s.arr == nil {
			s.arr = &arraySummary{}
		}
		s.arr.add(len(items))
		if depth > 1 {
			if s.arr.items == nil && len(items) > 0 {
				s.arr.items = &summary{}
			}
			for _, item := range items {
				s.arr.items.add(d[item.start:item.end], depth-1, keys)
			}
		}
	case '{':
		if s.obj == nil {
			s.obj = &objectSummary{members: map[string]*memberSummary{}}
		}
		o := s.obj
		o.n++
		if depth <= 1 {
			return
		}
		members, _ := keys.elements(d)
		for _, mem := range members {
			m := o.members[mem.key]
			if m == nil {
				if len(o.keys) == shapeKeys {
					if o.other == nil {
						o.other = map[string]struct{}{}
					}
					o.other[mem.key] = struct{}{}
					continue
				}
				m = &memberSummary{}
				o.members[mem.key] = m
				o.keys = append(o.keys, mem.key)
			}
			m.seen++
			m.add(d[mem.start:mem.end], depth-1, keys)
		}
	default:
		s.number++
	}
}

// charCount is the number of characters of the JSON string d.
func charCount(d []byte) int {
	body := d[1 : len(d)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return utf8.RuneCount(body)
	}
	s, _ := (&parser{data: d}).string()
	return utf8.RuneCountInString(s)
}

// Shape describes the structure of the JSON value d: its type, the lengths
// of lists and strings (in characters), the keys of objects, and the merged
// shape of the items of each list, down to depth levels. Values of several
// types at one place are given as {"any_of":[…]}; a key missing from some
// of the objects at one place is marked "optional". d must be valid JSON
// (see Valid).
func Shape(d []byte, depth int) any {
	var s summary
	s.add(trim(d), depth, keyCache{})
	return s.render(depth)
}

// render gives the shape of the summary, described down to depth levels,
// which may be fewer than it was made with.
func (s *summary) render(depth int) any {
	var kinds []any
	if s.null > 0 {
		kinds = append(kinds, obj("type", "null"))
	}
	if s.boolean > 0 {
		kinds = append(kinds, obj("type", "boolean"))
	}
	if s.number > 0 {
		kinds = append(kinds, obj("type", "number"))
	}
	if s.str != nil {
		kinds = append(kinds, withLengths(obj("type", "string"), s.str))
	}
	if s.arr != nil {
		a := withLengths(obj("type", "array"), &s.arr.lengths)
		if depth > 1 && s.arr.items != nil {
			a.Keys = append(a.Keys, "items")
			a.Values = append(a.Values, s.arr.items.render(depth-1))
		}
		kinds = append(kinds, a)
	}
	if s.obj != nil {
		kinds = append(kinds, s.obj.render(depth))
	}
	switch len(kinds) {
	case 0:
		return obj()
	case 1:
		return kinds[0]
	}
	return obj("any_of", kinds)
}

func withLengths(o *Object, l *lengths) *Object {
	if l.min == l.max {
		o.Keys = append(o.Keys, "length")
		o.Values = append(o.Values, l.min)
		return o
	}
	o.Keys = append(o.Keys, "min_length", "max_length")
	o.Values = append(o.Values, l.min, l.max)
	return o
}

func (o *objectSummary) render(depth int) *Object {
	out := obj("type", "object")
	if depth <= 1 || len(o.keys) == 0 && len(o.other) == 0 {
		return out
	}
	keys := &Object{}
	for _, k := range o.keys {
		m := o.members[k]
		r := m.render(depth - 1).(*Object)
		if m.seen < o.n {
			r.Keys = append(r.Keys, "optional")
			r.Values = append(r.Values, true)
		}
		keys.Keys = append(keys.Keys, k)
		keys.Values = append(keys.Values, r)
	}
	out.Keys = append(out.Keys, "keys")
	out.Values = append(out.Values, keys)
	if len(o.other) > 0 {
		out.Keys = append(out.Keys, "other_keys")
		out.Values = append(out.Values, len(o.other))
	}
	return out
}
