package redisstore

import (
	"context"
	"errors"
	"testing"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/storetest"
	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/internal/redistest"
	"github.com/folio-mcp/folio/toolerr"
)

func TestStore(t *testing.T) {
	s, err := Open(redistest.Shared(t).URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	storetest.Contract(t, s)
}

// TestStoreDown shows that a store that stops answering fails Fold (so the
// caller sends the answer whole) within the command timeout, and that a
// handle kept before is not found rather than misread.
func TestStoreDown(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	s, err := Open(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := storetest.Folder(t, s, fold.Options{})
	folded, err := f.Fold(ctx, storetest.Owner, corpus.Listing(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if _, err := f.Fold(ctx, storetest.Owner, corpus.Listing(1000), nil); err == nil {
		t.Fatal("Fold succeeded with Redis down")
	}
	_, err = f.Query(ctx, storetest.Owner, fold.Query{Handle: folded.Handle})
	if e := (*toolerr.Error)(nil); err == nil || errors.As(err, &e) && e.Code == toolerr.CodeHandleNotFound {
		t.Fatalf("Query with Redis down: %v, want a store error", err)
	}
}

func TestOpen(t *testing.T) {
	if _, err := Open("redis://host:notaport/0", nil); err == nil {
		t.Error("a bad URL opened")
	}
}

// BenchmarkStore folds and queries a 1 MiB answer in Redis.
func BenchmarkStore(b *testing.B) {
	s, err := Open(redistest.Shared(b).URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.Benchmark(b, s)
}
