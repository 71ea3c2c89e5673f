package fold

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/internal/redistest"
)

// benchStores opens each kind of store for a benchmark.
func benchStores(b *testing.B) map[string]func(b *testing.B) Store {
	return map[string]func(b *testing.B) Store{
		"memory": func(b *testing.B) Store { return NewMemoryStore(1000, DefaultStoreMaxBytes, nil) },
		"bolt": func(b *testing.B) Store {
			s, err := OpenBoltStore(filepath.Join(b.TempDir(), "h.db"), DefaultStoreMaxBytes, nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
		"redis": func(b *testing.B) Store {
			s, err := OpenRedisStore(redistest.Shared(b).URL)
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
	}
}

// mebibyteAnswer is a listing of about 1 MiB.
func mebibyteAnswer() []byte { return bigListing(17500) }

// BenchmarkFold folds a 1 MiB answer: parse, shape, preview, encrypt and
// store.
func BenchmarkFold(b *testing.B) {
	data := mebibyteAnswer()
	for _, name := range []string{"memory", "bolt", "redis"} {
		b.Run(name, func(b *testing.B) {
			store := benchStores(b)[name](b)
			defer store.Close()
			f := newTestFolder(b, store, nil, Options{})
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := f.Fold(context.Background(), alice, data, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQuery reads 20 entries from the middle of a folded 1 MiB answer.
func BenchmarkQuery(b *testing.B) {
	data := mebibyteAnswer()
	for _, name := range []string{"memory", "bolt", "redis"} {
		b.Run(name, func(b *testing.B) {
			store := benchStores(b)[name](b)
			defer store.Close()
			f := newTestFolder(b, store, nil, Options{})
			folded, err := f.Fold(context.Background(), alice, data, nil)
			if err != nil {
				b.Fatal(err)
			}
			offset := 8000
			for b.Loop() {
				if _, err := f.Query(context.Background(), alice, Query{Handle: folded.Handle, Path: "entries", Offset: &offset}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFoldParts splits the cost of folding a 1 MiB answer.
func BenchmarkFoldParts(b *testing.B) {
	data := mebibyteAnswer()
	b.Run("summarize", func(b *testing.B) {
		for b.Loop() {
			summarize(data, shapeDepth)
		}
	})
	f := newTestFolder(b, NewMemoryStore(1, DefaultStoreMaxBytes, nil), nil, Options{})
	sum, _ := summarize(data, shapeDepth)
	b.Run("describe", func(b *testing.B) {
		for b.Loop() {
			f.describe(data, sum, "handle", f.Threshold())
		}
	})
	b.Run("encrypt", func(b *testing.B) {
		_, aead, _ := f.keys("handle", alice)
		nonce := make([]byte, 12)
		out := make([]byte, 0, len(data)+aead.Overhead())
		for b.Loop() {
			aead.Seal(out[:0], nonce, data, nil)
		}
	})
}
