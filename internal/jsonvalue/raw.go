package jsonvalue

import "bytes"

// Member is where an item or a member lies in the bytes of its array or
// object; Key is the member's key.
type Member struct {
	Key        string
	Start, End int
}

// Elements returns the items of the array, or the members of the object,
// that starts at d[0] (valid JSON: it is not checked). Members are unique
// by key (see uniqueKeys), as Parse reads them.
func Elements(d []byte) ([]Member, error) {
	p := NewScanner(d, true)
	object := d[0] == '{'
	closer := byte(']')
	if object {
		closer = '}'
	}
	var out []Member
	_, err := p.Each(0, closer, func() error {
		var key string
		if object {
			raw, err := p.MemberKey()
			if err != nil {
				return err
			}
			if key, err = DecodeString(raw); err != nil {
				return err
			}
		}
		start := p.pos
		_, err := p.value(1)
		out = append(out, Member{Key: key, Start: start, End: p.pos})
		return err
	})
	if err != nil {
		return nil, err
	}
	if object {
		if pick := uniqueKeys(len(out), func(i int) string { return out[i].Key }); pick != nil {
			kept := make([]Member, len(pick))
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

// Trim cuts the white space around the one JSON value in d.
func Trim(d []byte) []byte {
	p := Scanner{data: d}
	p.Space()
	return bytes.TrimRight(d[p.pos:], " \t\r\n")
}

// TypeName is the name of the type of the JSON value at d[0], as a model
// reads it: string, boolean, null, list, object or number.
func TypeName(d []byte) string {
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

// KeyCache interns the object keys of one answer.
type KeyCache map[string]string

// Key decodes the JSON string d, giving the same string for the same bytes.
func (c KeyCache) Key(d []byte) (string, error) {
	if k, ok := c[string(d)]; ok {
		return k, nil
	}
	k, err := DecodeString(d)
	if err == nil && len(c) < 4096 {
		c[string(d)] = k
	}
	return k, err
}
