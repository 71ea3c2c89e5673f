package reader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/pager"
)

// BenchmarkPageAt reads one 2,000-token page through a cursor near the
// start and near the end of a 16 MiB file: the two must cost the same (each
// read hashes the whole file once and fits one page).
func BenchmarkPageAt(b *testing.B) {
	fx := newFixtureCap(b, pager.O200kBase, 0)
	line := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 4) + "\n"
	text := strings.Repeat(line, (16<<20)/len(line))
	os.WriteFile(filepath.Join(fx.dir, "big.md"), []byte(text), 0o644)
	f, err := fx.rd.fs.Regular("big.md")
	if err != nil {
		b.Fatal(err)
	}
	ver, _, err := fx.rd.fs.Hash(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	for _, at := range []struct {
		name   string
		offset int64
	}{{"start", 8000}, {"end", int64(len(text)) - 50000}} {
		cur, err := fx.rd.cursors.Encode(cursor.State{Offset: at.offset, Version: ver.Short(), Issued: *fx.clock}, f.URI, "alice")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(at.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := fx.rd.Page(context.Background(), PageRequest{Name: "big.md", Subject: "alice", MaxTokens: 2000, Cursor: cur}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
