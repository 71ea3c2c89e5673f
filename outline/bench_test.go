package outline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
)

// BenchmarkOutline reads the docs fixture's Markdown and HTML, and the Go
// source of net/http from the Go distribution (skipped without it), each
// file as a whole: bytes a second is the rate an index can take documents
// in (issue 36 asks for 10 MB of Markdown a second on one core).
func BenchmarkOutline(b *testing.B) {
	for _, kind := range []struct {
		name  string
		glob  []string
		parse func([]byte) *Doc
	}{
		{"markdown", []string{"../testdata/docsearch/corpus/*/*.md", "../testdata/docsearch/corpus/*/*/*/*.md"}, Markdown},
		{"html", []string{"../testdata/docsearch/corpus/*/*.html"}, HTML},
		{"go", goHTTP(), func(src []byte) *Doc { return Source(".go", src) }},
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
			if size == 0 {
				b.Skip("no files")
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, src := range docs {
					kind.parse(src)
				}
			}
		})
	}
}

// goHTTP is the glob of net/http's Go files in the Go distribution, none
// without it.
func goHTTP() []string {
	root, err := mcptest.GoRoot()
	if err != nil {
		return nil
	}
	return []string{filepath.Join(root, "src", "net", "http", "*.go")}
}
