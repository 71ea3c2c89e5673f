package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAndCreate: Write replaces, Create never does, both leave mode
// 0600 and no temporary file; RemoveLeftovers clears what a killed writer
// left, and nothing else.
func TestWriteAndCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	for _, b := range []string{"one", "two"} {
		if err := Write(path, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("after two writes: %q", b)
	}
	created, err := Create(path, []byte("three"))
	if err != nil || created {
		t.Fatalf("Create over a file: %v, %v", created, err)
	}
	other := filepath.Join(dir, "other")
	if created, err := Create(other, []byte("x")); err != nil || !created {
		t.Fatalf("Create of a new file: %v, %v", created, err)
	}
	for _, p := range []string{path, other} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", p, info.Mode(), err)
		}
	}
	left := filepath.Join(dir, ".secret.tmp-123")
	os.WriteFile(left, []byte("partial"), 0o600)
	RemoveLeftovers(path)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files left, want secret and other", len(entries))
	}
}
