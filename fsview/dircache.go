package fsview

import (
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A listing resumed after an entry (a resources/list page, say) reads its
// directories again. For a large directory, the sorted names are kept, so
// that paging through it costs its size once, not once per page.
const (
	// cachedDirNames is the fewest names a directory needs to be kept.
	cachedDirNames = 1024
	// cachedDirs is how many directories are kept, the last used first.
	cachedDirs = 16
)

// dirCache holds the sorted names of the last large directories read, each
// valid while the directory's inode, change time and modification time
// stay the same (any entry added, removed or renamed changes them).
type dirCache struct {
	mu   sync.Mutex
	dirs []cachedDir // most recently used last
	// namesRead counts the names read from directories, for tests.
	namesRead atomic.Int64
}

type cachedDir struct {
	dev, ino     uint64
	mtime, ctime unix.Timespec
	names        []string
}

// sortedNames returns the names in the open directory dir, sorted. The
// slice may be shared: it must not be changed.
func (c *dirCache) sortedNames(dir int) ([]string, error) {
	var st unix.Stat_t
	if err := unix.Fstat(dir, &st); err != nil {
		return nil, err
	}
	key := cachedDir{dev: uint64(st.Dev), ino: st.Ino, mtime: st.Mtim, ctime: st.Ctim}
	c.mu.Lock()
	for i, d := range c.dirs {
		if d.dev == key.dev && d.ino == key.ino && d.mtime == key.mtime && d.ctime == key.ctime {
			c.dirs = append(append(c.dirs[:i:i], c.dirs[i+1:]...), d)
			c.mu.Unlock()
			return d.names, nil
		}
	}
	c.mu.Unlock()
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	c.namesRead.Add(int64(len(names)))
	slices.Sort(names)
	if len(names) >= cachedDirNames {
		key.names = names
		c.mu.Lock()
		c.dirs = slices.DeleteFunc(c.dirs, func(d cachedDir) bool { return d.dev == key.dev && d.ino == key.ino })
		if len(c.dirs) == cachedDirs {
			c.dirs = c.dirs[1:]
		}
		c.dirs = append(c.dirs, key)
		c.mu.Unlock()
	}
	return names, nil
}
