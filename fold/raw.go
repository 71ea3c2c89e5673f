package fold

import (
	"bytes"
	"fmt"
	"strconv"
)

// A kept answer is valid JSON (Parse checked it before it was kept, and
// GCM authenticates it), so a query walks its bytes to the value it asks
// for without building the rest. These scanners stay in bounds on any
// input, but only give meaningful spans on valid JSON.

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at d[i] == '"'.
func skipString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return len(d)
}

// skipValue returns the index after the value that starts at d[i].
func skipValue(d []byte, i int) int {
	if i >= len(d) {
		return len(d)
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i = skipString(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(d)
	}
	for i < len(d) && d[i] != ',' && d[i] != ']' && d[i] != '}' && d[i] != ' ' && d[i] != '\t' && d[i] != '\n' && d[i] != '\r' {
		i++
	}
	return i
}

// span is where a value lies in the answer's bytes; key is its key when it
// is an object's member.
type span struct {
	key        string
	start, end int
}

// elements returns the items of the array, or the members of the object,
// that starts at d[0]. Members are unique by key: when a key repeats, the
// last value wins at the place of the first, as Parse reads it.
func elements(d []byte) ([]span, error) {
	object := d[0] == '{'
	var out []span
	var index map[string]int
	i := skipSpace(d, 1)
	if i < len(d) && (d[i] == ']' || d[i] == '}') {
		return out, nil
	}
	for i < len(d) {
		var key string
		if object {
			end := skipString(d, i)
			p := parser{data: d[:end], pos: i}
			k, err := p.string()
			if err != nil {
				return nil, err
			}
			key = k
			i = skipSpace(d, end)
			i = skipSpace(d, i+1) // past the colon
		}
		end := skipValue(d, i)
		s := span{key: key, start: i, end: end}
		switch {
		case !object:
			out = append(out, s)
		case index != nil || len(out) >= 16:
			if index == nil {
				index = make(map[string]int, 2*len(out))
				for j, m := range out {
					index[m.key] = j
				}
			}
			if j, ok := index[key]; ok {
				out[j] = s
			} else {
				index[key] = len(out)
				out = append(out, s)
			}
		default:
			j := 0
			for j < len(out) && out[j].key != key {
				j++
			}
			if j < len(out) {
				out[j] = s
			} else {
				out = append(out, s)
			}
		}
		i = skipSpace(d, end)
		if i >= len(d) || d[i] != ',' {
			break
		}
		i = skipSpace(d, i+1)
	}
	return out, nil
}

// trim cuts the white space around the one JSON value in d.
func trim(d []byte) []byte {
	return bytes.TrimRight(d[skipSpace(d, 0):], " \t\r\n")
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
