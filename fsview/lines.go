package fsview

import (
	"bytes"
	"container/list"
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
	if f.info == nil {
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
	if s.Offset != 0 || !s.EOF() {
		return
	}
	c := v.shared.lines
	c.mu.Lock()
	_, known := c.of[s.Version]
	c.mu.Unlock()
	if known {
		return
	}
	x := newLineIndex(s.Version, s.Window)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, known := c.of[s.Version]; known {
		return
	}
	c.of[s.Version] = c.order.PushBack(x)
	for c.order.Len() > maxLineIndexes {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.of, oldest.Value.(*LineIndex).Version)
	}
}
