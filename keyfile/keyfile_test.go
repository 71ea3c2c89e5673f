package keyfile

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentCreate: processes that start together on a missing file all
// end up with the one key that was written first.
func TestConcurrentCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "fold.key")
	const n = 16
	keys := make([][][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { keys[i], errs[i] = Load(path, 32, "test key file") })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || len(keys[i]) != 1 || !bytes.Equal(keys[i][0], keys[0][0]) {
			t.Fatalf("loader %d: %v, %d keys", i, errs[i], len(keys[i]))
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := Load(path, 16, "test key file"); err == nil {
		t.Error("a 32-byte key was read as 16 bytes")
	}
}
