package fsview

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestVersionCache: a file that held still is read by its window only,
// its version remembered; a rewrite that keeps size and times is still
// caught, within one clock tick (the racy rule) and after; on ext4 (the
// test's temporary directory here) and tmpfs (/dev/shm).
func TestVersionCache(t *testing.T) {
	dirs := []string{t.TempDir()}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "folio-versions")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(shm) })
			dirs = append(dirs, shm)
		}
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			v, err := Open([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			v.shared.versions.granularity = 50 * time.Millisecond
			path := filepath.Join(dir, "f.md")
			a, b := strings.Repeat("a", 4096), strings.Repeat("b", 4096)
			snap := func() *Snapshot {
				t.Helper()
				f, err := v.Regular("f.md")
				if err != nil {
					t.Fatal(err)
				}
				s, err := v.Snapshot(context.Background(), f, 100, 10)
				if err != nil {
					t.Fatal(err)
				}
				s.Release()
				return s
			}
			trusted := func() bool {
				f, err := v.Regular("f.md")
				if err != nil {
					t.Fatal(err)
				}
				_, ok := v.shared.versions.lookup(&f.info.st, true)
				return ok
			}

			// Written, read, rewritten within the same tick with the
			// same size and mtime: the second read must not trust the
			// first hash.
			os.WriteFile(path, []byte(a), 0o644)
			first := snap()
			info, _ := os.Stat(path)
			os.WriteFile(path, []byte(b), 0o644)
			os.Chtimes(path, info.ModTime(), info.ModTime())
			if trusted() {
				t.Fatal("a version hashed within the file's clock tick was trusted")
			}
			second := snap()
			if first.Version == second.Version || !bytes.Equal(second.Window, []byte(b[100:110])) {
				t.Fatalf("the rewrite within one tick was missed: %s, then %s %q", first.Version, second.Version, second.Window)
			}

			// Once the file is older than the granularity and hashed
			// again, its version is trusted: the window alone is read,
			// and it is right.
			time.Sleep(120 * time.Millisecond)
			v.shared.versions = newVersionCache()
			v.shared.versions.granularity = 50 * time.Millisecond
			whole := snap() // hashes, and remembers
			if !trusted() {
				t.Fatal("a version hashed after the file settled is not trusted")
			}
			window := snap()
			if window.Version != whole.Version || !bytes.Equal(window.Window, whole.Window) || window.Size != 4096 {
				t.Fatalf("the window read %q %s, the whole read %q %s", window.Window, window.Version, whole.Window, whole.Version)
			}

			// A rewrite of the same size, its mtime put back: the ctime
			// moved, so the version is not trusted, and the change is
			// seen.
			info, _ = os.Stat(path)
			os.WriteFile(path, []byte(a), 0o644)
			os.Chtimes(path, info.ModTime(), info.ModTime())
			if trusted() {
				t.Fatal("a rewritten file's old version was trusted")
			}
			if third := snap(); third.Version == whole.Version {
				t.Fatal("the rewrite was missed")
			}
		})
	}
}

// TestVersionCacheBound: the cache forgets the least recently used past
// its bound.
func TestVersionCacheBound(t *testing.T) {
	c := newVersionCache()
	for i := range MaxRememberedVersions + 10 {
		c.store(&unix.Stat_t{Dev: 1, Ino: uint64(i + 1)}, Version{}, true, time.Now())
	}
	if c.order.Len() != MaxRememberedVersions || len(c.entries) != MaxRememberedVersions {
		t.Errorf("%d entries, %d in order", len(c.entries), c.order.Len())
	}
	if _, ok := c.entries[fileID{1, 1}]; ok {
		t.Error("the oldest entry was kept")
	}
	if _, ok := c.entries[fileID{1, MaxRememberedVersions + 10}]; !ok {
		t.Error("the newest entry was not kept")
	}
}
