package fsview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// roomFS is a view of a directory holding a 50-byte file, with 100 bytes
// of read memory.
func roomFS(t *testing.T) (*FS, File) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Repeat("x", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open([]string{dir}, Options{ReadMemory: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	f, err := v.Regular("f.txt")
	if err != nil {
		t.Fatal(err)
	}
	return v, f
}

// free is how much read memory is free: what can be taken now (nothing,
// while someone waits for it).
func free(v *FS) int64 {
	for n := v.shared.memorySize; n > 0; n-- {
		if v.shared.gate.TryAcquire(n) {
			v.shared.gate.Release(n)
			return n
		}
	}
	return 0
}

// TestRoomKeepsAnswers: a page's reserve holds its window and the copies
// of its answer until the room is released; lines keep what they copied;
// a window larger than the reserve takes the rest; a room that needs more
// gives back what it holds before it waits, so that two rooms never wait
// on each other.
func TestRoomKeepsAnswers(t *testing.T) {
	ctx := context.Background()
	v, f := roomFS(t)

	// A page: reserve 20 to read and 20 to answer (copies 1: 40 more).
	pageCtx, page := v.KeepRoom(ctx, 1)
	if err := Reserve(pageCtx, 20, 20); err != nil {
		t.Fatal(err)
	}
	if page.Size() != 40 || free(v) != 60 {
		t.Fatalf("reserved: room %d, free %d", page.Size(), free(v))
	}
	// The file is 50 bytes, not the 20 reserved: the window takes the
	// rest first.
	snap, err := v.Snapshot(pageCtx, f, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if page.Size() != 50 || free(v) != 50 {
		t.Errorf("a larger window: room %d, free %d", page.Size(), free(v))
	}
	snap.Release()
	if page.Size() != 50 || free(v) != 50 {
		t.Errorf("after the window: room %d, free %d", page.Size(), free(v))
	}

	// Lines: the window is read on the read memory, the answer kept.
	linesCtx, lines := v.KeepRoom(ctx, 1)
	snap, err = v.Snapshot(linesCtx, f, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if free(v) != 0 {
		t.Errorf("a window of 50 with 50 free leaves %d", free(v))
	}
	snap.Keep(linesCtx, 10)
	snap.Release()
	if lines.Size() != 10 || free(v) != 40 {
		t.Errorf("kept: room %d, free %d", lines.Size(), free(v))
	}

	// The page's answer needs 92: 42 more are not free, so the page gives
	// back its 50 and waits for 92, which it gets once the lines are
	// written.
	got := make(chan error, 1)
	go func() { got <- page.Answer(ctx, 46) }()
	for page.Size() != 0 { // the page gave back its room
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-got:
		t.Fatalf("the page took 92 with 10 held elsewhere: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	lines.Release()
	if err := <-got; err != nil || page.Size() != 92 {
		t.Fatalf("the answer: %v, room %d", err, page.Size())
	}
	page.Release()
	page.Release()
	if free(v) != 100 {
		t.Errorf("all released: free %d", free(v))
	}

	// A room that waits for more than is free gives up when its context
	// ends, holding nothing.
	_, hog := v.KeepRoom(ctx, 0)
	hog.Take(ctx, 100)
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	waitCtx, waiter := v.KeepRoom(short, 0)
	if err := Reserve(waitCtx, 10, 0); err == nil || waiter.Size() != 0 {
		t.Errorf("a reserve with no room free: %v, room %d", err, waiter.Size())
	}
	hog.Release()
	if free(v) != 100 {
		t.Errorf("at the end: free %d", free(v))
	}
}
