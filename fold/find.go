package fold

import (
	"context"
	"fmt"
	"strconv"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// A kept answer is valid JSON (Parse checked it before it was kept, and
// GCM authenticates it), so a query walks its bytes to the value it asks
// for, with a trusting scanner, without building the rest.

// find follows segs from the one JSON value in d and returns the bytes of
// the value they name. A segment names a key of an object or, in decimal,
// an index of a list. It reads d once, front to back (an object's later
// members too: the last of a repeated key wins), so its cost is linear in
// d however deep segs go; it stops when ctx ends.
func find(ctx context.Context, d []byte, segs []string) ([]byte, error) {
	f := finder{ctx: ctx, segs: segs, p: *jsonvalue.NewScanner(jsonvalue.Trim(d), true)}
	return f.match(0)
}

// finder is one find: p reads the answer, segs is the path.
type finder struct {
	ctx  context.Context
	segs []string
	p    jsonvalue.Scanner
}

// match reads the value at the scanner's position, which segs[:level] lead to, and returns
// the bytes that segs[level:] name in it. Whatever it returns, the scanner is
// then past the value, so that the caller reads on from there.
func (f *finder) match(level int) ([]byte, error) {
	p := &f.p
	start := p.Pos()
	if level == len(f.segs) {
		p.Skip()
		return p.Data()[start:p.Pos()], nil
	}
	if err := f.ctx.Err(); err != nil {
		return nil, err
	}
	seg := f.segs[level]
	var found []byte
	var err error
	matched := false
	switch p.Data()[p.Pos()] {
	case '{':
		_, serr := p.Each(level, '}', func() error {
			raw, kerr := p.MemberKey()
			if kerr != nil {
				return kerr
			}
			if key, kerr := jsonvalue.DecodeString(raw); kerr == nil && key == seg {
				matched = true
				found, err = f.match(level + 1)
				return nil
			}
			p.Skip()
			return nil
		})
		if serr != nil {
			return nil, serr
		}
		if !matched {
			members, _ := jsonvalue.Elements(p.Data()[start:p.Pos()])
			return nil, f.fail(level, "the object at %s has no key %q; its keys: %s", seg, keyList(memberKeys(members)))
		}
		return found, err
	case '[':
		n, aerr := strconv.Atoi(seg)
		if aerr != nil || n < 0 || strconv.Itoa(n) != seg {
			p.Skip()
			return nil, f.fail(level, "the value at %s is a list: %q is not an index", seg)
		}
		i := 0
		length, serr := p.Each(level, ']', func() error {
			if i == n {
				matched = true
				found, err = f.match(level + 1)
			} else {
				p.Skip()
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
	p.Skip()
	return nil, f.fail(level, "the value at %s is a %s: it has nothing named %q", jsonvalue.TypeName(p.Data()[start:]), seg)
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

// memberKeys are the keys of members.
func memberKeys(members []jsonvalue.Member) []string {
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.Key
	}
	return keys
}
