// Package redisstore is the Redis store of folded answers: handles shared
// by replicas.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/folio-mcp/folio/fold"
	"github.com/redis/go-redis/v9"
)

// redisTimeout bounds each Redis command, so that a stalled server costs a
// tool call at most this before the answer is sent whole.
const redisTimeout = time.Second

// Store keeps records in Redis with its own expiry, so that replicas
// share handles.
type Store struct{ client *redis.Client }

// Open connects to the Redis server that url names
// (redis://[user:password@]HOST:PORT/DB). A server that cannot be reached
// now is not an error: each Put and Get reports it. go-redis's own messages
// go to log at debug level (nil: nowhere), since folio warns of a failed
// store itself.
func Open(url string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	redis.SetLogger(redisLog{log})
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis store: %w", err)
	}
	opt.DialTimeout = redisTimeout
	opt.ReadTimeout = redisTimeout
	opt.WriteTimeout = redisTimeout
	opt.MaxRetries = 1
	return &Store{client: redis.NewClient(opt)}, nil
}

// Ping checks that the server answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.client.Ping(ctx).Err()
}

// Put keeps record under key until expires.
func (s *Store) Put(ctx context.Context, key string, record []byte, expires time.Time) error {
	return s.client.SetArgs(ctx, key, record, redis.SetArgs{ExpireAt: expires}).Err()
}

// Get returns the record under key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.client.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fold.ErrNotFound
	}
	return b, err
}

// Close closes the connections.
func (s *Store) Close() error { return s.client.Close() }

// redisLog passes go-redis's messages to a logger at debug level.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
