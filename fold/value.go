package fold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/folio-mcp/folio/pager"
)

// A JSON value is held as one of: nil, bool, json.Number, string, []any and
// *Object, so that numbers keep their exact text and objects their order.

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

// add appends a member; index, kept for large objects, finds repeats.
func (o *Object) add(k string, v any, index map[string]int) map[string]int {
	if index == nil && len(o.Keys) >= 16 {
		index = make(map[string]int, 2*len(o.Keys))
		for i, key := range o.Keys {
			index[key] = i
		}
	}
	if index != nil {
		if i, ok := index[k]; ok {
			o.Values[i] = v
			return index
		}
		index[k] = len(o.Keys)
	} else if i := o.index(k); i >= 0 {
		o.Values[i] = v
		return index
	}
	o.Keys = append(o.Keys, k)
	o.Values = append(o.Values, v)
	return index
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

// Parse reads one JSON value.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: more than one value", ErrSyntax)
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '[':
			items := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return items, nil
		case '{':
			o := &Object{}
			var index map[string]int
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				index = o.add(kt.(string), v, index)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// Marshal encodes v compactly, without HTML escaping.
func Marshal(v any) []byte { return appendValue(nil, v) }

func appendValue(b []byte, v any) []byte {
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
		return pager.AppendString(b, v)
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, item)
		}
		return append(b, ']')
	case *Object:
		b = append(b, '{')
		for i, k := range v.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = pager.AppendString(b, k)
			b = append(b, ':')
			b = appendValue(b, v.Values[i])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("fold: no JSON encoding for %T", v))
}

// obj builds an Object from alternating keys and values.
func obj(kv ...any) *Object {
	o := &Object{Keys: make([]string, 0, len(kv)/2), Values: make([]any, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		o.Keys = append(o.Keys, kv[i].(string))
		o.Values = append(o.Values, kv[i+1])
	}
	return o
}
