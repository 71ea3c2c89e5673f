package fold_test

import (
	"testing"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Contract(t, fold.NewMemoryStore(10, fold.DefaultStoreMaxBytes, nil))
}

// TestMemoryStoreByteBound: the memory store holds at most its byte bound,
// dropping the oldest records, and refuses a record over the whole bound.
func TestMemoryStoreByteBound(t *testing.T) {
	storetest.ByteBound(t, fold.NewMemoryStore(100, 1000, nil))
}

// BenchmarkMemoryStore folds and queries a 1 MiB answer in the memory
// store.
func BenchmarkMemoryStore(b *testing.B) {
	storetest.Benchmark(b, fold.NewMemoryStore(1000, fold.DefaultStoreMaxBytes, nil))
}
