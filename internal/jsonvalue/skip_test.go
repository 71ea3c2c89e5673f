package jsonvalue

import (
	"encoding/json"
	"testing"
)

// TestSkipValue: a value is passed to just past its end, whatever its
// strings hold; one that does not end in b gives -1, but for a bare word
// or number, which ends where b does.
func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`"a\"b",1`, 6},
		{`"a\\",1`, 5},
		{`"a\\\"",1`, 7},
		{`{"a":"}]","b":[1,{"c":"\\"}]} x`, 29},
		{`[[],{}],`, 7},
		{`-12.5e3}`, 7},
		{`true `, 4},
		{`null`, 4},
		{`"unterminated`, -1},
		{`"ends in a backslash\`, -1},
		{`{"a":[1,2]`, -1},
		{`{"a":"]}`, -1},
		{``, -1},
	} {
		if got := SkipValue([]byte(tc.in), 0); got != tc.want {
			t.Errorf("SkipValue(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestStringText: a string's text between its quotes, undecoded, and
// whether it holds an escape.
func TestStringText(t *testing.T) {
	for _, tc := range []struct {
		in, text string
		end      int
		escaped  bool
	}{
		{`"id":1`, "id", 4, false},
		{`"\u0069d":1`, `\u0069d`, 9, true},
		{`"id`, "", -1, false},
	} {
		text, end, escaped := StringText([]byte(tc.in), 0)
		if string(text) != tc.text || end != tc.end || escaped != tc.escaped {
			t.Errorf("StringText(%q) = %q %d %v, want %q %d %v", tc.in, text, end, escaped, tc.text, tc.end, tc.escaped)
		}
	}
}

// FuzzSkipValue: on any input, from any place, SkipValue stays in bounds
// and Scanner.Skip ends within the data; on a valid JSON value, both pass
// the whole value, and no more when something follows it.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,"]\"",{"b":"\\"}]}`, `"x\\\"y"`, `-1.5e3`, `[true,null]`, `"\\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range len(data) + 1 {
			if end := SkipValue(data, i); end < -1 || end > len(data) || (end >= 0 && end < i) {
				t.Fatalf("SkipValue(%q, %d) = %d", data, i, end)
			}
		}
		if len(data) > 0 {
			s := NewScanner(data, true)
			if s.Skip(); s.Pos() < 0 || s.Pos() > len(data) {
				t.Fatalf("Skip on %q ends at %d", data, s.Pos())
			}
		}
		if !json.Valid(data) {
			return
		}
		v := Trim(data)
		followed := append(append([]byte{}, v...), ",0]"...)
		if end := SkipValue(followed, 0); end != len(v) {
			t.Fatalf("SkipValue(%q) = %d, want %d", followed, end, len(v))
		}
		s := NewScanner(v, true)
		if s.Skip(); s.Pos() != len(v) {
			t.Fatalf("Skip on %q ends at %d, want %d", v, s.Pos(), len(v))
		}
	})
}
