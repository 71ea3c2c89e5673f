package fold

import (
	"encoding/json"
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

// add merges v into s; below depth levels, containers give only their
// lengths.
func (s *summary) add(v any, depth int) {
	switch v := v.(type) {
	case nil:
		s.null++
	case bool:
		s.boolean++
	case json.Number:
		s.number++
	case string:
		if s.str == nil {
			s.str = &lengths{}
		}
		s.str.add(utf8.RuneCountInString(v))
	case []any:
		if s.arr == nil {
			s.arr = &arraySummary{}
		}
		s.arr.add(len(v))
		if depth > 1 {
			if s.arr.items == nil && len(v) > 0 {
				s.arr.items = &summary{}
			}
			for _, item := range v {
				s.arr.items.add(item, depth-1)
			}
		}
	case *Object:
		if s.obj == nil {
			s.obj = &objectSummary{members: map[string]*memberSummary{}}
		}
		o := s.obj
		o.n++
		if depth <= 1 {
			return
		}
		for i, k := range v.Keys {
			m := o.members[k]
			if m == nil {
				if len(o.keys) == shapeKeys {
					if o.other == nil {
						o.other = map[string]struct{}{}
					}
					o.other[k] = struct{}{}
					continue
				}
				m = &memberSummary{}
				o.members[k] = m
				o.keys = append(o.keys, k)
			}
			m.seen++
			m.add(v.Values[i], depth-1)
		}
	}
}

// Shape describes the structure of v: its type, the lengths of lists and
// strings (in characters), the keys of objects, and the merged shape of the
// items of each list, down to depth levels. Values of several types at one
// place are given as {"any_of":[…]}; a key missing from some of the objects
// at one place is marked "optional".
func Shape(v any, depth int) any {
	var s summary
	s.add(v, depth)
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
