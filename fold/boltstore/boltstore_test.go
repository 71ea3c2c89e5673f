package boltstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/storetest"
	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/internal/mcptest"
)

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handles.db")
	s, err := Open(path, fold.DefaultStoreMaxBytes, nil)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Contract(t, s)
	// A second opener is refused while the file is held.
	if _, err := Open(path, fold.DefaultStoreMaxBytes, nil); err == nil {
		t.Error("a second process opened a held bolt file")
	}
	s.Close()
}

// TestKeepsAcrossReopen folds an answer, closes the store, opens it again
// with a new Folder (as a restarted server does), and reads the handle;
// records that expired while it was closed are swept on open.
func TestKeepsAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "handles.db")
	clk := mcptest.NewClock(time.Now())
	s, err := Open(path, fold.DefaultStoreMaxBytes, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	opt := fold.DefaultOptions()
	opt.TTL, opt.Now = time.Minute, clk.Now
	folded, err := storetest.Folder(t, s, opt).Fold(ctx, storetest.Owner, corpus.Listing(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(ctx, "short", []byte("x"), clk.Now().Add(time.Second))
	s.Close()

	clk.Add(2 * time.Second)
	s, err = Open(path, fold.DefaultStoreMaxBytes, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := storetest.Folder(t, s, opt).Query(ctx, storetest.Owner, fold.Query{Handle: folded.Handle, Path: "entries.999.path"})
	if err != nil || string(a.JSON) != `{"path":"entries.999.path","value":"dir5/file00999.go","total":17,"offset":0}` {
		t.Fatalf("after reopening: %s, %v", a.JSON, err)
	}
	var n int
	s.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(boltRecords).Stats().KeyN; return nil })
	if n != 1 {
		t.Errorf("%d records after the sweep, want 1", n)
	}
}

// TestByteBound: the store holds at most its byte bound, dropping the
// records that expire first, refuses a record over the whole bound, and
// counts what it holds again when reopened.
func TestByteBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bound.db")
	s, err := Open(path, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	storetest.ByteBound(t, s)
	s.Close()
	s, err = Open(path, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(context.Background(), "d", make([]byte, 400), time.Now().Add(time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	storetest.Holds(t, s, []string{"a", "b"}, []string{"c", "d"})
}

// BenchmarkStore folds and queries a 1 MiB answer in a bbolt file.
func BenchmarkStore(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "h.db"), fold.DefaultStoreMaxBytes, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.Benchmark(b, s)
}
