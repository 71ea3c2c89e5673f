package fold

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

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
			if err := Valid(data); err != nil {
				t.Fatal(err)
			}
			got := "shape:   " + string(Marshal(Shape(data, shapeDepth))) + "\n" +
				"preview: " + string(Marshal(Preview(data, 2, 10, 0))) + "\n"
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
	v := []byte(` [{"a":"xy","b":[1,2]},{"a":"x\u0079z"} , {"a":null,"b":[]}] `)
	got := string(Marshal(Shape(v, shapeDepth)))
	want := `{"type":"array","length":3,"items":{"type":"object","keys":{` +
		`"a":{"any_of":[{"type":"null"},{"type":"string","min_length":2,"max_length":3}]},` +
		`"b":{"type":"array","min_length":0,"max_length":2,"items":{"type":"number"},"optional":true}}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPreviewCutsCharactersNotBytes(t *testing.T) {
	v := []byte(`{"s":"éé😀abc","l":[1,2,3],"m":{"x":1,"y":2,"z":3}}`)
	if got, want := string(Marshal(Preview(v, 2, 3, 0))), `{"s":"éé😀","l":[1,2],"m":{"x":1,"y":2,"z":3}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := string(Marshal(Preview(v, 1, 1, 2))), `{"s":"é","l":[1]}`; got != want {
		t.Errorf("with members: got %s, want %s", got, want)
	}
}

// FuzzShapeAndPreview: the shape and the preview read from the bytes of a
// value are the same as from its compact encoding, whatever its spacing,
// escapes or repeated keys.
func FuzzShapeAndPreview(f *testing.F) {
	for _, in := range []string{`{"a":[1,"x",{"b":null}],"a":{"c":"\u00e9"}}`, ` [ [ ] , { } , "\"]" ] `, `[true,false,1.5e3,"\ud83d\ude00"]`} {
		f.Add([]byte(in), uint8(3), uint8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, n uint8) {
		if Valid(data) != nil {
			return
		}
		v, _ := Parse(data)
		compact := Marshal(v)
		d := int(depth%10) + 1
		if a, b := Marshal(Shape(data, d)), Marshal(Shape(compact, d)); !bytes.Equal(a, b) {
			t.Fatalf("shape of %q: %s, of its compact form %s", data, a, b)
		}
		items, chars := int(n%7), int(n)
		if a, b := Marshal(Preview(data, items, chars, 0)), Marshal(Preview(compact, items, chars, 0)); !bytes.Equal(a, b) {
			t.Fatalf("preview of %q: %s, of its compact form %s", data, a, b)
		}
		if a := Marshal(Preview(data, 1<<30, 1<<30, 0)); !bytes.Equal(a, compact) {
			t.Fatalf("an uncut preview of %q is %s, not %s", data, a, compact)
		}
	})
}
