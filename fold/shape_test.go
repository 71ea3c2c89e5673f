package fold

import (
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
			v, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			got := "shape:   " + string(Marshal(Shape(v, shapeDepth))) + "\n" +
				"preview: " + string(Marshal(Preview(v, 2, 10, 0))) + "\n"
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
	v, _ := Parse([]byte(`[{"a":"xy","b":[1,2]},{"a":"xyz"},{"a":null,"b":[]}]`))
	got := string(Marshal(Shape(v, shapeDepth)))
	want := `{"type":"array","length":3,"items":{"type":"object","keys":{` +
		`"a":{"any_of":[{"type":"null"},{"type":"string","min_length":2,"max_length":3}]},` +
		`"b":{"type":"array","min_length":0,"max_length":2,"items":{"type":"number"},"optional":true}}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPreviewCutsCharactersNotBytes(t *testing.T) {
	v, _ := Parse([]byte(`{"s":"éé😀abc","l":[1,2,3],"m":{"x":1,"y":2,"z":3}}`))
	if got, want := string(Marshal(Preview(v, 2, 3, 0))), `{"s":"éé😀","l":[1,2],"m":{"x":1,"y":2,"z":3}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := string(Marshal(Preview(v, 1, 1, 2))), `{"s":"é","l":[1]}`; got != want {
		t.Errorf("with members: got %s, want %s", got, want)
	}
}
