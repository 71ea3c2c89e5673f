// Package boltstore is the bbolt store of folded answers: handles that
// survive a restart of a single server.
package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/folio-mcp/folio/fold"
	bolt "go.etcd.io/bbolt"
)

// Store keeps records in a bbolt file, so that handles survive a
// restart, at most maxBytes of them: past that, those that expire first go
// first. One process at a time holds the file.
type Store struct {
	db       *bolt.DB
	now      func() time.Time
	maxBytes int64
	mu       sync.Mutex // held by Put, around its update
	bytes    int64      // the size of the records held
}

var (
	// boltRecords maps a key to its expiry (8 bytes, Unix milliseconds) and
	// record.
	boltRecords = []byte("records")
	// boltExpiry maps expiry+key to nothing, in expiry order, for sweeping.
	boltExpiry = []byte("expiry")
)

// Open opens or creates the bbolt file at path (mode 0600),
// bounded to maxBytes of records, and drops the records that expired while
// it was closed.
func Open(path string, maxBytes int64, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("bolt store %s: the byte bound must be positive", path)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("bolt store %s: %w (is another folio using it?)", path, err)
	}
	s := &Store{db: db, now: now, maxBytes: maxBytes}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{boltRecords, boltExpiry} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		s.bytes = 0
		if err := tx.Bucket(boltRecords).ForEach(func(_, v []byte) error {
			s.bytes += int64(len(v))
			return nil
		}); err != nil {
			return err
		}
		return s.sweep(tx, 0)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt store %s: %w", path, err)
	}
	return s, nil
}

// sweep drops the expired records, and then those that expire first until
// room bytes more fit in the bound. It runs inside an update, with s.mu
// held: when the update fails, the caller sets s.bytes back.
func (s *Store) sweep(tx *bolt.Tx, room int64) error {
	now := uint64(s.now().UnixMilli())
	records, expiry := tx.Bucket(boltRecords), tx.Bucket(boltExpiry)
	c := expiry.Cursor()
	for k, _ := c.First(); k != nil && (binary.BigEndian.Uint64(k) <= now || s.bytes+room > s.maxBytes); k, _ = c.First() {
		s.bytes -= int64(len(records.Get(k[8:])))
		if err := records.Delete(k[8:]); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// Put keeps record under key, after dropping the expired records and
// those that expire first past the byte bound. A record larger than the
// whole bound is refused.
func (s *Store) Put(_ context.Context, key string, record []byte, expires time.Time) error {
	size := int64(8 + len(record))
	if size > s.maxBytes {
		return fmt.Errorf("%w (%d bytes, the bound is %d)", fold.ErrRecordTooLarge, len(record), s.maxBytes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.bytes
	err := s.db.Update(func(tx *bolt.Tx) error {
		records, expiry := tx.Bucket(boltRecords), tx.Bucket(boltExpiry)
		if old := records.Get([]byte(key)); old != nil {
			if err := expiry.Delete(append(bytes.Clone(old[:8]), key...)); err != nil {
				return err
			}
			if err := records.Delete([]byte(key)); err != nil {
				return err
			}
			s.bytes -= int64(len(old))
		}
		if err := s.sweep(tx, size); err != nil {
			return err
		}
		at := binary.BigEndian.AppendUint64(nil, uint64(expires.UnixMilli()))
		if err := records.Put([]byte(key), append(bytes.Clone(at), record...)); err != nil {
			return err
		}
		s.bytes += size
		return expiry.Put(append(at, key...), nil)
	})
	if err != nil {
		s.bytes = before // the update was rolled back
	}
	return err
}

// Get returns the record under key.
func (s *Store) Get(_ context.Context, key string) ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(boltRecords).Get([]byte(key))
		if len(v) < 8 || int64(binary.BigEndian.Uint64(v)) <= s.now().UnixMilli() {
			return fold.ErrNotFound
		}
		out = bytes.Clone(v[8:])
		return nil
	})
	return out, err
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// HeldBytes is the bytes of the records held.
func (s *Store) HeldBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
