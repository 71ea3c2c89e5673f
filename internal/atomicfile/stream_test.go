package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteStream: the bytes written take the name with the mode asked
// for; a write that fails leaves the old file and no temporary file.
func TestWriteStream(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := WriteStream(path, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, strings.NewReader(strings.Repeat("a", 200<<10)))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 200<<10 {
		t.Fatalf("after a write: %d bytes, %v", len(b), err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", info.Mode(), err)
	}
	failed := errors.New("failed")
	if err := WriteStream(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return failed
	}); !errors.Is(err, failed) {
		t.Fatalf("a failed write: %v", err)
	}
	if b, _ := os.ReadFile(path); len(b) != 200<<10 {
		t.Errorf("a failed write left %d bytes", len(b))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
