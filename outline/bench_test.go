package outline

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOutline reads the docs fixture's Markdown and HTML, each file
// as a whole: bytes a second is the rate an index can take documents in
// (issue 36 asks for 10 MB of Markdown a second on one core).
func BenchmarkOutline(b *testing.B) {
	for _, kind := range []struct {
		name  string
		glob  []string
		parse func([]byte) *Doc
	}{
		{"markdown", []string{"../testdata/docsearch/corpus/*/*.md", "../testdata/docsearch/corpus/*/*/*/*.md"}, Markdown},
		{"html", []string{"../testdata/docsearch/corpus/*/*.html"}, HTML},
	} {
		var docs [][]byte
		size := 0
		for _, g := range kind.glob {
			files, _ := filepath.Glob(g)
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				docs, size = append(docs, src), size+len(src)
			}
		}
		b.Run(kind.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, src := range docs {
					kind.parse(src)
				}
			}
		})
	}
}
