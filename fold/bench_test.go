package fold

import (
	"testing"

	"github.com/folio-mcp/folio/internal/corpus"
)

// mebibyteAnswer is a listing of about 1 MiB.
func mebibyteAnswer() []byte { return corpus.Listing(17500) }

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
