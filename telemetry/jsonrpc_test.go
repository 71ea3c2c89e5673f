package telemetry

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRequestID: the id of a JSON-RPC message is read wherever the
// object gives it, a string as its value and a number as written; a
// notification, a null id, a batch and what is not an object have none.
func TestRequestID(t *testing.T) {
	long := strings.Repeat(`x\"{[`, 1000)
	for _, tc := range []struct {
		body, id string
		ok       bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, "7", true},
		{`{"jsonrpc":"2.0","id":"request-7","method":"ping"}`, "request-7", true},
		{` { "id" : -12.5e3 , "method":"ping"}`, "-12.5e3", true},
		{`{"method":"tools/call","params":{"name":"a","arguments":{"id":1,"s":"` + long + `","n":[1,{"id":2}]}},"jsonrpc":"2.0","id":42}`, "42", true},
		{`{"params":{"id":"inner"},"id":"outer"}`, "outer", true},
		{`{"id":"a\"b\\c\u00e9"}`, "a\"b\\cé", true},
		{`{"\u0069d":3}`, "3", true},
		{`{"idx":1,"ID":2,"id":"3"}`, "3", true},
		{`{"method":"tools/call","params":{"id":1},"id":"a\\\"b\\"}`, "a\\\"b\\", true},
		{`{"method":"x","params":{"s":"\",\"id\":9}"}}`, "", false},
		{`{"params":{"id":5}}`, "", false},
		{`{"params":[{"id":5}]}`, "", false},
		{`{"k":"v","xid":5}`, "", false},
		{`{"k":"\"id":5}`, "", false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", false},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "", false},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", false},
		{`{"id":true}`, "", false},
		{`{"method":"ping","params":{"a":"unterminated`, "", false},
		{`{"id"`, "", false},
		{``, "", false},
		{`"id"`, "", false},
		{`{"a":1 "id":2}`, "", false},
	} {
		id, ok := RequestID([]byte(tc.body))
		if id != tc.id || ok != tc.ok {
			t.Errorf("%.80s: %q %v, want %q %v", tc.body, id, ok, tc.id, tc.ok)
		}
	}
	// An id given twice is one of them.
	for _, body := range []string{`{"id":1,"id":2}`, `{"id":1,"method":"ping","id":2}`, `{"id":1,"id":2,"method":"ping"}`} {
		if id, ok := RequestID([]byte(body)); !ok || (id != "1" && id != "2") {
			t.Errorf("%s: %q %v", body, id, ok)
		}
	}
}

// FuzzRequestID: on any JSON object whose members are all distinct,
// RequestID agrees with a JSON decoder about the id (a string's value, a
// number's text), and on any input it returns.
func FuzzRequestID(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"params":{"id":"x","a":[1,"]"]},"id":"y"}`, `{"id":"\\\""}`, `[1]`, `{"a":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		id, ok := RequestID(body)
		var members map[string]json.RawMessage
		if json.Unmarshal(body, &members) != nil || members == nil || !distinct(body) {
			return
		}
		want, wantOK := "", false
		if raw, has := members["id"]; has {
			var v any
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			d.Decode(&v)
			switch v := v.(type) {
			case string:
				want, wantOK = v, true
			case json.Number:
				want, wantOK = string(raw), true
			}
		}
		if id != want || ok != wantOK {
			t.Errorf("%q: %q %v, want %q %v", body, id, ok, want, wantOK)
		}
	})
}

// distinct reports whether the JSON object body names each of its
// members once.
func distinct(body []byte) bool {
	d := json.NewDecoder(bytes.NewReader(body))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey || seen[key] {
			return false
		}
		seen[key] = true
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return false
		}
	}
	return true
}

func TestIDText(t *testing.T) {
	for _, tc := range []struct {
		raw  any
		want string
	}{{float64(12345), "12345"}, {"a b", "a b"}, {nil, ""}} {
		id, err := jsonrpc.MakeID(tc.raw)
		if got := IDText(id); err != nil || got != tc.want {
			t.Errorf("%v: %q %v, want %q", tc.raw, got, err, tc.want)
		}
	}
}

// BenchmarkRequestID is what reading the id costs a request over HTTP:
// given first (as go-sdk and the Python SDK write it), and given last
// after 4 KiB of arguments (as the TypeScript SDK does).
func BenchmarkRequestID(b *testing.B) {
	args := `{"name":"write","arguments":{"path":"docs/a.md","lines":[1,2,3],"text":"` + strings.Repeat(`lorem ipsum dolor sit amet, \"quoted\"\n`, 100) + `"}}`
	for _, bc := range []struct{ name, body string }{
		{"first", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":` + args + `}`},
		{"last", `{"method":"tools/call","params":` + args + `,"jsonrpc":"2.0","id":17}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := []byte(bc.body)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := RequestID(body); !ok {
					b.Fatal("no id")
				}
			}
		})
	}
}
