package fold

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisTimeout bounds each Redis command, so that a stalled server costs a
// tool call at most this before the answer is sent whole.
const redisTimeout = time.Second

// RedisStore keeps records in Redis with its own expiry, so that replicas
// share handles.
type RedisStore struct{ client *redis.Client }

// OpenRedisStore connects to the Redis server that url names
// (redis://[user:password@]HOST:PORT/DB). A server that cannot be reached
// now is not an error: each Put and Get reports it.
func OpenRedisStore(url string) (*RedisStore, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("fold: redis store: %w", err)
	}
	opt.DialTimeout = redisTimeout
	opt.ReadTimeout = redisTimeout
	opt.WriteTimeout = redisTimeout
	opt.MaxRetries = 1
	return &RedisStore{client: redis.NewClient(opt)}, nil
}

// Ping checks that the server answers.
func (s *RedisStore) Ping(ctx context.Context) error {
	return s.client.Ping(ctx).Err()
}

// Put keeps record under key until expires.
func (s *RedisStore) Put(ctx context.Context, key string, record []byte, expires time.Time) error {
	return s.client.SetArgs(ctx, key, record, redis.SetArgs{ExpireAt: expires}).Err()
}

// Get returns the record under key.
func (s *RedisStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.client.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	}
	return b, err
}

// Close closes the connections.
func (s *RedisStore) Close() error { return s.client.Close() }
