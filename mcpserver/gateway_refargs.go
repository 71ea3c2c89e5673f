package mcpserver

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// refArgs are a call's arguments as substitute reads them: the raw
// arguments (a JSON object), walked once without building them, and the
// arguments X_uri in them that folio fills in. Nothing proportional to
// the arguments is allocated before the references are counted: a call
// over MaxReferences is refused having cost a walk of its text.
type refArgs struct {
	raw []byte
	// list: each argument X_uri whose value (the last, when its key
	// repeats, as encoding/json reads it) is a reference or an array of
	// them, in the order of their names.
	list []refArg
	// total is how many references list holds.
	total int
	// given: the arguments X given beside their X_uri.
	given map[string]bool
}

// refArg is an argument X_uri of a call holding n references: one (its
// value a JSON string) or an array of them (many).
type refArg struct {
	key, name string
	value     []byte
	n         int
	many      bool
}

// scanRefArgs walks raw, a call's arguments, for the arguments X_uri
// that allowed names (X → its type) and whose value is a reference or an
// array of them, counting their references without decoding them. It is
// false when raw is not a JSON object.
func scanRefArgs(raw []byte, allowed map[string]string) (*refArgs, bool) {
	a := &refArgs{raw: raw, given: map[string]bool{}}
	p := jsonvalue.NewScanner(raw, false)
	p.Space()
	if p.Pos() >= len(raw) || raw[p.Pos()] != '{' {
		return nil, false
	}
	found := map[string]refArg{} // by X_uri: the last value wins
	keys := jsonvalue.KeyCache{}
	_, err := p.Each(0, '}', func() error {
		key, err := memberKey(p, allowed, keys)
		name, isRef := strings.CutSuffix(key, uriSuffix)
		switch {
		case err != nil:
			return err
		case key == "":
			return p.Value(1)
		case !isRef:
			a.given[key] = true
			return p.Value(1)
		}
		start := p.Pos()
		n, many, err := countReferences(p)
		found[key] = refArg{key: key, name: name, value: raw[start:p.Pos()], n: n, many: many}
		return err
	})
	p.Space()
	if err != nil || p.Pos() != len(raw) {
		return nil, false
	}
	for _, key := range slices.Sorted(maps.Keys(found)) {
		if arg := found[key]; arg.n > 0 {
			a.list = append(a.list, arg)
			a.total += arg.n
		}
	}
	return a, true
}

// memberKey reads the key of the member at p: X or X_uri for an X that
// allowed names, or "" for any other key. A key without escapes is
// looked up without being copied, and keys are interned in keys, so that
// a call of many members, or of one key many times, costs no allocation
// for each.
func memberKey(p *jsonvalue.Scanner, allowed map[string]string, keys jsonvalue.KeyCache) (string, error) {
	raw, err := p.MemberKey()
	if err != nil {
		return "", err
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		if _, ok := allowed[string(bytes.TrimSuffix(inner, []byte(uriSuffix)))]; !ok {
			return "", nil
		}
	}
	key, err := keys.Key(raw)
	if _, ok := allowed[strings.TrimSuffix(key, uriSuffix)]; err != nil || !ok {
		return "", err
	}
	return key, nil
}

// countReferences reads the value at p as substitute takes it: one
// reference (n 1), an array of references (many, n of them), or neither
// (n 0), without decoding it.
func countReferences(p *jsonvalue.Scanner) (n int, many bool, err error) {
	d := p.Data()
	if p.Pos() < len(d) && d[p.Pos()] == '"' {
		start := p.Pos()
		if err := p.ScanString(); err != nil {
			return 0, false, err
		}
		if isReferenceJSON(d[start:p.Pos()]) {
			return 1, false, nil
		}
		return 0, false, nil
	}
	if p.Pos() >= len(d) || d[p.Pos()] != '[' {
		return 0, false, p.Value(1)
	}
	all := true
	n, err = p.Each(1, ']', func() error {
		start := p.Pos()
		if start >= len(d) || d[start] != '"' {
			all = false
			return p.Value(2)
		}
		err := p.ScanString()
		all = all && err == nil && isReferenceJSON(d[start:p.Pos()])
		return err
	})
	if err != nil || !all {
		return 0, false, err
	}
	return n, true, nil
}

// isReferenceJSON reports whether the JSON string raw (its quotes
// included) is a reference (see isReference); only a string with escapes
// is decoded to tell.
func isReferenceJSON(raw []byte) bool {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		s, err := jsonvalue.DecodeString(raw)
		return err == nil && isReference(s)
	}
	return bytes.HasPrefix(inner, []byte(fold.Scheme)) || len(inner) >= 7 && bytes.EqualFold(inner[:7], []byte("file://"))
}

// uris are the references of arg, decoded.
func (arg refArg) uris() []string {
	if !arg.many {
		s, _ := jsonvalue.DecodeString(arg.value)
		return []string{s}
	}
	out := make([]string, 0, arg.n)
	p := jsonvalue.NewScanner(arg.value, true)
	p.Each(0, ']', func() error {
		start := p.Pos()
		p.Skip()
		s, err := jsonvalue.DecodeString(arg.value[start:p.Pos()])
		out = append(out, s)
		return err
	})
	return out
}

// expand is the arguments with each X_uri of list replaced by X holding
// its values (values[i] those of list[i], one or an array of them), and
// any X given beside it dropped: made in one buffer of the size it comes
// to, the other members as they came.
func (a *refArgs) expand(values [][]json.RawMessage) []byte {
	drop := map[string]bool{}
	size := len(a.raw)
	for i, arg := range a.list {
		drop[arg.key], drop[arg.name] = true, true
		size += len(arg.name) + 6 // quotes, colon, comma, brackets
		for _, v := range values[i] {
			size += len(v) + 1
		}
	}
	out := make([]byte, 1, size)
	out[0] = '{'
	p := jsonvalue.NewScanner(a.raw, true)
	p.Space()
	p.Each(0, '}', func() error {
		start := p.Pos()
		raw, err := p.MemberKey()
		p.Skip()
		if err == nil && !dropped(raw, drop) {
			out = appendMember(out, a.raw[start:p.Pos()])
		}
		return err
	})
	for i, arg := range a.list {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(jsonvalue.Append(out, arg.name), ':')
		if !arg.many {
			out = append(out, values[i][0]...)
			continue
		}
		out = append(out, '[')
		for j, v := range values[i] {
			if j > 0 {
				out = append(out, ',')
			}
			out = append(out, v...)
		}
		out = append(out, ']')
	}
	return append(out, '}')
}

// dropped reports whether the key raw (JSON text) is one of drop; a key
// without escapes is looked up without being copied.
func dropped(raw []byte, drop map[string]bool) bool {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return drop[string(inner)]
	}
	key, err := jsonvalue.DecodeString(raw)
	return err == nil && drop[key]
}

// appendMember appends the text of a member to an object being written
// (out, its opening brace written).
func appendMember(out, member []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, member...)
}
