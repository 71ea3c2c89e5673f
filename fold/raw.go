package fold

import (
	"bytes"
	"fmt"
	"strconv"
)

// A kept answer is valid JSON (Parse checked it before it was kept, and
// GCM authenticates it), so a query walks its bytes to the value it asks
// for, with the parser in check mode, without building the rest.

// span is where a value lies in the answer's bytes; key is its key when it
// is an object's member.
type span struct {
	key        string
	start, end int
}

// elements returns the items of the array, or the members of the object,
// that starts at d[0]. Members are unique by key (see uniqueKeys), as Parse
// reads them.
func elements(d []byte) ([]span, error) {
	p := &parser{data: d, check: true, trusted: true}
	object := d[0] == '{'
	closer := byte(']')
	if object {
		closer = '}'
	}
	var out []span
	_, err := p.each(0, closer, func() error {
		var key string
		if object {
			raw, err := p.memberKey()
			if err != nil {
				return err
			}
			if key, err = (&parser{data: raw}).string(); err != nil {
				return err
			}
		}
		start := p.pos
		_, err := p.value(1)
		out = append(out, span{key: key, start: start, end: p.pos})
		return err
	})
	if err != nil {
		return nil, err
	}
	if object {
		if pick := uniqueKeys(len(out), func(i int) string { return out[i].key }); pick != nil {
			kept := make([]span, len(pick))
			for j, i := range pick {
				kept[j] = out[i]
			}
			out = kept
		}
	}
	return out, nil
}

// uniqueKeys is JSON's rule for a key that repeats in an object, as
// encoding/json reads it: the last value wins, at the place of the first.
// Given the keys of an object's n members in order, it returns nil when no
// key repeats, and otherwise, for each member kept, the index of the
// member whose value it takes.
func uniqueKeys(n int, key func(int) string) []int {
	if n <= 16 {
		repeated := false
		for i := 1; i < n && !repeated; i++ {
			for j := range i {
				if key(j) == key(i) {
					repeated = true
					break
				}
			}
		}
		if !repeated {
			return nil
		}
	}
	pick := make([]int, 0, n)
	index := make(map[string]int, n)
	for i := range n {
		if j, ok := index[key(i)]; ok {
			pick[j] = i
		} else {
			index[key(i)] = len(pick)
			pick = append(pick, i)
		}
	}
	if len(pick) == n {
		return nil
	}
	return pick
}

// trim cuts the white space around the one JSON value in d.
func trim(d []byte) []byte {
	p := parser{data: d}
	p.space()
	return bytes.TrimRight(d[p.pos:], " \t\r\n")
}

// find follows segs from the one JSON value in d and returns the bytes of
// the value they name. A segment names a key of an object or, in decimal,
// an index of a list.
func find(d []byte, segs []string) ([]byte, error) {
	d = trim(d)
	for i, s := range segs {
		at := pointer(segs[:i])
		switch d[0] {
		case '{':
			members, err := elements(d)
			if err != nil {
				return nil, err
			}
			j := 0
			for j < len(members) && members[j].key != s {
				j++
			}
			if j == len(members) {
				return nil, fmt.Errorf("the object at %s has no key %q; its keys: %s", at, s, keyList(spanKeys(members)))
			}
			d = d[members[j].start:members[j].end]
		case '[':
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || strconv.Itoa(n) != s {
				return nil, fmt.Errorf("the value at %s is a list: %q is not an index", at, s)
			}
			items, err := elements(d)
			if err != nil {
				return nil, err
			}
			if n >= len(items) {
				return nil, fmt.Errorf("index %d is past the end of the list at %s (length %d)", n, at, len(items))
			}
			d = d[items[n].start:items[n].end]
		default:
			return nil, fmt.Errorf("the value at %s is a %s: it has nothing named %q", at, rawTypeName(d), s)
		}
	}
	return d, nil
}

func rawTypeName(d []byte) string {
	switch d[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "list"
	case '{':
		return "object"
	}
	return "number"
}

func spanKeys(members []span) []string {
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.key
	}
	return keys
}

// keyCache interns the object keys of one answer.
type keyCache map[string]string

// key decodes the JSON string d, giving the same string for the same bytes.
func (c keyCache) key(d []byte) (string, error) {
	if k, ok := c[string(d)]; ok {
		return k, nil
	}
	k, err := (&parser{data: d}).string()
	if err == nil && len(c) < 4096 {
		c[string(d)] = k
	}
	return k, err
}
