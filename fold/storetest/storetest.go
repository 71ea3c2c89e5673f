// Package storetest checks a fold.Store against the contract every store
// keeps, and measures one, for the tests of the stores' packages.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/tokencount"
)

// Contract runs the contract every Store keeps on s.
func Contract(t *testing.T, s fold.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, fold.ErrNotFound) {
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
	if _, err := s.Get(ctx, "gone"); !errors.Is(err, fold.ErrNotFound) {
		t.Errorf("Get of an expired record: %v", err)
	}
}

// ByteBound checks a store opened with a bound of 1,000 bytes: of three
// records of 400 bytes (expiring in the order put), the first is dropped,
// and a record of 2,000 bytes is refused.
func ByteBound(t *testing.T, s fold.Store) {
	t.Helper()
	soon := time.Now().Add(time.Hour)
	for i, k := range []string{"a", "b", "c"} {
		if err := s.Put(context.Background(), k, make([]byte, 400), soon.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	Holds(t, s, []string{"a"}, []string{"b", "c"})
	if err := s.Put(context.Background(), "huge", make([]byte, 2000), soon); !errors.Is(err, fold.ErrRecordTooLarge) {
		t.Errorf("a record over the bound: %v", err)
	}
	Holds(t, s, []string{"huge"}, []string{"b", "c"})
}

// Holds checks that s holds none of gone and all of kept.
func Holds(t *testing.T, s fold.Store, gone, kept []string) {
	t.Helper()
	for _, k := range gone {
		if _, err := s.Get(context.Background(), k); !errors.Is(err, fold.ErrNotFound) {
			t.Errorf("%s: %v, want it dropped", k, err)
		}
	}
	for _, k := range kept {
		if _, err := s.Get(context.Background(), k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

// Folder is a Folder over s with a fixed secret, the o200k_base counter and
// opt (fold.DefaultOptions when its threshold is 0).
func Folder(tb testing.TB, s fold.Store, opt fold.Options) *fold.Folder {
	tb.Helper()
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		tb.Fatal(err)
	}
	if opt.ThresholdBytes == 0 {
		now := opt.Now
		opt = fold.DefaultOptions()
		opt.Now = now
	}
	f, err := fold.New(bytes.Repeat([]byte{7}, fold.SecretLen), s, counter, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// Owner owns what the stores' tests fold.
var Owner = fold.Owner{Session: "session-7f3a9c", Subject: "alice"}

// Benchmark measures s under a Folder: Query of 20 entries from the middle
// of a folded 1 MiB answer (first, while the store holds only it), and
// Fold of that answer (parse, shape, preview, encrypt and store).
func Benchmark(b *testing.B, s fold.Store) {
	data := corpus.Listing(17500)
	f := Folder(b, s, fold.Options{})
	ctx := context.Background()
	b.Run("Query", func(b *testing.B) {
		folded, err := f.Fold(ctx, Owner, data, nil)
		if err != nil {
			b.Fatal(err)
		}
		offset := 8000
		for b.Loop() {
			if _, err := f.Query(ctx, Owner, fold.Query{Handle: folded.Handle, Path: "entries", Offset: &offset}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Fold", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := f.Fold(ctx, Owner, data, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
