package jsonvalue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`{"b":1,"a":2}`, `{"b":1,"a":2}`},
		{` [1.50, -0, 1e400, "x<y&z"] `, `[1.50,-0,1e400,"x<y&z"]`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{`"\u00e9\ud83d\ude00\n"`, "\"é😀\\n\""},
		{`{"a":{"b":[true,false,null]}}`, `{"a":{"b":[true,false,null]}}`},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.in, err)
		}
		if got := string(Marshal(v)); got != tc.out {
			t.Errorf("Parse(%s) = %s, want %s", tc.in, got, tc.out)
		}
	}
}

func TestParseRepeatedKeysInLargeObjects(t *testing.T) {
	in := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":"again","k17":17}`
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if len(o.Keys) != 18 {
		t.Fatalf("%d keys, want 18", len(o.Keys))
	}
	if got, _ := o.Get("k3"); got != "again" {
		t.Errorf("k3 = %v, want the last value", got)
	}
}

func TestParseDepthAsEncodingJSON(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		data := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if _, err := Parse(data); (err == nil) != json.Valid(data) {
			t.Errorf("%d levels: parse error %v, json.Valid %v", n, err, json.Valid(data))
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `{"a":1}{"b":2}`, `{"a" 1}`, `nul`, `[1] x`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

// FuzzParse checks that parse accepts what encoding/json accepts, and that
// marshal gives back the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, `[]`, `"x"`, `{"a":1,"a":2}`, `[1e5,-0.5,true,null]`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("Parse error %v, json.Valid %v", err, json.Valid(data))
		}
		if err != nil {
			return
		}
		out := Marshal(v)
		want, err := decodeNumbers(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeNumbers(out)
		if err != nil {
			t.Fatalf("Marshal gave invalid JSON %q: %v", out, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("round trip changed the value: %q -> %q", data, out)
		}
	})
}

// decodeNumbers decodes with encoding/json, numbers kept as their text.
func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
