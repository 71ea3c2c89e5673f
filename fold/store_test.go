package fold

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/folio-mcp/folio/internal/redistest"
	"github.com/folio-mcp/folio/toolerr"
)

// testStore runs the contract every Store keeps.
func testStore(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v", err)
	}
	soon := time.Now().Add(time.Hour)
	if err := s.Put(ctx, "k1", []byte("one"), soon); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k2", []byte{0, 1, 2, 255}, soon); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k1", []byte("uno"), soon); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"k1": "uno", "k2": "\x00\x01\x02\xff"} {
		got, err := s.Get(ctx, key)
		if err != nil || string(got) != want {
			t.Errorf("Get(%s) = %q, %v; want %q", key, got, err, want)
		}
	}
	if err := s.Put(ctx, "gone", []byte("x"), time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "gone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an expired record: %v", err)
	}
}

func TestMemoryStore(t *testing.T) {
	testStore(t, NewMemoryStore(10, DefaultStoreMaxBytes, nil))
}

func TestBoltStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "handles.db")
	s, err := OpenBoltStore(path, DefaultStoreMaxBytes, nil)
	if err != nil {
		t.Fatal(err)
	}
	testStore(t, s)
	// A second opener is refused while the file is held.
	if _, err := OpenBoltStore(path, DefaultStoreMaxBytes, nil); err == nil {
		t.Error("a second process opened a held bolt file")
	}
	s.Close()
}

// TestBoltStoreKeepsAcrossReopen folds an answer, closes the store, opens it
// again with a new Folder (as a restarted server does), and reads the
// handle; records that expired while it was closed are swept on open.
func TestBoltStoreKeepsAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "handles.db")
	clk := &clock{now: time.Now()}
	s, err := OpenBoltStore(path, DefaultStoreMaxBytes, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.TTL = time.Minute
	folded, err := newTestFolder(t, s, clk, opt).Fold(ctx, alice, bigListing(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(ctx, "short", []byte("x"), clk.Now().Add(time.Second))
	s.Close()

	clk.Add(2 * time.Second)
	s, err = OpenBoltStore(path, DefaultStoreMaxBytes, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := newTestFolder(t, s, clk, opt).Query(ctx, alice, Query{Handle: folded.Handle, Path: "entries.999.path"})
	if err != nil || string(a.JSON) != `{"path":"entries.999.path","value":"dir5/file00999.go","total":17,"offset":0}` {
		t.Fatalf("after reopening: %s, %v", a.JSON, err)
	}
	var n int
	s.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(boltRecords).Stats().KeyN; return nil })
	if n != 1 {
		t.Errorf("%d records after the sweep, want 1", n)
	}
}

func TestRedisStore(t *testing.T) {
	srv := redistest.Shared(t)
	s, err := OpenRedisStore(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	testStore(t, s)
}

// TestRedisStoreDown shows that a store that stops answering fails Fold
// (so the caller sends the answer whole) within the command timeout, and
// that a handle kept before is not found rather than misread.
func TestRedisStoreDown(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	s, err := OpenRedisStore(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := newTestFolder(t, s, nil, Options{})
	folded, err := f.Fold(ctx, alice, bigListing(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if _, err := f.Fold(ctx, alice, bigListing(1000), nil); err == nil {
		t.Fatal("Fold succeeded with Redis down")
	}
	_, err = f.Query(ctx, alice, Query{Handle: folded.Handle})
	if err == nil || isCode(err, toolerr.CodeHandleNotFound) {
		t.Fatalf("Query with Redis down: %v, want a store error", err)
	}
}

func TestOpenStore(t *testing.T) {
	for _, bad := range []string{"", "mem", "bolt:", "redis:/x", "postgres://x"} {
		if _, err := OpenStore(bad, StoreOptions{MaxEntries: 1}); err == nil {
			t.Errorf("OpenStore(%q) succeeded", bad)
		}
	}
	if _, err := OpenStore("memory", StoreOptions{}); err == nil {
		t.Error("a memory store of no entries opened")
	}
	s, err := OpenStore("bolt:"+filepath.Join(t.TempDir(), "x.db"), StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestStoreByteBound: the memory and bbolt stores hold at most their byte
// bound, dropping the oldest records, and refuse a record over the whole
// bound; bbolt counts what it holds again when reopened.
func TestStoreByteBound(t *testing.T) {
	ctx := context.Background()
	soon := time.Now().Add(time.Hour)
	record := make([]byte, 400)
	path := filepath.Join(t.TempDir(), "bound.db")
	check := func(t *testing.T, s Store, gone, kept []string) {
		t.Helper()
		for _, k := range gone {
			if _, err := s.Get(ctx, k); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: %v, want it dropped", k, err)
			}
		}
		for _, k := range kept {
			if _, err := s.Get(ctx, k); err != nil {
				t.Errorf("%s: %v", k, err)
			}
		}
	}
	bolt1, err := OpenBoltStore(path, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]Store{"memory": NewMemoryStore(100, 1000, nil), "bolt": bolt1} {
		t.Run(name, func(t *testing.T) {
			for i, k := range []string{"a", "b", "c"} {
				if err := s.Put(ctx, k, record, soon.Add(time.Duration(i)*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			check(t, s, []string{"a"}, []string{"b", "c"})
			if err := s.Put(ctx, "huge", make([]byte, 2000), soon); !errors.Is(err, ErrRecordTooLarge) {
				t.Errorf("a record over the bound: %v", err)
			}
			check(t, s, []string{"huge"}, []string{"b", "c"})
		})
	}
	bolt1.Close()
	bolt2, err := OpenBoltStore(path, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bolt2.Close()
	if err := bolt2.Put(ctx, "d", record, soon.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	check(t, bolt2, []string{"a", "b"}, []string{"c", "d"})
}
