package fsview

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/internal/fileuri"
)

// textMaker makes the files named in texts, or fails with err.
type textMaker struct {
	texts map[string]string
	err   error
}

func (m textMaker) Makes(base string) bool { _, ok := m.texts[base]; return ok }

func (m textMaker) Make(_ context.Context, _ *FS, _, base string) ([]byte, error) {
	if m.err != nil {
		return nil, m.err
	}
	return []byte(m.texts[base]), nil
}

// TestOpenMade: a view with a maker serves its files to Open, as a file
// of the root, only where the root holds no file of that name and the
// view permits the name; Regular, List and Walk never show them.
func TestOpenMade(t *testing.T) {
	rootDir, _ := tree(t)
	if err := os.WriteFile(filepath.Join(rootDir, "real.txt"), []byte("real\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := open(t, Options{Deny: DefaultDeny()}, rootDir)
	m := textMaker{texts: map[string]string{"made.txt": "made\ntext\n", "real.txt": "not this\n", "docs.txt": "x\n"}}
	v := base.WithMaker(m)
	narrow, err := base.Restrict([]string{"docs/**"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	madeURI := fileuri.Of(filepath.Join(rootDir, "made.txt"))
	for _, tc := range []struct {
		name, path string
		view       *FS
		want       string // the text read, "" for not found
	}{
		{"made, by its relative name", "made.txt", v, "made\ntext\n"},
		{"made, by its URI", madeURI, v, "made\ntext\n"},
		{"made, by its absolute path", filepath.Join(rootDir, "made.txt"), v, "made\ntext\n"},
		{"a real file wins", "real.txt", v, "real\n"},
		{"made in a root only", "docs/made.txt", v, ""},
		{"not a name the maker makes", "other.txt", v, ""},
		{"not permitted by the allow list", "made.txt", narrow.WithMaker(m), ""},
		{"no maker", "made.txt", base, ""},
	} {
		f, err := tc.view.Open(ctx, tc.path)
		if tc.want == "" {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: %v, want not found", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		snap, err := tc.view.Snapshot(ctx, f, 0, -1)
		if err != nil || string(snap.Window) != tc.want || snap.Version != VersionOf([]byte(tc.want)) || f.Size() != int64(len(tc.want)) {
			t.Errorf("%s: %q %v, want %q", tc.name, snap.Window, err, tc.want)
		}
	}
	f, err := v.Open(ctx, "made.txt")
	if err != nil {
		t.Fatal(err)
	}
	if f.URI != madeURI || v.Name(f) != madeURI || f.IsDir() {
		t.Errorf("made file: URI %s, name %s", f.URI, v.Name(f))
	}
	if snap, err := v.Snapshot(ctx, f, 5, 2); err != nil || string(snap.Window) != "te" || snap.EOF() || snap.Size != 10 {
		t.Errorf("a window of a made file: %q %v", snap.Window, err)
	}
	if _, err := v.Snapshot(ctx, f, 11, 2); !errors.Is(err, ErrOffset) {
		t.Errorf("past the end: %v", err)
	}
	if _, err := v.Regular("made.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Regular shows a made file: %v", err)
	}
	for _, name := range listAll(t, v, rootDir, ListOptions{}) {
		if name == "made.txt" {
			t.Errorf("List shows a made file")
		}
	}
	boom := errors.New("boom")
	if _, err := base.WithMaker(textMaker{texts: m.texts, err: boom}).Open(ctx, "made.txt"); !errors.Is(err, boom) {
		t.Errorf("a maker's error: %v", err)
	}
}
