package fold

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// shape is the rendered shape of data.
func shape(data []byte, depth int) (any, error) {
	s, err := summarize(data, depth)
	if err != nil {
		return nil, err
	}
	return s.render(depth), nil
}

// TestShapeAndPreviewGolden checks the shape and the preview of nested,
// heterogeneous, deep and wide values against testdata/shape/*.golden.
func TestShapeAndPreviewGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/shape/*.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			sh, err := shape(data, shapeDepth)
			if err != nil {
				t.Fatal(err)
			}
			got := "shape:   " + string(jsonvalue.Marshal(sh)) + "\n" +
				"preview: " + string(jsonvalue.Marshal(preview(data, 2, 10, 0))) + "\n"
			golden := strings.TrimSuffix(in, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestShapeMergesItems(t *testing.T) {
	sh, err := shape([]byte(` [{"a":"xy","b":[1,2]},{"\u0061":"x\u0079z"} , {"a":null,"b":[]}] `), shapeDepth)
	if err != nil {
		t.Fatal(err)
	}
	got := string(jsonvalue.Marshal(sh))
	want := `{"type":"array","length":3,"items":{"type":"object","keys":{` +
		`"a":{"any_of":[{"type":"null"},{"type":"string","min_length":2,"max_length":3}]},` +
		`"b":{"type":"array","min_length":0,"max_length":2,"items":{"type":"number"},"optional":true}}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPreviewCutsCharactersNotBytes(t *testing.T) {
	v := []byte(`{"s":"éé😀abc","l":[1,2,3],"m":{"x":1,"y":2,"z":3}}`)
	if got, want := string(jsonvalue.Marshal(preview(v, 2, 3, 0))), `{"s":"éé😀","l":[1,2],"m":{"x":1,"y":2,"z":3}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := string(jsonvalue.Marshal(preview(v, 1, 1, 2))), `{"s":"é","l":[1]}`; got != want {
		t.Errorf("with members: got %s, want %s", got, want)
	}
}

// FuzzShapeAndPreview: summarize accepts exactly what parse accepts, and the
// shape and the preview read from the bytes of a value are those of its
// compact encoding (when it nests no deeper than a preview shows), whatever its spacing or escapes (a repeated key, which
// the compact form drops, aside).
func FuzzShapeAndPreview(f *testing.F) {
	f.Add([]byte(strings.Repeat(`{"a":[`, 9)+`1`+strings.Repeat(`]}`, 9)), uint8(3), uint8(200))
	for _, in := range []string{`{"a":[1,"x",{"b":null}],"c":{"d":"\u00e9"}}`, ` [ [ ] , { } , "\"]" ] `, `[true,false,1.5e3,"\ud83d\ude00"]`, `[1,]`, `{"a":1,"a":[2]}`, `[{"a":1},{"\u0061":"x"},{"a":true}]`, "[{\"\xff\":1},{\"\ufffd\":2}]"} {
		f.Add([]byte(in), uint8(3), uint8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, n uint8) {
		d := int(depth%10) + 1
		sh, err := shape(data, d)
		v, perr := jsonvalue.Parse(data)
		if (err == nil) != (perr == nil) {
			t.Fatalf("summarize error %v, parse error %v", err, perr)
		}
		if err != nil {
			return
		}
		compact := jsonvalue.Marshal(v)
		items, chars := int(n%7), int(n)
		if a, b := jsonvalue.Marshal(preview(data, items, chars, 0)), jsonvalue.Marshal(preview(compact, items, chars, 0)); !bytes.Equal(a, b) {
			t.Fatalf("preview of %q: %s, of its compact form %s", data, a, b)
		}
		if a := jsonvalue.Marshal(preview(data, 1<<30, 1<<30, 0)); nesting(compact) <= previewDepth && !bytes.Equal(a, compact) {
			t.Fatalf("an uncut preview of %q is %s, not %s", data, a, compact)
		}
		if repeatsKeys(data) {
			return
		}
		if b, _ := shape(compact, d); !bytes.Equal(jsonvalue.Marshal(sh), jsonvalue.Marshal(b)) {
			t.Fatalf("shape of %q: %s, of its compact form %s", data, jsonvalue.Marshal(sh), jsonvalue.Marshal(b))
		}
	})
}

// repeatsKeys reports whether some object in data repeats a key, which
// parse keeps once.
func repeatsKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return true
				}
				stack[n-1].keys[k], stack[n-1].wantKey = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: an object around it wants a key next.
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
}

func TestRepeatsKeys(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":1,"a":[2]}`:             true,
		`{"a":{"b":1},"c":{"b":2}}`:   false,
		`[{"a":1},{"a":2}]`:           false,
		`{"a":[{"x":1,"y":2,"x":3}]}`: true,
		`{"a":"a","b":{"a":1}}`:       false,
	} {
		if got := repeatsKeys([]byte(in)); got != want {
			t.Errorf("repeatsKeys(%s) = %v", in, got)
		}
	}
}

// nesting is how deep the lists and objects of the compact JSON d nest.
func nesting(d []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(d); i++ {
		switch c := d[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// TestPreviewDepth: a preview shows 16 levels; deeper lists and objects
// come out empty.
func TestPreviewDepth(t *testing.T) {
	deep := []byte(strings.Repeat(`{"a":[`, 10) + `1` + strings.Repeat(`]}`, 10))
	want := strings.Repeat(`{"a":[`, 8) + `{}` + strings.Repeat(`]}`, 8)
	if got := string(jsonvalue.Marshal(preview(deep, 5, 5, 0))); got != want {
		t.Errorf("preview %s, want %s", got, want)
	}
}

// TestShapeKeysSpelledApart: a key met plainly and with escapes, or as
// invalid UTF-8 and as U+FFFD, is one key of the shape, as encoding/json
// reads them.
func TestShapeKeysSpelledApart(t *testing.T) {
	sh, err := shape([]byte("[{\"a\":1},{\"\\u0061\":2},{\"\xff\":3},{\"\\ufffd\":4}]"), 3)
	if err != nil {
		t.Fatal(err)
	}
	got := string(jsonvalue.Marshal(sh))
	if strings.Count(got, `"a"`) != 1 || strings.Count(got, "\ufffd") != 1 {
		t.Fatalf("shape %s", got)
	}
}
