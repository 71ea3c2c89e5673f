package fsview

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sys/unix"
)

// Version is the BLAKE3 hash of a file's exact bytes.
type Version [32]byte

// VersionLen is how many bytes of the hash the version string shows: 128
// bits, the first 32 hex digits of b3sum's output. It must equal
// cursor.VersionLen: reader puts a Short into a cursor, so the build fails
// when they differ.
const VersionLen = 16

// String is the version as pages carry it: the first 32 hex digits of the
// BLAKE3 hash, a prefix of what b3sum prints.
func (v Version) String() string { return hex.EncodeToString(v[:VersionLen]) }

// Short is the part of the version that the string shows.
func (v Version) Short() [VersionLen]byte { return [VersionLen]byte(v[:VersionLen]) }

// Snapshot is one consistent read of a text file: its size and version over
// all its bytes, and a window of those same bytes.
type Snapshot struct {
	File
	Size    int64
	Version Version
	// Offset is where Window starts.
	Offset int64
	// Window holds the bytes [Offset, Offset+len(Window)).
	Window []byte

	// room is what the window holds of gate, the FS's read memory, or
	// (lent non-nil) of a Room's reserve.
	gate *semaphore.Weighted
	room int64
	lent *Room
}

// Release gives the snapshot's room in the read memory back (see
// Options.ReadMemory), once the caller is done with the window: its bytes
// stay valid, but no longer count. A second call does nothing.
func (s *Snapshot) Release() {
	switch {
	case s.lent != nil:
		s.lent.giveBack(s.room)
	case s.room > 0:
		s.gate.Release(s.room)
	}
	s.room, s.lent = 0, nil
}

// Keep says that n bytes made from the window (an answer) outlive the
// snapshot: when ctx carries a Room of the same read memory (see
// KeepRoom), up to n bytes of the snapshot's room move to it, and Release
// gives back only the rest. Nothing waits. (A window read on a Room's
// reserve is counted there already.)
func (s *Snapshot) Keep(ctx context.Context, n int64) {
	r, _ := ctx.Value(roomKey{}).(*Room)
	if r == nil || r.gate != s.gate || s.lent != nil {
		return
	}
	k := min(max(n, 0), s.room)
	s.room -= k
	r.add(k)
}

// Room is read memory that outlives the reads that took it: an answer
// made of what a request read counts against the read memory until it is
// written, not only while the file is read, so that slow clients together
// hold at most the read memory however many answers they leave unread.
// An answer costs more than its bytes while it is written (it is copied
// on its way to the wire): a Room counts each byte of an answer copies
// times more.
type Room struct {
	gate   *semaphore.Weighted
	limit  int64
	copies int64

	mu       sync.Mutex
	size     int64 // held of the gate
	lent     int64 // of size, lent to the windows of snapshots
	reserved bool  // the next reads are made on the room (see Reserve)
	released bool
}

type roomKey struct{}

// KeepRoom returns ctx carrying a new, empty Room of v's read memory,
// whose answers cost copies more times their bytes: snapshots read under
// it can Keep part of their room in it, or read on its reserve (see
// Reserve).
func (v *FS) KeepRoom(ctx context.Context, copies int) (context.Context, *Room) {
	r := &Room{gate: v.shared.gate, limit: v.shared.memorySize, copies: int64(max(copies, 0))}
	return context.WithValue(ctx, roomKey{}, r), r
}

// Reserve says that a read of up to read bytes under ctx is about to
// become an answer of up to answer bytes (a page): when ctx carries a
// Room, the room of the read and of the answer's copies is taken at once,
// before either is made (waiting for it, or for ctx to end), and the reads
// that follow under ctx are made on it (a window larger than was reserved
// takes the rest first). Without a Room it does nothing.
func Reserve(ctx context.Context, read, answer int64) error {
	r, _ := ctx.Value(roomKey{}).(*Room)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	r.reserved = true
	r.mu.Unlock()
	return r.Take(ctx, read+answer*r.copies)
}

// Size is the bytes r holds.
func (r *Room) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.size
}

// Answer says that an answer of n bytes was made under r: unless r holds
// enough already, it takes what the answer and its copies need.
func (r *Room) Answer(ctx context.Context, n int64) error {
	return r.Take(ctx, n*(1+r.copies)-r.Size())
}

// Take holds n more bytes of the read memory, never more than all of it
// in one room. When they are not free, the room gives back what it holds
// and waits for the whole at once (or for ctx to end, when it holds
// nothing), so that no one waits holding room; while a window is read on
// the room's reserve, it takes only what is free.
func (r *Room) Take(ctx context.Context, n int64) error {
	r.mu.Lock()
	n = min(max(n, 0), r.limit-r.size)
	r.mu.Unlock()
	if n == 0 || r.gate.TryAcquire(n) {
		r.add(n)
		return nil
	}
	r.mu.Lock()
	if r.lent > 0 {
		// A window is read on this room: what it holds stays.
		r.mu.Unlock()
		return nil
	}
	whole := r.size + n
	if !r.released {
		r.gate.Release(r.size)
		r.size = 0
	}
	r.mu.Unlock()
	if err := r.gate.Acquire(ctx, whole); err != nil {
		return err
	}
	r.add(whole)
	return nil
}

// borrow lends n bytes of r's reserve to a window, taking first what the
// reserve lacks (the file grew since it was reserved), as Take does.
func (r *Room) borrow(ctx context.Context, n int64) error {
	if r.lend(n) {
		return nil
	}
	r.mu.Lock()
	short := n - (r.size - r.lent)
	r.mu.Unlock()
	if err := r.Take(ctx, short); err != nil {
		return err
	}
	if !r.lend(n) {
		return fmt.Errorf("a window of %d bytes is read on a room that holds another", n)
	}
	return nil
}

// lend takes n bytes of r's free reserve for a window, if it has them.
func (r *Room) lend(n int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released || r.size-r.lent < n {
		return false
	}
	r.lent += n
	return true
}

// giveBack ends the loan of n bytes to a window; r keeps holding them.
func (r *Room) giveBack(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.released {
		r.lent -= n
	}
}

// add holds n bytes already taken from the gate; a released room gives
// them back at once.
func (r *Room) add(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released {
		r.gate.Release(n)
		return
	}
	r.size += n
}

// Release gives back all r holds; a room released holds nothing more.
func (r *Room) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.released && r.size > 0 {
		r.gate.Release(r.size)
	}
	r.released, r.size, r.lent = true, 0, 0
}

// EOF reports whether the window runs to the end of the file.
func (s *Snapshot) EOF() bool { return s.Offset+int64(len(s.Window)) == s.Size }

// ErrOffset is returned by Snapshot for an offset past the end of the file.
var ErrOffset = errors.New("offset past the end of the file")

// readBuf is the size of one read; the memory of a snapshot is this plus its
// window.
const readBuf = 128 << 10

// Snapshot reads the text file f once: it hashes all of it, checks that it
// is text (valid UTF-8, no NUL byte) and keeps the bytes [offset,
// offset+window) (window < 0: to the end). Memory is bounded by the window,
// not by the file, and the windows of all snapshots held at once by the
// read memory: Snapshot waits for room (or for ctx to end), and the caller
// gives it back with Release.
//
// A file whose version is remembered (see versionCache) and can be trusted
// is not hashed again: only its window is read, when the window is not the
// whole file.
func (v *FS) Snapshot(ctx context.Context, f File, offset, window int64) (*Snapshot, error) {
	return v.snapshot(ctx, f, offset, window, true)
}

// Content reads the whole text of f, checked as Snapshot checks it, but
// not hashed: for work that needs no version (grep, count). Its Version is
// zero. It holds what f held when it was opened: bytes a file gains while
// it is read are left out.
func (v *FS) Content(ctx context.Context, f File) (*Snapshot, error) {
	if f.made != nil {
		return madeSnapshot(f, 0, -1)
	}
	fd, info, err := openFile(f)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return v.content(ctx, f, fd, info, nil)
}

// content is Content of f, open as fd with the stat info, read into buf
// when it has room.
func (v *FS) content(ctx context.Context, f File, fd int, info *statInfo, buf []byte) (*Snapshot, error) {
	size := info.Size()
	if err := v.checkSize(f.URI, size); err != nil {
		return nil, err
	}
	s := &Snapshot{File: f, Size: size}
	if err := s.take(ctx, v, size); err != nil {
		return nil, err
	}
	// One byte more than the size, so that the end is seen without a
	// read of nothing.
	if int64(cap(buf)) <= size {
		buf = make([]byte, size+1)
	}
	buf = buf[:size+1]
	n := 0
	for n <= int(size) {
		if err := ctx.Err(); err != nil {
			s.Release()
			return nil, err
		}
		m, err := readFD(fd, buf[n:])
		if err != nil {
			s.Release()
			return nil, fmt.Errorf("reading %s: %w", f.URI, err)
		}
		n += m
		if m == 0 || n < len(buf) {
			break // the end (a short read of a regular file is its end)
		}
	}
	s.Window = buf[:min(n, int(size))]
	s.Size = int64(len(s.Window))
	if !IsText(s.Window) {
		s.Release()
		return nil, fmt.Errorf("%w: %s is not valid UTF-8 or holds a NUL byte", ErrNotText, f.URI)
	}
	return s, nil
}

// snapshot is Snapshot, the version left zero unless hash is set.
func (v *FS) snapshot(ctx context.Context, f File, offset, window int64, hash bool) (*Snapshot, error) {
	if f.made != nil {
		return madeSnapshot(f, offset, window)
	}
	fd, info, err := openFile(f)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if window >= 0 && hash {
		if s, err := v.windowSnapshot(ctx, f, fd, info, offset, window); s != nil || err != nil {
			return s, err
		}
	}
	s := &Snapshot{File: f, Offset: offset}
	ver := &s.Version
	if !hash {
		ver = nil
	}
	err = v.readOpen(ctx, f, fd, info, true, func(size int64) error {
		if err := v.checkSize(f.URI, size); err != nil {
			return err
		}
		if offset < 0 || offset > size {
			return fmt.Errorf("%w: offset %d, size %d", ErrOffset, offset, size)
		}
		if window < 0 || window > size-offset {
			window = size - offset
		}
		if err := s.take(ctx, v, window); err != nil {
			return err
		}
		s.Window = make([]byte, 0, window)
		return nil
	}, func(pos int64, b []byte) {
		// Keep the part of b that falls inside the window.
		lo, hi := max(offset-pos, 0), min(offset+int64(cap(s.Window))-pos, int64(len(b)))
		if lo < hi {
			s.Window = append(s.Window, b[lo:hi]...)
		}
	}, &s.Size, ver)
	if err == nil && offset > s.Size {
		err = fmt.Errorf("%w: offset %d, size %d", ErrOffset, offset, s.Size)
	}
	if err != nil {
		s.Release()
		return nil, err
	}
	return s, nil
}

// take holds the read memory of a window of s.
func (s *Snapshot) take(ctx context.Context, v *FS, window int64) error {
	room := min(window, v.shared.memorySize)
	s.gate, s.room = v.shared.gate, room
	if r, _ := ctx.Value(roomKey{}).(*Room); r != nil && r.gate == s.gate && r.reserved {
		if err := r.borrow(ctx, room); err != nil {
			s.room = 0
			return err
		}
		s.lent = r
	} else if err := v.shared.gate.Acquire(ctx, room); err != nil {
		s.room = 0
		return err
	}
	return nil
}

// windowSnapshot is Snapshot of f, open as fd with the stat info, when
// its version is remembered and trusted: only its window is read, and the
// file's stamp must be the same after as before; nil (and no error) when
// it is not so, for Snapshot to read the file whole (from its start: the
// window is read with pread).
func (v *FS) windowSnapshot(ctx context.Context, f File, fd int, info *statInfo, offset, window int64) (*Snapshot, error) {
	ver, ok := v.shared.versions.lookup(&info.st, true)
	if !ok {
		return nil, nil
	}
	size := info.Size()
	if err := v.checkSize(f.URI, size); err != nil {
		return nil, err
	}
	if offset < 0 || offset > size {
		return nil, fmt.Errorf("%w: offset %d, size %d", ErrOffset, offset, size)
	}
	window = min(window, size-offset)
	s := &Snapshot{File: f, Offset: offset, Size: size, Version: ver}
	if err := s.take(ctx, v, window); err != nil {
		return nil, err
	}
	s.Window = make([]byte, window)
	n, err := preadFull(fd, s.Window, offset)
	var after unix.Stat_t
	if err != nil || int64(n) != window || unix.Fstat(fd, &after) != nil || stampOf(&after) != stampOf(&info.st) {
		s.Release()
		return nil, nil
	}
	return s, nil
}

// Hash returns the version and size of any regular file, text or not.
func (v *FS) Hash(ctx context.Context, f File) (Version, int64, error) {
	if fd, info, err := openFile(f); err == nil {
		ver, ok := v.shared.versions.lookup(&info.st, false)
		unix.Close(fd)
		if ok {
			return ver, info.Size(), nil
		}
	}
	var ver Version
	var size int64
	err := v.read(ctx, f, false, nil, nil, &size, &ver)
	return ver, size, err
}

// read opens f (see openFile) and streams all its bytes through BLAKE3
// into ver, unless it is nil (and, when text is set, the text check and
// the size cap, so that a file growing under the read cannot hold it). opened
// runs once the size is known; each is called with every chunk read and its
// position.
func (v *FS) read(ctx context.Context, f File, text bool, opened func(size int64) error,
	each func(pos int64, b []byte), size *int64, ver *Version) error {
	fd, info, err := openFile(f)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return v.readOpen(ctx, f, fd, info, text, opened, each, size, ver)
}

// readOpen is read of f, open as fd, whose stat is info.
func (v *FS) readOpen(ctx context.Context, f File, fd int, info *statInfo, text bool, opened func(size int64) error,
	each func(pos int64, b []byte), size *int64, ver *Version) error {
	if opened != nil {
		if err := opened(info.Size()); err != nil {
			return err
		}
	}
	started := time.Now()
	var h *blake3.Hasher
	if ver != nil {
		h = blake3.New()
	}
	pos, err := v.readChunks(ctx, f.URI, fd, info.Size(), text, h, each)
	if err != nil {
		return err
	}
	*size = pos
	if ver == nil {
		return nil
	}
	h.Sum(ver[:0])
	// Remembered when the file held still while it was read.
	var after unix.Stat_t
	if unix.Fstat(fd, &after) == nil && stampOf(&after) == stampOf(&info.st) && after.Size == pos {
		v.shared.versions.store(&after, *ver, text, started)
	}
	return nil
}

// readChunks reads the file uri, open as fd and size bytes long when it
// was opened, to its end, a chunk at a time: each chunk goes to h, when
// not nil, and to each, and when text is set is checked to be text within
// the size cap (see checkText). It returns how many bytes it read.
func (v *FS) readChunks(ctx context.Context, uri string, fd int, size int64, text bool, h *blake3.Hasher, each func(pos int64, b []byte)) (int64, error) {
	// A small file needs no more than its size (one byte more, to see EOF
	// in one read). A file that holds more than it said (one that grows
	// meanwhile, or a /proc file of size 0) fills the buffer, which then
	// doubles up to readBuf.
	chunk := int(min(int64(readBuf), size+1))
	buf := make([]byte, chunk+utf8.UTFMax)
	carry := 0 // bytes of an unfinished code point kept at buf[:carry]
	var pos int64
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := readFD(fd, buf[carry:carry+chunk])
		if n > 0 {
			fresh := buf[carry : carry+n]
			if h != nil {
				h.Write(fresh)
			}
			if each != nil {
				each(pos, fresh)
			}
			pos += int64(n)
			if text {
				var bad error
				if carry, bad = v.checkText(uri, buf[:carry+n], pos); bad != nil {
					return 0, bad
				}
			}
			if n == chunk && chunk < readBuf {
				chunk = min(2*chunk, readBuf)
				buf = append(buf[:carry:carry], make([]byte, chunk+utf8.UTFMax-carry)...)
			}
		}
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", uri, err)
		}
		if n == 0 {
			break
		}
	}
	if text && carry > 0 {
		return 0, fmt.Errorf("%w: %s ends inside a UTF-8 sequence", ErrNotText, uri)
	}
	return pos, nil
}

// checkText checks the bytes of the file uri read so far, pos of them,
// for a text read, as a chunk ends them in data (which starts with the
// bytes of an unfinished code point the chunk before left): pos must be
// within the size cap, which a file growing while it is read may pass, and
// data text up to an unfinished code point at its end. That code point is
// moved to the start of data, for the next chunk to finish, and its length
// returned.
func (v *FS) checkText(uri string, data []byte, pos int64) (int, error) {
	if v.opt.MaxFileBytes > 0 && pos > v.opt.MaxFileBytes {
		// Growing while it is read: stop at the cap.
		return 0, fmt.Errorf("%w: %s grew over the %d-byte cap while it was read", ErrTooLarge, uri, v.opt.MaxFileBytes)
	}
	done := len(data) - incompleteTail(data)
	if !IsText(data[:done]) {
		return 0, fmt.Errorf("%w: %s is not valid UTF-8 or holds a NUL byte", ErrNotText, uri)
	}
	return copy(data, data[done:]), nil
}

// openFile opens f without following any symlink and without blocking,
// and checks that it is still the regular file that was resolved.
func openFile(f File) (int, *statInfo, error) {
	if f.root == nil {
		return -1, nil, fmt.Errorf("%w: file was not resolved", ErrInvalidPath)
	}
	fd, err := f.root.open(f.resolved, readFlags)
	if err != nil {
		return -1, nil, notFound(f.URI)
	}
	return checkOpen(f, fd)
}

// readFlags open a file to read: no symlink, no waiting on a FIFO.
const readFlags = unix.O_RDONLY | unix.O_NONBLOCK

// checkOpen checks that fd, f opened, is still the regular file that was
// resolved, and returns its stat; fd is closed when not.
func checkOpen(f File, fd int) (int, *statInfo, error) {
	info := &statInfo{name: f.info.name}
	var err error
	if err = unix.Fstat(fd, &info.st); err == nil {
		switch {
		case info.IsDir():
			err = fmt.Errorf("%w: %s (list it, or read a file inside it)", ErrIsDir, f.URI)
		case !info.Mode().IsRegular():
			err = fmt.Errorf("%w: %s", ErrNotRegular, f.URI)
		case !sameFile(info, f.info):
			// Replaced since it was resolved: resolve again.
			err = notFound(f.URI)
		}
	}
	if err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	return fd, info, nil
}

// readFD is read(2), tried again when a signal interrupts it: 0 bytes and
// no error at the end of the file.
func readFD(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return max(n, 0), err
		}
	}
}

// preadFull reads len(b) bytes at off, fewer only at the end of the file.
func preadFull(fd int, b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Pread(fd, b[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m <= 0 {
			break
		}
		n += m
	}
	return n, nil
}

// sniffBytes is how much of a file LooksText reads.
const sniffBytes = 8 << 10

// LooksText reports whether the regular file f is within the size cap and
// its first 8 KiB are text: a cheap guess for listings, where Snapshot
// would read every file whole. Snapshot still decides for a read.
func (v *FS) LooksText(f File) bool {
	fd, info, err := openFile(f)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if v.checkSize(f.URI, info.Size()) != nil {
		return false
	}
	buf := make([]byte, sniffBytes)
	n, err := preadFull(fd, buf, 0)
	if err != nil {
		return false
	}
	b := buf[:n]
	if n == sniffBytes {
		b = b[:n-incompleteTail(b)]
	}
	return IsText(b)
}

// incompleteTail is how many bytes at the end of b start a code point that
// b does not finish.
func incompleteTail(b []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}

// IsText reports whether b is text as folio reads it: valid UTF-8 without
// a NUL byte.
func IsText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}
