package fold

import (
	"bytes"
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"$", []string{}},
		{"entries", []string{"entries"}},
		{"entries.2.path", []string{"entries", "2", "path"}},
		{"$.entries[2].path", []string{"entries", "2", "path"}},
		{"entries[2][0]", []string{"entries", "2", "0"}},
		{`$["a.b"]['c]d'].e`, []string{"a.b", "c]d", "e"}},
		{`$[""]`, []string{""}},
		{"/entries/2/path", []string{"entries", "2", "path"}},
		{"/a~1b/c~0d/~01", []string{"a/b", "c~d", "~1"}},
		{"/", []string{""}},
		{"/é/😀", []string{"é", "😀"}},
	} {
		got, err := parsePath(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"a..b", ".a", "a.", "$a", "a[", "a[-1]", "a[+1]", "a[x]", `a["x]`, `a["x"`, "a[]", "/a~", "/a~2"} {
		if got, err := parsePath(in); err == nil {
			t.Errorf("ParsePath(%q) = %q, want an error", in, got)
		}
	}
}

// FuzzParsePath checks that no path panics the parser or the lookup, and
// that a pointer written from the segments parses back to them.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"", "$", "a.b", "$.a[1].b", `$["x"]`, "/a/b~1c", "/"} {
		f.Add(s)
	}
	data := []byte(`{"a":[{"b":1},{"c":"x"}],"":{"":2},"x/y":{"~":3}}`)
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := parsePath(p)
		if err != nil {
			return
		}
		find(context.Background(), data, segs)
		var b strings.Builder
		for _, s := range segs {
			b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		}
		back, err := parsePath(b.String())
		if len(segs) == 0 {
			return
		}
		if err != nil || !reflect.DeepEqual(back, segs) {
			t.Fatalf("%q: segments %q, as a pointer %q gives %q, %v", p, segs, b.String(), back, err)
		}
	})
}

// walk follows segs through a parsed value, as find does through bytes.
func walk(v any, segs []string) (any, bool) {
	for _, s := range segs {
		switch c := v.(type) {
		case *jsonvalue.Object:
			next, ok := c.Get(s)
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n >= len(c) || strconv.Itoa(n) != s {
				return nil, false
			}
			v = c[n]
		default:
			return nil, false
		}
	}
	return v, true
}

// FuzzFind checks the byte scanner against the parser: on any valid JSON,
// find gives the bytes of the value that walking the parsed tree gives.
func FuzzFind(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"x\\\"y"}],"a":{"c":[]}}`), "a.c")
	f.Add([]byte(` [ {"k" : [ "]" , "}" ] } , 2 ] `), "$[0].k[1]")
	f.Add([]byte(`{"\u0061":1,"b":{"":true}}`), `$["b"][""]`)
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		v, err := jsonvalue.Parse(data)
		if err != nil {
			return
		}
		segs, err := parsePath(path)
		if err != nil {
			return
		}
		want, ok := walk(v, segs)
		raw, err := find(context.Background(), data, segs)
		if ok != (err == nil) {
			t.Fatalf("walk found %v, find: %v", ok, err)
		}
		if !ok {
			return
		}
		got, err := jsonvalue.Parse(raw)
		if err != nil {
			t.Fatalf("find gave %q: %v", raw, err)
		}
		if g, w := jsonvalue.Marshal(got), jsonvalue.Marshal(want); !bytes.Equal(g, w) {
			t.Fatalf("find gave %s, walk %s", g, w)
		}
	})
}
