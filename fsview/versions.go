package fsview

import (
	"container/list"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// MaxRememberedVersions bounds the version cache: each entry is about 150
// bytes, so the cache holds at most about 2.5 MiB, shared by every view of
// one FS.
const MaxRememberedVersions = 16384

// TimeGranularity is how much older than the start of its hashing a file's
// mtime and ctime must be for its remembered version to be trusted: more
// than the timestamp granularity of any filesystem folio serves (FAT's 2 s;
// ext4 and tmpfs keep nanoseconds, but stamp them from a clock that ticks
// every few milliseconds).
const TimeGranularity = 2 * time.Second

// versionCache remembers the versions of files by what proves them
// unchanged: device, inode, size, and mtime and ctime in nanoseconds. A
// remembered version is trusted only while all of those are the same, and
// only when the file's mtime and ctime are older than the moment its
// hashing began by more than TimeGranularity: git's rule for "racily
// clean" index entries, since a rewrite within one clock tick keeps the
// size and the times. A file written since is hashed again. It is safe for
// concurrent use.
type versionCache struct {
	// granularity is TimeGranularity (tests make it shorter).
	granularity time.Duration

	mu      sync.Mutex
	entries map[fileID]*list.Element
	order   *list.List // of *versionEntry, least recently used first
}

type fileID struct{ dev, ino uint64 }

// fileStamp is what changes when a file's content may have.
type fileStamp struct {
	size, mtime, ctime int64
}

type versionEntry struct {
	id      fileID
	stamp   fileStamp
	version Version
	// text: the whole file passed the text check when it was hashed.
	text bool
	// hashed is when its hashing began.
	hashed time.Time
}

func newVersionCache() *versionCache {
	return &versionCache{granularity: TimeGranularity, entries: map[fileID]*list.Element{}, order: list.New()}
}

func idOf(st *unix.Stat_t) fileID { return fileID{uint64(st.Dev), st.Ino} }

func stampOf(st *unix.Stat_t) fileStamp {
	return fileStamp{st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
}

// lookup is the remembered version of the file st describes, when it can
// be trusted (and, when text is set, the file was text).
func (c *versionCache) lookup(st *unix.Stat_t, text bool) (Version, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[idOf(st)]
	if !ok {
		return Version{}, false
	}
	e := el.Value.(*versionEntry)
	stamp := stampOf(st)
	settled := e.hashed.Add(-c.granularity).UnixNano()
	if e.stamp != stamp || stamp.mtime >= settled || stamp.ctime >= settled || (text && !e.text) {
		return Version{}, false
	}
	c.order.MoveToBack(el)
	return e.version, true
}

// store remembers the version of the file st describes, whose hashing
// began at hashed; text says it passed the text check. st must be what
// the file's stat said both before and after the hashing.
func (c *versionCache) store(st *unix.Stat_t, v Version, text bool, hashed time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := idOf(st)
	if el, ok := c.entries[id]; ok {
		c.order.Remove(el)
	}
	c.entries[id] = c.order.PushBack(&versionEntry{id: id, stamp: stampOf(st), version: v, text: text, hashed: hashed})
	for c.order.Len() > MaxRememberedVersions {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*versionEntry).id)
	}
}

// Settled reports whether f's mtime and ctime, as it was resolved, are
// older than now by more than TimeGranularity: a version read from now on
// can be trusted, so that what is made of it (a line index) serves the
// reads that follow.
func (v *FS) Settled(f File) bool {
	if f.info == nil || f.made != nil {
		return false
	}
	settled := time.Now().Add(-v.shared.versions.granularity).UnixNano()
	return f.info.st.Mtim.Nano() < settled && f.info.st.Ctim.Nano() < settled
}
