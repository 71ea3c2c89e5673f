package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// exponential is a schema whose n definitions each refer twice to the
// next: 2^n checks of every value, unfolded.
func exponential(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		cannot       string // what the error says, "" when the schema is judged
	}{
		{"plain", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, ""},
		{"boolean", `true`, ""},
		{"local refs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, ""},
		{"draft-07 refs", `{"type":"object","properties":{"a":{"$ref":"#/definitions/s"}},"definitions":{"s":{"type":"string"}}}`, ""},
		{"escaped ref", `{"properties":{"a":{"$ref":"#/$defs/a~1b%20c"}},"$defs":{"a/b c":{"type":"string"}}}`, ""},
		{"dag", exponential(3), ""},
		{"self", `{"$ref":"#"}`, "refers back to itself"},
		{"self in another case", `{"$Ref":"#"}`, "refers back to itself"},
		{"self below", `{"type":"object","properties":{"a":{"$ref":"#"}}}`, "refers back to itself"},
		{"cycle", `{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"not":{"$ref":"#/$defs/a"}}}}`, "refers back to itself"},
		{"tree", `{"$ref":"#/$defs/n","$defs":{"n":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}}}}}`, "refers back to itself"},
		{"remote", `{"$ref":"https://example.com/s.json"}`, "not within the schema"},
		{"anchor", `{"$ref":"#a","$defs":{"x":{"$anchor":"a"}}}`, "not a JSON pointer"},
		{"dangling", `{"$ref":"#/$defs/none"}`, "names nothing"},
		{"dynamic", `{"$dynamicRef":"#meta"}`, "$dynamicRef"},
		{"inner id", `{"properties":{"a":{"$id":"http://x/y","type":"string"}}}`, "$id below the root"},
		{"exponential", exponential(40), "unfolds to over"},
		{"deep", strings.Repeat(`{"not":`, 100) + `{}` + strings.Repeat(`}`, 100), "nests 101 deep"},
		{"large", `{"description":"` + strings.Repeat("x", MaxBytes) + `"}`, "bytes, over"},
		{"not json", `{"type":`, "not JSON"},
		{"not a schema", `[1,2]`, "not an object"},
		{"bad pattern", `{"pattern":"("}`, "cannot judge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile([]byte(tc.schema))
			switch {
			case tc.cannot == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.cannot == "":
				if c == nil {
					t.Fatal("no checker")
				}
			case !errors.Is(err, ErrCannotJudge) || !strings.Contains(err.Error(), tc.cannot):
				t.Fatalf("%v, want ErrCannotJudge saying %q", err, tc.cannot)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	c, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"string"},"n":{"$ref":"#/$defs/count"}},"required":["a"],"$defs":{"count":{"type":"integer","minimum":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{`{"a":"x"}`, true},
		{`{"a":"x","n":3}`, true},
		{`{"a":1}`, false},
		{`{"a":"x","n":-1}`, false},
		{`{}`, false},
	} {
		if err := c.Validate([]byte(tc.value)); (err == nil) != tc.ok || errors.Is(err, ErrCannotJudge) {
			t.Errorf("%s: %v, want ok=%v", tc.value, err, tc.ok)
		}
	}
	// What does not fit says where and why, never the value.
	for value, want := range map[string][2]string{
		`{"a":{"x":"` + strings.Repeat("v", 5000) + `"}}`:   {`at /properties/a: found "object", want a value of type "string"`, "a"},
		`{"a":"x","n":"` + strings.Repeat("v", 5000) + `"}`: {`at /$defs/count: found "string", want a value of type "integer"`, "n"},
	} {
		err := c.Validate([]byte(value))
		var inv *Invalid
		if !errors.As(err, &inv) || err.Error() != want[0] || inv.Property != want[1] {
			t.Errorf("%.40s: %v (property %q), want %s", value, err, inv.Property, want)
		}
	}
	// A value too costly to check against the schema is not judged.
	big := []byte(`{"a":"x","list":[` + strings.Repeat("1,", MaxCost/c.unfolded) + `1]}`)
	if err := c.Validate(big); !errors.Is(err, ErrCannotJudge) {
		t.Errorf("a value of %d bytes: %v", len(big), err)
	}
	if err := c.Validate([]byte(`{"a":"` + strings.Repeat("x", MaxCost) + `"}`)); err != nil {
		t.Errorf("one long string: %v", err)
	}
	deep := []byte(strings.Repeat(`{"a":`, 1000) + `"x"` + strings.Repeat(`}`, 1000))
	if err := c.Validate(deep); !errors.Is(err, ErrCannotJudge) {
		t.Errorf("a value 1000 deep: %v", err)
	}
	// The largest exponential schema judged still checks a value at once.
	n := 0
	for {
		if _, err := Compile([]byte(exponential(n + 1))); err != nil {
			break
		}
		n++
	}
	c, _ = Compile([]byte(exponential(n)))
	if err := c.Validate([]byte(`1`)); err == nil || errors.Is(err, ErrCannotJudge) {
		t.Errorf("1 against %d levels of anyOf: %v", n, err)
	}
}

// FuzzCompile: whatever the schema, compiling it and checking values
// against it neither panics nor runs away.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`{"$ref":"#"}`, exponential(4), `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"items":{"$ref":"#/items"}}`, `{"pattern":"("}`} {
		f.Add(s, `{"a":"x"}`)
	}
	f.Fuzz(func(t *testing.T, schema, value string) {
		c, err := Compile([]byte(schema))
		if err != nil {
			if !errors.Is(err, ErrCannotJudge) {
				t.Fatalf("%v is not ErrCannotJudge", err)
			}
			return
		}
		c.Validate([]byte(value))
	})
}
