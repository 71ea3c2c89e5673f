package fold

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// MemoryStore keeps records in this process, at most maxEntries of them and
// maxBytes in all; past either bound the oldest go first.
type MemoryStore struct {
	maxEntries, maxBytes int
	now                  func() time.Time

	mu    sync.Mutex
	bytes int
	order *list.List // of *memoryEntry, oldest first
	index map[string]*list.Element
}

type memoryEntry struct {
	key     string
	record  []byte
	expires time.Time
}

// NewMemoryStore returns an empty store with the given bounds.
func NewMemoryStore(maxEntries, maxBytes int, now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{maxEntries: maxEntries, maxBytes: maxBytes, now: now, order: list.New(), index: map[string]*list.Element{}}
}

// Put keeps record, dropping expired records and then the oldest ones past
// the bounds. A record larger than the byte bound is refused.
func (m *MemoryStore) Put(_ context.Context, key string, record []byte, expires time.Time) error {
	if len(record) > m.maxBytes {
		return fmt.Errorf("%w (%d bytes, the bound is %d)", ErrRecordTooLarge, len(record), m.maxBytes)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.index[key]; ok {
		m.remove(e)
	}
	// Records expire in about the order they came in: sweep from the front.
	now := m.now()
	for e := m.order.Front(); e != nil && !now.Before(e.Value.(*memoryEntry).expires); e = m.order.Front() {
		m.remove(e)
	}
	for m.order.Len() > 0 && (m.order.Len() >= m.maxEntries || m.bytes+len(record) > m.maxBytes) {
		m.remove(m.order.Front())
	}
	m.index[key] = m.order.PushBack(&memoryEntry{key: key, record: record, expires: expires})
	m.bytes += len(record)
	return nil
}

func (m *MemoryStore) remove(e *list.Element) {
	me := m.order.Remove(e).(*memoryEntry)
	delete(m.index, me.key)
	m.bytes -= len(me.record)
}

// Get returns the record under key.
func (m *MemoryStore) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.index[key]
	if !ok {
		return nil, ErrNotFound
	}
	me := e.Value.(*memoryEntry)
	if !m.now().Before(me.expires) {
		m.remove(e)
		return nil, ErrNotFound
	}
	return me.record, nil
}

// Len is the number of records held, expired ones included until they are
// swept.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

// Close drops every record.
func (m *MemoryStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.order.Init()
	m.index = map[string]*list.Element{}
	m.bytes = 0
	return nil
}

// HeldBytes is the bytes of the records held (expired ones included until
// the next Put sweeps them).
func (m *MemoryStore) HeldBytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(m.bytes)
}
