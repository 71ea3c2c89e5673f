package fold

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Store keeps records (encrypted folded answers) until they expire. Keys
// and records are opaque to it. Implementations are safe for concurrent
// use.
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

// StoreOptions shape OpenStore.
type StoreOptions struct {
	// MaxEntries bounds the memory store; the oldest records go first.
	MaxEntries int
	// MaxBytes bounds the records a memory or bbolt store holds, in
	// bytes (DefaultStoreMaxBytes when 0): the oldest go first, and a
	// record over the whole bound is refused. Redis is bounded by its own
	// maxmemory (every record has an expiry, so volatile-ttl evicts them).
	MaxBytes int64
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// OpenStore opens the store that spec names: "memory", "bolt:PATH" (an
// embedded bbolt file, kept across restarts) or "redis://HOST:PORT/DB" (a
// Redis server, shared by replicas).
func OpenStore(spec string, opt StoreOptions) (Store, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultStoreMaxBytes
	}
	switch {
	case spec == "memory":
		if opt.MaxEntries < 1 {
			return nil, fmt.Errorf("fold: the memory store needs room for at least one entry, not %d", opt.MaxEntries)
		}
		return NewMemoryStore(opt.MaxEntries, int(opt.MaxBytes), opt.Now), nil
	case strings.HasPrefix(spec, "bolt:"):
		if len(spec) == len("bolt:") {
			return nil, fmt.Errorf("fold: store %q: give a file, as bolt:PATH", spec)
		}
		return OpenBoltStore(spec[len("bolt:"):], opt.MaxBytes, opt.Now)
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		return OpenRedisStore(spec)
	}
	return nil, fmt.Errorf("fold: unknown store %q: want memory, bolt:PATH or redis://HOST:PORT/DB", spec)
}
