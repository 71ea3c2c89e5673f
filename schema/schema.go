package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Bounds on what is judged.
const (
	// MaxBytes is the largest schema judged, as JSON.
	MaxBytes = 256 << 10
	// MaxDepth is the deepest nesting of JSON values in a schema judged.
	MaxDepth = 64
	// MaxUnfolded is the most schema nodes a schema may have once each
	// of its references is replaced by what it names.
	MaxUnfolded = 20_000
	// MaxCost bounds a schema's unfolded nodes times an instance's values:
	// over it, the instance is not judged. No schema node applies to one
	// value more than once, so this bounds the checks made (a check costs
	// about 1.6 µs here when it fails and builds its error, less when it
	// passes: a few seconds of one core at worst).
	MaxCost = 1 << 22
)

// ErrCannotJudge is the error of a schema, or of a value against one,
// that is beyond the bounds: nothing is known of the value.
var ErrCannotJudge = errors.New("schema: cannot judge")

// Checker judges values against one schema.
type Checker struct {
	resolved *jsonschema.Resolved
	unfolded int
}

// Compile reads the schema raw. An error wraps ErrCannotJudge, saying
// why; a schema that does not parse or resolve is one folio cannot judge
// too.
func Compile(raw []byte) (c *Checker, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("%w: the validator failed on it: %v", ErrCannotJudge, r)
		}
	}()
	cannot := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCannotJudge, fmt.Sprintf(format, args...))
	}
	if len(raw) > MaxBytes {
		return nil, cannot("the schema is %d bytes, over %d", len(raw), MaxBytes)
	}
	if d, _ := measure(raw); d > MaxDepth {
		return nil, cannot("the schema nests %d deep, over %d", d, MaxDepth)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, cannot("the schema is not JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, isBool := doc.(bool); !isBool {
			return nil, cannot("the schema is a %T, not an object", doc)
		}
	}
	u := unfolder{root: doc, sizes: map[string]int{}, visiting: map[string]bool{}}
	n, err := u.size(doc, "")
	if err != nil {
		return nil, cannot("%v", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, cannot("%v", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, cannot("%v", err)
	}
	return &Checker{resolved: resolved, unfolded: n}, nil
}

// Validate judges the JSON value instance: nil when the schema admits it,
// an *Invalid saying where and why not when it does not, or an error
// wrapping ErrCannotJudge when checking it would cost over MaxCost.
func (c *Checker) Validate(instance []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: the validator failed on it: %v", ErrCannotJudge, r)
		}
	}()
	d, values := measure(instance)
	if int64(c.unfolded)*int64(values) > MaxCost {
		return fmt.Errorf("%w: a value of %d parts against a schema of %d nodes unfolded", ErrCannotJudge, values, c.unfolded)
	}
	if d > MaxDepth*4 {
		// No schema of MaxDepth reaches this deep, but the validator
		// would still walk it: past its end, nothing is checked anyway.
		return fmt.Errorf("%w: the value nests %d deep", ErrCannotJudge, d)
	}
	var v any
	if err := json.Unmarshal(instance, &v); err != nil {
		return err
	}
	if err := c.resolved.Validate(v); err != nil {
		return invalid(err.Error())
	}
	return nil
}

// Invalid is the error of a value that a schema does not admit: where in
// the value, and why, in a few words, never the value itself (it may be
// large, and it is the caller's to show).
type Invalid struct {
	// At is a JSON pointer into the schema ("root" for the whole).
	At string
	// Why is what the schema wants there.
	Why string
	// Property is the top-level property of the value that does not
	// fit, when the schema says which ("" when not).
	Property string
}

func (e *Invalid) Error() string { return "at " + e.At + ": " + e.Why }

// invalidWhy bounds the length of Invalid.Why.
const invalidWhy = 200

// invalid reads the validator's message ("validating root: validating
// /properties/rows: type: <the value> has type "object", want "array"")
// as an Invalid, without the value.
func invalid(msg string) *Invalid {
	e := &Invalid{At: "root"}
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		at, after, found := strings.Cut(rest, ": ")
		if !ok || !found || strings.ContainsAny(at, " ") {
			break
		}
		if p, ok := strings.CutPrefix(at, "/properties/"); ok && e.Property == "" && !strings.Contains(p, "/") {
			e.Property = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
		}
		e.At, msg = at, after
	}
	if detail, ok := strings.CutPrefix(msg, "type: "); ok {
		if i := strings.LastIndex(detail, " has type "); i >= 0 {
			e.Why = "found " + strings.Replace(detail[i+len(" has type "):], ", want ", ", want a value of type ", 1)
			e.Why = cutMiddle(e.Why, invalidWhy)
			return e
		}
	}
	e.Why = cutMiddle(msg, invalidWhy)
	return e
}

// cutMiddle cuts s to at most n runes, keeping its start and end.
func cutMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + " … " + string(r[len(r)-n/2:])
}

// measure is how deep the JSON values of data nest, and about how many
// values it holds, at least as many as it does (data need not be valid).
func measure(data []byte) (deepest, values int) {
	d := 0
	values = 1
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
			values++
		case c == '}' || c == ']':
			d--
		case c == ',':
			values++
		}
	}
	return deepest, values
}

// unfolder counts a schema's nodes with each reference replaced by what it
// names, refusing references it cannot follow and cycles of them.
type unfolder struct {
	root     any
	sizes    map[string]int  // the unfolded size of each reference target
	visiting map[string]bool // the targets being unfolded now
}

// size is the unfolded size of v, found at pointer at in the schema.
func (u *unfolder) size(v any, at string) (int, error) {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			// encoding/json, which reads the schema for the validator,
			// matches keys whatever their case: so does this.
			switch strings.ToLower(k) {
			case "$dynamicref", "$recursiveref":
				return 0, fmt.Errorf("%s at %q is not followed", k, at)
			case "$id":
				if at != "" {
					return 0, fmt.Errorf("$id below the root (at %q) is not followed", at)
				}
			case "$ref":
				ref, ok := child.(string)
				if !ok {
					return 0, fmt.Errorf("%s at %q is not a string", k, at)
				}
				m, err := u.ref(ref, at)
				if err != nil {
					return 0, err
				}
				n += m
				continue
			}
			m, err := u.size(child, at+"/"+escape(k))
			if err != nil {
				return 0, err
			}
			n += m
		}
	case []any:
		for i, child := range v {
			m, err := u.size(child, at+"/"+strconv.Itoa(i))
			if err != nil {
				return 0, err
			}
			n += m
		}
	}
	if n > MaxUnfolded {
		return 0, fmt.Errorf("the schema unfolds to over %d nodes", MaxUnfolded)
	}
	return n, nil
}

// ref is the unfolded size of what the reference ref, found at at, names.
func (u *unfolder) ref(ref, at string) (int, error) {
	if !strings.HasPrefix(ref, "#") {
		return 0, fmt.Errorf("the reference %q at %q is not within the schema", ref, at)
	}
	pointer, err := url.PathUnescape(ref[1:])
	if err != nil || (pointer != "" && !strings.HasPrefix(pointer, "/")) {
		return 0, fmt.Errorf("the reference %q at %q is not a JSON pointer", ref, at)
	}
	if n, ok := u.sizes[pointer]; ok {
		return n, nil
	}
	if u.visiting[pointer] {
		return 0, fmt.Errorf("the reference %q at %q refers back to itself", ref, at)
	}
	target, ok := lookup(u.root, pointer)
	if !ok {
		return 0, fmt.Errorf("the reference %q at %q names nothing", ref, at)
	}
	u.visiting[pointer] = true
	n, err := u.size(target, pointer)
	delete(u.visiting, pointer)
	if err != nil {
		return 0, err
	}
	u.sizes[pointer] = n
	return n, nil
}

// lookup follows the JSON pointer p from v.
func lookup(v any, p string) (any, bool) {
	if p == "" {
		return v, true
	}
	for _, seg := range strings.Split(p[1:], "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// escape is a key as a JSON pointer segment.
func escape(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	var b bytes.Buffer
	for _, r := range k {
		switch r {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
