package fold

import (
	"context"
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

// StoreOptions shape OpenStore.
type StoreOptions struct {
	// MaxEntries bounds the memory store; the oldest records go first.
	MaxEntries int
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
	switch {
	case spec == "memory":
		if opt.MaxEntries < 1 {
			return nil, fmt.Errorf("fold: the memory store needs room for at least one entry, not %d", opt.MaxEntries)
		}
		return NewMemoryStore(opt.MaxEntries, DefaultMemoryMaxBytes, opt.Now), nil
	case strings.HasPrefix(spec, "bolt:"):
		if len(spec) == len("bolt:") {
			return nil, fmt.Errorf("fold: store %q: give a file, as bolt:PATH", spec)
		}
		return OpenBoltStore(spec[len("bolt:"):], opt.Now)
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		return OpenRedisStore(spec)
	}
	return nil, fmt.Errorf("fold: unknown store %q: want memory, bolt:PATH or redis://HOST:PORT/DB", spec)
}
