package fold

import (
	"reflect"
	"strings"
	"testing"
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
		got, err := ParsePath(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"a..b", ".a", "a.", "$a", "a[", "a[-1]", "a[+1]", "a[x]", `a["x]`, `a["x"`, "a[]", "/a~", "/a~2"} {
		if got, err := ParsePath(in); err == nil {
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
	v, _ := Parse([]byte(`{"a":[{"b":1},{"c":"x"}],"":{"":2},"x/y":{"~":3}}`))
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := ParsePath(p)
		if err != nil {
			return
		}
		lookup(v, segs)
		var b strings.Builder
		for _, s := range segs {
			b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		}
		back, err := ParsePath(b.String())
		if len(segs) == 0 {
			return
		}
		if err != nil || !reflect.DeepEqual(back, segs) {
			t.Fatalf("%q: segments %q, as a pointer %q gives %q, %v", p, segs, b.String(), back, err)
		}
	})
}
