package fold

import (
	"context"
	"errors"
	"time"
)

// Store keeps records (encrypted folded answers) until they expire. Keys
// and records are opaque to it. Implementations are safe for concurrent
// use: the memory store here, fold/boltstore and fold/redisstore, each
// held to fold/storetest; `folio serve --handle-store` finds them in
// cmd/folio's table of stores (stores.go).
type Store interface {
	// Put keeps record under key until expires.
	Put(ctx context.Context, key string, record []byte, expires time.Time) error
	// Get returns the record under key, or ErrNotFound when there is none
	// or it has expired.
	Get(ctx context.Context, key string) ([]byte, error)
	Close() error
}

// ErrRecordTooLarge: a record larger than the store's whole byte bound.
var ErrRecordTooLarge = errors.New("fold: the answer is larger than the handle store's byte bound")

// DefaultStoreMaxBytes bounds the bytes a memory or bbolt store holds:
// 256 MiB.
const DefaultStoreMaxBytes = 256 << 20
