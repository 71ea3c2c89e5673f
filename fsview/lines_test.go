package fsview

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLineIndexer: the index made as a file streams by, in reads of any
// size, locates every line where it starts, as the index of the whole
// text counts its lines, with at most maxIndexStarts offsets, for texts
// short and long (past the offsets' bound, so that they are thinned),
// ending with a line break or not; IndexFile keeps it for LineIndexOf.
func TestLineIndexer(t *testing.T) {
	var long strings.Builder
	for i := range 600_000 {
		fmt.Fprintf(&long, "%d\n", i%1000)
	}
	for _, text := range []string{"", "\n", "a", "a\n", "a\nb", "\n\n\n", strings.Repeat("line\r\n", 300), long.String(), long.String() + "tail"} {
		b := []byte(text)
		// The start of each line, from 1.
		starts := []int64{0}
		for i, c := range b {
			if c == '\n' && i+1 < len(b) {
				starts = append(starts, int64(i+1))
			}
		}
		want := newLineIndex(Version{}, b)
		for _, step := range []int{1, 7, 4096, len(b) + 1} {
			ix := newLineIndexer()
			for p := 0; p < len(b); p += step {
				ix.write(b[p:min(p+step, len(b))])
			}
			x := ix.done(Version{})
			if x.Lines != want.Lines || x.Size != want.Size || len(x.Starts) > maxIndexStarts {
				t.Fatalf("%d bytes in reads of %d: %d lines, %d bytes, %d offsets; want %d lines, %d bytes", len(b), step, x.Lines, x.Size, len(x.Starts), want.Lines, want.Size)
			}
			for line := 1; line <= len(starts); line += 1 + line/50 {
				at, off := x.Locate(line)
				if at > line || at < 1 || off != starts[at-1] {
					t.Fatalf("%d bytes in reads of %d: line %d located at line %d, offset %d (it starts at %d)", len(b), step, line, at, off, starts[max(at-1, 0)])
				}
			}
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	f, err := v.Regular("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	if v.Settled(f) {
		t.Error("a file written just now is settled")
	}
	v.shared.versions.granularity = -time.Hour // as if written long ago
	if !v.Settled(f) {
		t.Error("an old file is not settled")
	}
	x, err := v.IndexFile(context.Background(), f)
	if err != nil || x.Lines != 600_000 || x.Every <= minIndexEvery {
		t.Fatalf("IndexFile: %v, %+v", err, x)
	}
	if ver := VersionOf([]byte(long.String())); x.Version != ver {
		t.Errorf("version %s, want %s", x.Version, ver)
	}
	if _, err := v.IndexFile(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	if n := v.shared.lines.order.Len(); n != 1 {
		t.Errorf("%d indexes kept of one version", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin"), bytes.Repeat([]byte{0}, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := v.Regular("bin"); err != nil {
		t.Fatal(err)
	} else if _, err := v.IndexFile(context.Background(), b); err == nil {
		t.Error("a file with NUL bytes indexed")
	}
}
