package llmstxt_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/llmstxt"
)

// BenchmarkMake makes the two files of the docs fixture (testdata/docsearch:
// 38 files, 0.8 MB): what serve does on a resources/read or read of
// either when it has none cached.
func BenchmarkMake(b *testing.B) {
	dir, err := filepath.Abs("../testdata/docsearch")
	if err != nil {
		b.Fatal(err)
	}
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: fsview.DefaultDeny(), MaxFileBytes: fsview.DefaultMaxFileBytes})
	if err != nil {
		b.Fatal(err)
	}
	defer fs.Close()
	for _, bc := range []struct {
		name string
		full io.Writer
	}{{"index", nil}, {"full", io.Discard}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := llmstxt.Write(context.Background(), fs, dir, llmstxt.Options{}, bc.full); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
