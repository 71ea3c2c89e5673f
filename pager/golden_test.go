package pager

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden pins the exact bytes of the pages of a fixture that holds every
// hard case: BOM, CRLF, lone CR, quotes, backslashes, controls, U+2028, NEL,
// emoji sequences, CJK, raw HTML, runs, no final newline.
func TestGolden(t *testing.T) {
	text, err := os.ReadFile("../testdata/mixed.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		counter string
		budget  int
	}{{O200kBase, 300}, {Cl100kBase, 1000}, {Estimate, 150}} {
		t.Run(fmt.Sprintf("%s-%d", tc.counter, tc.budget), func(t *testing.T) {
			var got bytes.Buffer
			for _, p := range pageAll(t, counter(t, tc.counter), text, tc.budget) {
				got.Write(p.JSON)
				got.WriteByte('\n')
			}
			path := filepath.Join("..", "testdata", "golden", fmt.Sprintf("mixed.md.%s.%d.jsonl", tc.counter, tc.budget))
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./pager -run TestGolden -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("pages differ from %s (if the change is intended, rerun with -update)", path)
			}
		})
	}
}
