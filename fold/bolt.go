package fold

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BoltStore keeps records in a bbolt file, so that handles survive a
// restart. One process at a time holds the file.
type BoltStore struct {
	db  *bolt.DB
	now func() time.Time
}

var (
	// boltRecords maps a key to its expiry (8 bytes, Unix milliseconds) and
	// record.
	boltRecords = []byte("records")
	// boltExpiry maps expiry+key to nothing, in expiry order, for sweeping.
	boltExpiry = []byte("expiry")
)

// OpenBoltStore opens or creates the bbolt file at path (mode 0600) and
// drops the records that expired while it was closed.
func OpenBoltStore(path string, now func() time.Time) (*BoltStore, error) {
	if now == nil {
		now = time.Now
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("fold: bolt store %s: %w (is another folio using it?)", path, err)
	}
	s := &BoltStore{db: db, now: now}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{boltRecords, boltExpiry} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return s.sweep(tx)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("fold: bolt store %s: %w", path, err)
	}
	return s, nil
}

// sweep drops the expired records.
func (s *BoltStore) sweep(tx *bolt.Tx) error {
	now := uint64(s.now().UnixMilli())
	records, expiry := tx.Bucket(boltRecords), tx.Bucket(boltExpiry)
	c := expiry.Cursor()
	for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= now; k, _ = c.First() {
		if err := records.Delete(k[8:]); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// Put keeps record under key, after dropping the expired records.
func (s *BoltStore) Put(_ context.Context, key string, record []byte, expires time.Time) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := s.sweep(tx); err != nil {
			return err
		}
		records, expiry := tx.Bucket(boltRecords), tx.Bucket(boltExpiry)
		if old := records.Get([]byte(key)); old != nil {
			if err := expiry.Delete(append(bytes.Clone(old[:8]), key...)); err != nil {
				return err
			}
		}
		at := binary.BigEndian.AppendUint64(nil, uint64(expires.UnixMilli()))
		if err := records.Put([]byte(key), append(bytes.Clone(at), record...)); err != nil {
			return err
		}
		return expiry.Put(append(at, key...), nil)
	})
}

// Get returns the record under key.
func (s *BoltStore) Get(_ context.Context, key string) ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(boltRecords).Get([]byte(key))
		if len(v) < 8 || int64(binary.BigEndian.Uint64(v)) <= s.now().UnixMilli() {
			return ErrNotFound
		}
		out = bytes.Clone(v[8:])
		return nil
	})
	return out, err
}

// Close closes the file.
func (s *BoltStore) Close() error { return s.db.Close() }
