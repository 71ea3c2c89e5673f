package pager

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/tokencount"
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
	}{{tokencount.O200kBase, 300}, {tokencount.Cl100kBase, 1000}, {tokencount.Estimate, 150}} {
		t.Run(fmt.Sprintf("%s-%d", tc.counter, tc.budget), func(t *testing.T) {
			var got bytes.Buffer
			for _, p := range pageAll(t, counter(t, tc.counter), text, tc.budget) {
				got.Write(p.JSON)
				got.WriteByte('\n')
			}
			checkGolden(t, fmt.Sprintf("mixed.md.%s.%d.jsonl", tc.counter, tc.budget), got.Bytes())
		})
		t.Run(fmt.Sprintf("%s-%d-text", tc.counter, tc.budget), func(t *testing.T) {
			// Text pages, each as a JSON line of its block and its
			// content's length: they fit, and give back the file.
			c := counter(t, tc.counter)
			var got bytes.Buffer
			var rebuilt []byte
			for off := 0; ; {
				p, err := Fit(Request{Counter: c, MaxTokens: tc.budget, Format: Text, URI: testURI, Version: testVersion,
					Window: text[off:], EOF: true, Cursor: func(end int) string { return fakeCursor(off + end) }})
				if err != nil {
					t.Fatal(err)
				}
				d, err := p.Decode()
				if n := c.Count(string(p.JSON)); err != nil || n > tc.budget || n != p.Tokens || d.HasMore != p.HasMore {
					t.Fatalf("page at %d: %v, %d tokens (reported %d)", off, err, n, p.Tokens)
				}
				line, _ := json.Marshal(struct {
					Text         string `json:"text"`
					ContentBytes int    `json:"content_bytes"`
				}{string(p.JSON), p.End})
				got.Write(line)
				got.WriteByte('\n')
				rebuilt = append(rebuilt, d.Content...)
				if !p.HasMore {
					break
				}
				off += p.End
			}
			if !bytes.Equal(rebuilt, text) {
				t.Fatal("the text pages do not give back the file")
			}
			checkGolden(t, fmt.Sprintf("mixed.md.%s.%d.text.jsonl", tc.counter, tc.budget), got.Bytes())
		})
	}
}

// checkGolden compares got with the golden file name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pager -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("pages differ from %s (if the change is intended, rerun with -update)", path)
	}
}
