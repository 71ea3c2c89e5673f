package fold

import (
	"context"
	"fmt"
	"slices"
	"strings"
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

// BenchmarkDeep follows a pointer to the bottom of an answer nested 1,000
// and 9,000 deep, of the same size (540 KB), and folds it: the costs stay
// those of reading the answer, whatever its depth.
func BenchmarkDeep(b *testing.B) {
	for _, depth := range []int{1000, 9000} {
		pad := strings.Repeat("p", 540_000/depth-len(`{"pad":"","a":}`))
		data := []byte(strings.Repeat(`{"pad":"`+pad+`","a":`, depth) + `"bottom"` + strings.Repeat(`}`, depth))
		segs := slices.Repeat([]string{"a"}, depth)
		b.Run(fmt.Sprintf("find/depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				if _, err := find(context.Background(), data, segs); err != nil {
					b.Fatal(err)
				}
			}
		})
		f := newTestFolder(b, NewMemoryStore(1, DefaultStoreMaxBytes, nil), nil, Options{})
		b.Run(fmt.Sprintf("fold/depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				if _, err := f.Fold(context.Background(), alice, data, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
