package fold

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
)

// A kept answer is valid JSON (parse checked it before it was kept, and
// GCM authenticates it), so a query walks its bytes to the value it asks
// for, with the parser in check mode, without building the rest.

// span is where a value lies in the answer's bytes; key is its key when it
// is an object's member.
type span struct {
	key        string
	start, end int
}

// elements returns the items of the array, or the members of the object,
// that starts at d[0]. Members are unique by key (see uniqueKeys), as parse
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
// an index of a list. It reads d once, front to back (an object's later
// members too: the last of a repeated key wins), so its cost is linear in
// d however deep segs go; it stops when ctx ends.
func find(ctx context.Context, d []byte, segs []string) ([]byte, error) {
	f := finder{ctx: ctx, segs: segs, p: parser{data: trim(d), check: true, trusted: true}}
	return f.match(0)
}

// finder is one find: p reads the answer, segs is the path.
type finder struct {
	ctx  context.Context
	segs []string
	p    parser
}

// match reads the value at p.pos, which segs[:level] lead to, and returns
// the bytes that segs[level:] name in it. Whatever it returns, p.pos is
// then past the value, so that the caller reads on from there.
func (f *finder) match(level int) ([]byte, error) {
	p := &f.p
	start := p.pos
	if level == len(f.segs) {
		p.skip()
		return p.data[start:p.pos], nil
	}
	if err := f.ctx.Err(); err != nil {
		return nil, err
	}
	seg := f.segs[level]
	var found []byte
	var err error
	matched := false
	switch p.data[p.pos] {
	case '{':
		_, serr := p.each(level, '}', func() error {
			raw, kerr := p.memberKey()
			if kerr != nil {
				return kerr
			}
			if key, kerr := (&parser{data: raw}).string(); kerr == nil && key == seg {
				matched = true
				found, err = f.match(level + 1)
				return nil
			}
			p.skip()
			return nil
		})
		if serr != nil {
			return nil, serr
		}
		if !matched {
			members, _ := elements(p.data[start:p.pos])
			return nil, f.fail(level, "the object at %s has no key %q; its keys: %s", seg, keyList(spanKeys(members)))
		}
		return found, err
	case '[':
		n, aerr := strconv.Atoi(seg)
		if aerr != nil || n < 0 || strconv.Itoa(n) != seg {
			p.skip()
			return nil, f.fail(level, "the value at %s is a list: %q is not an index", seg)
		}
		i := 0
		length, serr := p.each(level, ']', func() error {
			if i == n {
				matched = true
				found, err = f.match(level + 1)
			} else {
				p.skip()
			}
			i++
			return nil
		})
		if serr != nil {
			return nil, serr
		}
		if !matched {
			return nil, f.fail(level, "index %[2]d is past the end of the list at %[1]s (length %[3]d)", n, length)
		}
		return found, err
	}
	p.skip()
	return nil, f.fail(level, "the value at %s is a %s: it has nothing named %q", rawTypeName(p.data[start:]), seg)
}

// fail is the error of a path that stops at segs[:level]; format's first
// verb is that place. The message is written only when read: a path may
// fail many times on the way (in the values of repeated keys), and the
// place is as long as the path.
func (f *finder) fail(level int, format string, args ...any) error {
	return &findError{segs: f.segs[:level], format: format, args: args}
}

type findError struct {
	segs   []string
	format string
	args   []any
}

func (e *findError) Error() string {
	return fmt.Sprintf(e.format, append([]any{pointer(e.segs)}, e.args...)...)
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
