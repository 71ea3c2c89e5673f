// Package jsonvalue reads and writes JSON as folio's folded answers need
// it: values that keep numbers' text and objects' order (Parse, Marshal),
// and a Scanner that reads JSON without building it, checking it or, for
// JSON known to be valid, skipping through it. Its skipper (SkipValue,
// SkipString, SkipSpace) is folio's one way to pass JSON values without
// reading them: the Scanner's, and telemetry's off the wire.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// A JSON value is held as one of: nil, bool, json.Number, string, []any and
// *Object, so that numbers keep their exact text and objects their order.
// Append also writes an int.

// Object is a JSON object with its members in their order. Keys are unique:
// when a key repeats in the source, the last value wins at the place of the
// first, as encoding/json decides it.
type Object struct {
	Keys   []string
	Values []any
}

// Get returns the value of key k.
func (o *Object) Get(k string) (any, bool) {
	if i := o.index(k); i >= 0 {
		return o.Values[i], true
	}
	return nil, false
}

func (o *Object) index(k string) int {
	for i, key := range o.Keys {
		if key == k {
			return i
		}
	}
	return -1
}

// ErrSyntax is returned by Parse for text that is not one JSON value.
var ErrSyntax = errors.New("not a JSON value")

// maxDepth bounds the nesting Parse accepts, as encoding/json does.
const maxDepth = 10000

// Parse reads one JSON value. It accepts what encoding/json accepts and
// reads strings the same way (invalid UTF-8 becomes U+FFFD).
func Parse(data []byte) (any, error) {
	p := Scanner{data: data, seen: KeyCache{}}
	p.Space()
	v, err := p.value(0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	p.Space()
	if p.pos != len(data) {
		return nil, fmt.Errorf("%w: more than one value (at byte %d)", ErrSyntax, p.pos)
	}
	return v, nil
}

// Scanner is a recursive-descent JSON reader over data. Items and members
// gather on its stacks and are copied out once per container, and keys are
// interned, to keep allocations down. One made by NewScanner builds
// nothing: its caller walks the value with Each, MemberKey, Value and
// ScanString.
type Scanner struct {
	data []byte
	pos  int
	// check reads without building: every value returned is nil or "".
	check bool
	// trusted: data is valid JSON already (a kept answer), so values are
	// skipped, in check mode, without checking their syntax.
	trusted bool
	vals    []any
	keys    []string
	seen    KeyCache
}

// NewScanner reads data without building values; trusted says data is
// valid JSON already (a kept answer), so values are skipped, not checked.
func NewScanner(data []byte, trusted bool) *Scanner {
	return &Scanner{data: data, check: true, trusted: trusted}
}

// Pos is how far the scanner has read.
func (p *Scanner) Pos() int { return p.pos }

// Data is the text the scanner reads.
func (p *Scanner) Data() []byte { return p.data }

// Value reads the value at the position, nested level deep.
func (p *Scanner) Value(level int) error {
	_, err := p.value(level)
	return err
}

// ScanString reads the string at the position, checking it.
func (p *Scanner) ScanString() error {
	_, err := p.string()
	return err
}

// DecodeString decodes the JSON string raw (its quotes included), as
// encoding/json does.
func DecodeString(raw []byte) (string, error) {
	return (&Scanner{data: raw}).string()
}

// Space passes white space.
func (p *Scanner) Space() { p.pos = SkipSpace(p.data, p.pos) }

// Fail is the error of a scan that wanted what at the position.
func (p *Scanner) Fail(what string) error {
	if p.pos >= len(p.data) {
		return fmt.Errorf("unexpected end of input, want %s", what)
	}
	return fmt.Errorf("unexpected %q at byte %d, want %s", p.data[p.pos], p.pos, what)
}

func (p *Scanner) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.Fail("a value")
	}
	if p.trusted {
		p.Skip()
		return nil, nil
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.Fail("a value")
}

func (p *Scanner) literal(word string) error {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return p.Fail(word)
	}
	p.pos += len(word)
	return nil
}

func (p *Scanner) array(depth int) (any, error) {
	mark := len(p.vals)
	defer p.pop(mark)
	_, err := p.Each(depth, ']', func() error {
		v, err := p.value(depth + 1)
		p.push("", v)
		return err
	})
	switch {
	case err != nil || p.check:
		return nil, err
	case len(p.vals) == mark:
		return []any{}, nil
	}
	return slices.Clone(p.vals[mark:]), nil
}

func (p *Scanner) object(depth int) (any, error) {
	mark := len(p.vals)
	defer p.pop(mark)
	_, err := p.Each(depth, '}', func() error {
		raw, err := p.MemberKey()
		if err != nil {
			return err
		}
		var k string
		if !p.check {
			if k, err = p.seen.Key(raw); err != nil {
				return err
			}
		}
		v, err := p.value(depth + 1)
		p.push(k, v)
		return err
	})
	if err != nil || p.check {
		return nil, err
	}
	return newObject(p.keys[mark:], p.vals[mark:]), nil
}

// MemberKey reads an object member's key and colon, and returns the key as
// its JSON text.
func (p *Scanner) MemberKey() ([]byte, error) {
	start := p.pos
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return nil, p.Fail("a key")
	}
	if p.trusted {
		p.skipString()
	} else {
		check := p.check
		p.check = true // the text is enough; a KeyCache decodes it
		if _, err := p.string(); err != nil {
			p.check = check
			return nil, err
		}
		p.check = check
	}
	raw := p.data[start:p.pos]
	p.Space()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return nil, p.Fail(":")
	}
	p.pos++
	p.Space()
	return raw, nil
}

// push keeps an item (with an empty key) or a member on the stacks, which
// run level; in check mode there is nothing to keep.
func (p *Scanner) push(k string, v any) {
	if !p.check {
		p.keys = append(p.keys, k)
		p.vals = append(p.vals, v)
	}
}

// pop drops what a container pushed on the stacks.
func (p *Scanner) pop(mark int) {
	clear(p.vals[mark:])
	p.vals, p.keys = p.vals[:mark], p.keys[:mark]
}

// newObject copies members into an Object, unique by key (see uniqueKeys).
func newObject(keys []string, vals []any) *Object {
	pick := uniqueKeys(len(keys), func(i int) string { return keys[i] })
	if pick == nil {
		return &Object{Keys: slices.Clone(keys), Values: slices.Clone(vals)}
	}
	o := &Object{Keys: make([]string, len(pick)), Values: make([]any, len(pick))}
	for j, i := range pick {
		o.Keys[j], o.Values[j] = keys[i], vals[i]
	}
	return o
}

// string reads a string; one with escapes or invalid UTF-8 is decoded by
// encoding/json, so that both read it alike.
func (p *Scanner) string() (string, error) {
	start := p.pos
	p.pos++ // "
	plain := true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.data[start+1 : p.pos-1]
			switch {
			case p.check && !plain && !json.Valid(p.data[start:p.pos]):
				return "", fmt.Errorf("bad escape in the string at byte %d", start)
			case p.check:
				return "", nil
			case plain && utf8.Valid(raw):
				return string(raw), nil
			}
			var s string
			if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
				return "", fmt.Errorf("bad string at byte %d: %v", start, err)
			}
			return s, nil
		case c == '\\':
			plain = false
			p.pos += 2
		case c < 0x20:
			return "", p.Fail("no control character in a string")
		default:
			p.pos++
		}
	}
	return "", fmt.Errorf("unterminated string at byte %d", start)
}

// number reads a number with JSON's grammar, kept as its text.
func (p *Scanner) number() (any, error) {
	start := p.pos
	d := p.data
	if d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		p.digits()
	default:
		return nil, p.Fail("a digit")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return nil, p.Fail("a digit")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return nil, p.Fail("a digit")
		}
	}
	if p.check {
		return nil, nil
	}
	return json.Number(d[start:p.pos]), nil
}

// digits skips one or more digits and reports whether there was one.
func (p *Scanner) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// Marshal encodes v compactly, without HTML escaping.
func Marshal(v any) []byte { return Append(nil, v) }

// Append appends the encoding of v to b, as Marshal writes it.
func Append(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case json.Number:
		return append(b, v...)
	case int:
		return fmt.Appendf(b, "%d", v)
	case string:
		return AppendString(b, v)
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = Append(b, item)
		}
		return append(b, ']')
	case *Object:
		b = append(b, '{')
		for i, k := range v.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			b = Append(b, v.Values[i])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("jsonvalue: no JSON encoding for %T", v))
}

// Obj builds an object from alternating keys and values.
func Obj(kv ...any) *Object {
	o := &Object{Keys: make([]string, 0, len(kv)/2), Values: make([]any, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		o.Keys = append(o.Keys, kv[i].(string))
		o.Values = append(o.Values, kv[i+1])
	}
	return o
}

// Each reads the array or object at p (its opening bracket is at p.pos,
// nested level deep), calling fn at the start of each item or member, and
// returns how many there were. fn must read exactly that item or member.
func (p *Scanner) Each(level int, closer byte, fn func() error) (int, error) {
	if level == maxDepth {
		return 0, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	p.pos++ // [ or {
	p.Space()
	if p.pos < len(p.data) && p.data[p.pos] == closer {
		p.pos++
		return 0, nil
	}
	for n := 1; ; n++ {
		p.Space()
		if err := fn(); err != nil {
			return n, err
		}
		p.Space()
		switch {
		case p.pos < len(p.data) && p.data[p.pos] == ',':
			p.pos++
		case p.pos < len(p.data) && p.data[p.pos] == closer:
			p.pos++
			return n, nil
		default:
			return n, p.Fail(", or " + string(closer))
		}
	}
}

// Count reads the array at p, nested level deep, and returns its length.
func (p *Scanner) Count(level int) (int, error) {
	return p.Each(level, ']', func() error {
		_, err := p.value(level + 1)
		return err
	})
}

// Skip passes the value at the position without checking it, for
// trusted data (see SkipValue). It stays in bounds on any input: a value
// that does not end takes the scanner to the end of its data.
func (p *Scanner) Skip() {
	if p.pos = SkipValue(p.data, p.pos); p.pos < 0 {
		p.pos = len(p.data)
	}
}

// skipString passes the string at p.pos without decoding it (see
// SkipString).
func (p *Scanner) skipString() {
	if p.pos = SkipString(p.data, p.pos); p.pos < 0 {
		p.pos = len(p.data) // unterminated
	}
}
