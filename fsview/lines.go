package fsview

import (
	"bytes"
	"container/list"
	"context"
	"sync"
)

// Bounds of the line indexes kept: at most maxIndexStarts offsets each
// (an offset every Every lines, Every at least minIndexEvery), and
// maxLineIndexes indexes, so that they hold at most 8 MiB in all.
const (
	maxIndexStarts = 4096
	minIndexEvery  = 64
	maxLineIndexes = 256
)

// LineIndex locates the lines of one version of a file: sparse, the
// offset of every Every-th line.
type LineIndex struct {
	Version Version
	// Lines is how many lines the file has (a last line without "\n"
	// counts); Size its bytes.
	Lines int
	Size  int64
	Every int
	// Starts[k] is the offset of line k*Every+1.
	Starts []int64
}

// Locate is the indexed line at or before line (from 1), and its offset.
func (x *LineIndex) Locate(line int) (int, int64) {
	k := min(max(line-1, 0)/x.Every, len(x.Starts)-1)
	return k*x.Every + 1, x.Starts[k]
}

// newLineIndex indexes text, the whole of a file of version v.
func newLineIndex(v Version, text []byte) *LineIndex {
	lines := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		lines++
	}
	x := &LineIndex{Version: v, Lines: lines, Size: int64(len(text)), Every: max(minIndexEvery, (lines+maxIndexStarts-1)/maxIndexStarts)}
	x.Starts = append(x.Starts, 0)
	line, pos := 1, 0
	for {
		j := bytes.IndexByte(text[pos:], '\n')
		if j < 0 {
			break
		}
		pos += j + 1
		line++
		if (line-1)%x.Every == 0 && pos < len(text) {
			x.Starts = append(x.Starts, int64(pos))
		}
	}
	return x
}

// lineIndexer makes the LineIndex of a file as its bytes stream by: it
// keeps the offset of every Every-th line, Every doubling (and every other
// offset dropped) whenever the offsets would pass maxIndexStarts.
type lineIndexer struct {
	x    LineIndex
	line int   // the line the next byte is in (from 1)
	pos  int64 // bytes seen
	last byte  // the last byte seen
}

func newLineIndexer() *lineIndexer {
	return &lineIndexer{x: LineIndex{Every: minIndexEvery, Starts: []int64{0}}, line: 1}
}

// write takes the next bytes of the file.
func (ix *lineIndexer) write(b []byte) {
	if len(b) > 0 {
		ix.last = b[len(b)-1]
	}
	for {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			ix.pos += int64(len(b))
			return
		}
		ix.pos += int64(j + 1)
		b = b[j+1:]
		ix.line++
		if (ix.line-1)%ix.x.Every != 0 {
			continue
		}
		ix.x.Starts = append(ix.x.Starts, ix.pos)
		if len(ix.x.Starts) > maxIndexStarts {
			kept := ix.x.Starts[:0]
			for k := 0; k < len(ix.x.Starts); k += 2 {
				kept = append(kept, ix.x.Starts[k])
			}
			ix.x.Starts, ix.x.Every = kept, 2*ix.x.Every
		}
	}
}

// done is the index of the bytes written, version v.
func (ix *lineIndexer) done(v Version) *LineIndex {
	x := ix.x
	x.Version, x.Size, x.Lines = v, ix.pos, ix.line-1
	if ix.pos > 0 && ix.last != '\n' {
		x.Lines++
	}
	if n := len(x.Starts); n > 1 && x.Starts[n-1] == ix.pos {
		x.Starts = x.Starts[:n-1] // no line starts at the end
	}
	return &x
}

// IndexFile reads the text file f as Snapshot does, without holding it,
// and returns the line index of its version, kept for the line reads that
// follow (see LineIndexOf): a read from a line of a large file can then
// read that line's window alone, and holds at most one read buffer before.
func (v *FS) IndexFile(ctx context.Context, f File) (*LineIndex, error) {
	ix := newLineIndexer()
	var size int64
	var ver Version
	err := v.read(ctx, f, true, func(size int64) error { return v.checkSize(f.URI, size) },
		func(_ int64, b []byte) { ix.write(b) }, &size, &ver)
	if err != nil {
		return nil, err
	}
	x := ix.done(ver)
	v.shared.lines.keep(x)
	return x, nil
}

// lineIndexes keeps the line indexes of recent versions, least recently
// used forgotten first. It is safe for concurrent use.
type lineIndexes struct {
	mu    sync.Mutex
	of    map[Version]*list.Element
	order *list.List // of *LineIndex
}

func newLineIndexes() *lineIndexes {
	return &lineIndexes{of: map[Version]*list.Element{}, order: list.New()}
}

// LineIndexOf is the line index of f's version when that version is
// remembered and trusted (see Snapshot) and its index kept: a line read
// can then read the lines it needs alone.
//
// It judges by f's stat when it was resolved, opening nothing: a read
// through the index checks each window's version against it.
func (v *FS) LineIndexOf(f File) (*LineIndex, bool) {
	if f.info == nil || f.made != nil {
		return nil, false
	}
	ver, ok := v.shared.versions.lookup(&f.info.st, true)
	if !ok {
		return nil, false
	}
	c := v.shared.lines
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.of[ver]
	if !ok {
		return nil, false
	}
	c.order.MoveToBack(el)
	return el.Value.(*LineIndex), true
}

// IndexLines keeps the line index of s, a snapshot of a whole file, for
// the line reads that follow (see LineIndexOf).
func (v *FS) IndexLines(s *Snapshot) {
	if s.Offset != 0 || !s.EOF() || s.made != nil {
		return
	}
	c := v.shared.lines
	c.mu.Lock()
	_, known := c.of[s.Version]
	c.mu.Unlock()
	if known {
		return
	}
	c.keep(newLineIndex(s.Version, s.Window))
}

// keep keeps x, unless an index of its version is kept already.
func (c *lineIndexes) keep(x *LineIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, known := c.of[x.Version]; known {
		return
	}
	c.of[x.Version] = c.order.PushBack(x)
	for c.order.Len() > maxLineIndexes {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.of, oldest.Value.(*LineIndex).Version)
	}
}
