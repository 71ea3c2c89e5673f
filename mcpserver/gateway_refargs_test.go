package mcpserver

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRefArgs: the arguments X_uri that substitute fills in are found and
// counted without decoding them, as encoding/json reads them (a repeated
// key's last value, escaped keys and strings), and the arguments are
// rebuilt with X in their place (the value of reference j of argument i
// is the number 10i+j here), every other member as it came.
func TestRefArgs(t *testing.T) {
	const ref = "mcp+cache://AAAAAAAAAAAAAAAAAAAAAA"
	allowed := map[string]string{"data": "array", "text": "string"}
	for _, tc := range []struct {
		name, args string
		keys       []string
		total      int
		given      string
		expanded   string
	}{
		{"one", `{"text_uri":"` + ref + `"}`, []string{"text_uri"}, 1, "", `{"text":0}`},
		{"array", `{"data_uri":["` + ref + `","file:///x"],"n":1}`, []string{"data_uri"}, 2, "", `{"n":1,"data":[0,1]}`},
		{"two arguments", ` { "text_uri" : "` + ref + `" , "data_uri":["` + ref + `"],"keep":{"text_uri":1}} `, []string{"data_uri", "text_uri"}, 2, "", `{"keep":{"text_uri":1},"data":[0],"text":10}`},
		{"beside its argument", `{"data":[1],"data_uri":["` + ref + `"],"data":[2]}`, []string{"data_uri"}, 1, "data", `{"data":[0]}`},
		{"last value wins", `{"data_uri":["` + ref + `"],"data_uri":"plain"}`, nil, 0, "", ""},
		{"last reference wins", `{"data_uri":"plain","data_uri":["` + ref + `","` + ref + `"]}`, []string{"data_uri"}, 2, "", `{"data":[0,1]}`},
		{"escaped", `{"data\u005furi":["\u006dcp+cache://AAAAAAAAAAAAAAAAAAAAAA"],"t\u0065xt":1}`, []string{"data_uri"}, 1, "text", `{"t\u0065xt":1,"data":[0]}`},
		{"FILE scheme", `{"text_uri":"FILE:///x"}`, []string{"text_uri"}, 1, "", `{"text":0}`},
		{"not every item a reference", `{"data_uri":["` + ref + `",1]}`, nil, 0, "", ""},
		{"no items", `{"data_uri":[]}`, nil, 0, "", ""},
		{"another scheme", `{"text_uri":"https://example.com"}`, nil, 0, "", ""},
		{"not invited", `{"other_uri":"` + ref + `"}`, nil, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := scanRefArgs([]byte(tc.args), allowed)
			if !ok {
				t.Fatalf("%s: not read", tc.args)
			}
			var keys []string
			values := make([][]json.RawMessage, len(a.list))
			for i, arg := range a.list {
				keys = append(keys, arg.key)
				for j, uri := range arg.uris() {
					if !isReference(uri) {
						t.Errorf("%s: %q read as a reference", tc.args, uri)
					}
					values[i] = append(values[i], json.RawMessage(strconv.Itoa(10*i+j)))
				}
			}
			if a.total != tc.total || !slices.Equal(keys, tc.keys) || tc.given != "" && !a.given[tc.given] {
				t.Errorf("%s: %d references in %v (given %v), want %d in %v", tc.args, a.total, keys, a.given, tc.total, tc.keys)
			}
			if len(a.list) == 0 {
				return
			}
			got := a.expand(values)
			if string(got) != tc.expanded || !json.Valid(got) {
				t.Errorf("%s expanded: %s, want %s", tc.args, got, tc.expanded)
			}
		})
	}
	for _, bad := range []string{`[1]`, `{"data_uri":`, `{"data_uri":"` + ref + `"} x`, `{"data_uri":["` + ref + `"}`, `"x"`, ``} {
		if _, ok := scanRefArgs([]byte(bad), allowed); ok {
			t.Errorf("%q read as arguments", bad)
		}
	}
}

// TestRefArgsCountUnbuilt: references are counted, and other members
// passed, without an allocation for each: 100,000 cost what 10 do
// (decoding 100,000 references into strings took 100,000 allocations, and
// 8.4 MB, before the count refused them).
func TestRefArgsCountUnbuilt(t *testing.T) {
	const ref = `"mcp+cache://AAAAAAAAAAAAAAAAAAAAAA"`
	allowed := map[string]string{"data": "array"}
	for _, tc := range []struct {
		name  string
		args  func(n int) string
		total func(n int) int
	}{
		{"references", func(n int) string {
			return `{"pad":"` + strings.Repeat("x", 1000) + `","data_uri":[` + strings.Repeat(ref+",", n-1) + ref + `]}`
		}, func(n int) int { return n }},
		{"other members", func(n int) string {
			return `{` + strings.Repeat(`"x":[1,{"y":"z"}],`, n) + `"data_uri":` + ref + `}`
		}, func(int) int { return 1 }},
		{"one key again and again", func(n int) string {
			return `{` + strings.Repeat(`"data_uri":`+ref+`,`, n) + `"data":1}`
		}, func(int) int { return 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs := map[int]float64{}
			for _, n := range []int{10, 100_000} {
				args := []byte(tc.args(n))
				allocs[n] = testing.AllocsPerRun(5, func() {
					if a, ok := scanRefArgs(args, allowed); !ok || a.total != tc.total(n) {
						t.Fatalf("%d: references not counted", n)
					}
				})
				a, _ := scanRefArgs(args, allowed)
				if refused := tooManyReferences(a) != nil; refused != (a.total > MaxReferences) {
					t.Errorf("%d references: refused %v", a.total, refused)
				}
			}
			if allocs[100_000] > allocs[10] {
				t.Errorf("100,000: %.0f allocations, 10: %.0f", allocs[100_000], allocs[10])
			}
		})
	}
}

// FuzzRefArgs: the walk finds the references encoding/json finds (the
// arguments decoded into a map, each X_uri's value into a string or a
// list of strings), and the arguments it rebuilds decode to that map with
// each X_uri made X.
func FuzzRefArgs(f *testing.F) {
	for _, seed := range []string{
		`{"data_uri":["mcp+cache://A","file:///x"],"n":1}`, `{"text_uri":"mcp+cache://A","text":1}`,
		`{"data\u005furi":"\u006dcp+cache://A"}`, `{"data_uri":[],"data_uri":"FILE://x"}`, `{"data_uri":["mcp+cache://A",2]}`, `[]`, `{"a":{"data_uri":"mcp+cache://A"}}`,
	} {
		f.Add([]byte(seed))
	}
	allowed := map[string]string{"data": "array", "text": "string"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want map[string]json.RawMessage
		isObject := json.Unmarshal(raw, &want) == nil && want != nil
		a, ok := scanRefArgs(raw, allowed)
		if ok != isObject {
			t.Fatalf("%q: read %v, encoding/json %v", raw, ok, isObject)
		}
		if !ok {
			return
		}
		total := 0
		for _, key := range slices.Sorted(maps.Keys(want)) {
			name, isRef := strings.CutSuffix(key, uriSuffix)
			if _, invited := allowed[name]; !isRef || !invited {
				continue
			}
			var one string
			var list []string
			switch {
			case json.Unmarshal(want[key], &one) == nil && isReference(one):
				total++
				list = []string{one}
			case json.Unmarshal(want[key], &list) == nil && len(list) > 0 && !slices.ContainsFunc(list, func(s string) bool { return !isReference(s) }):
				total += len(list)
			default:
				continue
			}
			i := slices.IndexFunc(a.list, func(arg refArg) bool { return arg.key == key })
			if i < 0 || !slices.Equal(a.list[i].uris(), list) {
				t.Fatalf("%q: %s read as %v", raw, key, a.list)
			}
			want[name] = json.RawMessage(`"` + strconv.Itoa(i) + `"`)
			delete(want, key)
		}
		if a.total != total {
			t.Fatalf("%q: %d references, encoding/json %d", raw, a.total, total)
		}
		values := make([][]json.RawMessage, len(a.list))
		for i, arg := range a.list {
			for range arg.n {
				values[i] = append(values[i], json.RawMessage(`"`+strconv.Itoa(i)+`"`))
			}
			if arg.many {
				want[arg.name], _ = json.Marshal(values[i])
			}
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(a.expand(values), &got); err != nil || !maps.EqualFunc(got, want, func(x, y json.RawMessage) bool { return bytes.Equal(compact(x), compact(y)) }) {
			t.Fatalf("%q expanded: %s (%v), want %v", raw, a.expand(values), err, want)
		}
	})
}

func compact(v json.RawMessage) []byte {
	var b bytes.Buffer
	json.Compact(&b, v)
	return b.Bytes()
}
