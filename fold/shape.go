package fold

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/folio-mcp/folio/internal/jsonvalue"
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

// scan reads the JSON value at p, checking its syntax as parse does, and
// merges it into s without building it; below depth levels, containers give
// only their lengths. level is how deep p is nested; keys interns object
// keys across the answer. p must be in check mode.
func (s *summary) scan(p *jsonvalue.Scanner, depth, level int, keys jsonvalue.KeyCache) error {
	d, at := p.Data(), p.Pos()
	if at >= len(d) {
		return p.Fail("a value")
	}
	switch c := d[at]; {
	case c == '[':
		if depth <= 1 {
			n, err := p.Count(level)
			s.array().add(n)
			return err
		}
		a := s.array()
		n, err := p.Each(level, ']', func() error {
			if a.items == nil {
				a.items = &summary{}
			}
			return a.items.scan(p, depth-1, level+1, keys)
		})
		a.add(n)
		return err
	case c == '{':
		if s.obj == nil {
			s.obj = &objectSummary{members: map[string]*memberSummary{}}
		}
		o := s.obj
		o.n++
		if depth <= 1 {
			return p.Value(level)
		}
		_, err := p.Each(level, '}', func() error {
			raw, err := p.MemberKey()
			if err != nil {
				return err
			}
			m := o.known(raw)
			if m == nil {
				k, err := keys.Key(raw)
				if err != nil {
					return err
				}
				m = o.member(k)
			}
			if m == nil {
				return p.Value(level + 1)
			}
			m.seen++
			return m.scan(p, depth-1, level+1, keys)
		})
		return err
	case c == '"':
		if err := p.ScanString(); err != nil {
			return err
		}
		if s.str == nil {
			s.str = &lengths{}
		}
		s.str.add(charCount(d[at:p.Pos()]))
		return nil
	case c == 'n':
		s.null++
	case c == 't', c == 'f':
		s.boolean++
	default:
		s.number++
	}
	return p.Value(level)
}

func (s *summary) array() *arraySummary {
	if s.arr == nil {
		s.arr = &arraySummary{}
	}
	return s.arr
}

// known is the summary of the member whose key is the JSON string raw,
// when raw has no escape and the object has met the key already: the
// common case, found without decoding the key. (A key met before is valid
// UTF-8, so raw that finds it is the key itself.)
func (o *objectSummary) known(raw []byte) *memberSummary {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		return nil
	}
	return o.members[string(body)]
}

// member is the summary of key k, or nil past the keys a shape names
// (then k is counted among the others).
func (o *objectSummary) member(k string) *memberSummary {
	if m := o.members[k]; m != nil {
		return m
	}
	if len(o.keys) == shapeKeys {
		if o.other == nil {
			o.other = map[string]struct{}{}
		}
		o.other[k] = struct{}{}
		return nil
	}
	m := &memberSummary{}
	o.members[k] = m
	o.keys = append(o.keys, k)
	return m
}

// charCount is the number of characters of the JSON string d.
func charCount(d []byte) int {
	body := d[1 : len(d)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return utf8.RuneCount(body)
	}
	s, _ := jsonvalue.DecodeString(d)
	return utf8.RuneCountInString(s)
}

// summarize checks that d is one JSON value, as parse does, and
// summarizes it, reading it once. Its render is the shape of d: its type,
// the lengths of lists and strings (in characters), the keys of objects,
// and the merged shape of the items of each list, down to depth levels.
// Values of several types at one place are given as {"any_of":[…]}; a key
// missing from some of the objects at one place is marked "optional"; a key
// repeated in one object counts each time.
func summarize(d []byte, depth int) (*summary, error) {
	p := jsonvalue.NewScanner(d, false)
	s := &summary{}
	p.Space()
	if err := s.scan(p, depth, 0, jsonvalue.KeyCache{}); err != nil {
		return nil, fmt.Errorf("%w: %v", jsonvalue.ErrSyntax, err)
	}
	p.Space()
	if p.Pos() != len(d) {
		return nil, fmt.Errorf("%w: more than one value (at byte %d)", jsonvalue.ErrSyntax, p.Pos())
	}
	return s, nil
}

// render gives the shape of the summary, described down to depth levels,
// which may be fewer than it was made with.
func (s *summary) render(depth int) any {
	var kinds []any
	if s.null > 0 {
		kinds = append(kinds, jsonvalue.Obj("type", "null"))
	}
	if s.boolean > 0 {
		kinds = append(kinds, jsonvalue.Obj("type", "boolean"))
	}
	if s.number > 0 {
		kinds = append(kinds, jsonvalue.Obj("type", "number"))
	}
	if s.str != nil {
		kinds = append(kinds, withLengths(jsonvalue.Obj("type", "string"), s.str))
	}
	if s.arr != nil {
		a := withLengths(jsonvalue.Obj("type", "array"), &s.arr.lengths)
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
		return jsonvalue.Obj()
	case 1:
		return kinds[0]
	}
	return jsonvalue.Obj("any_of", kinds)
}

func withLengths(o *jsonvalue.Object, l *lengths) *jsonvalue.Object {
	if l.min == l.max {
		o.Keys = append(o.Keys, "length")
		o.Values = append(o.Values, l.min)
		return o
	}
	o.Keys = append(o.Keys, "min_length", "max_length")
	o.Values = append(o.Values, l.min, l.max)
	return o
}

func (o *objectSummary) render(depth int) *jsonvalue.Object {
	out := jsonvalue.Obj("type", "object")
	if depth <= 1 || len(o.keys) == 0 && len(o.other) == 0 {
		return out
	}
	keys := &jsonvalue.Object{}
	for _, k := range o.keys {
		m := o.members[k]
		r := m.render(depth - 1).(*jsonvalue.Object)
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
