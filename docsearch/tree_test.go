package docsearch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fsview"
)

// TestTreeDir builds a tree's index, keeps it in a directory, changes the
// docs, and builds again from it: only the changed document is indexed
// again, the removed one is gone, the new one is found.
func TestTreeDir(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		write("docs/"+n+".md", "# "+n+"\n\nThe "+n+" kestrel page.\n")
	}
	write("notes.txt", "A heron note.\n")
	write("code.go", "package kestrel\n")
	fs, err := fsview.Open([]string{root}, fsview.Options{Deny: fsview.DefaultDeny()})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	build := func() *Tree {
		tr := NewTree(fs, TreeOptions{Dir: dir})
		if err := tr.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := tr.Save(); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	if tr := build(); tr.indexed.Load() != 5 || tr.Index().Stats().Documents != 5 {
		t.Fatalf("first build indexed %d, holds %+v", tr.indexed.Load(), tr.Index().Stats())
	}
	write("docs/a.md", "# a\n\nThe a osprey page.\n")
	os.Remove(filepath.Join(root, "docs/b.md"))
	write("docs/e.md", "# e\n\nThe e heron page.\n")
	tr := build()
	if n := tr.indexed.Load(); n != 2 {
		t.Errorf("the second build indexed %d documents, not the 2 that changed or came", n)
	}
	hits, _ := tr.Index().Search(context.Background(), "kestrel", 10, nil)
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
	}
	if got := strings.Join(paths, " "); got != "docs/c.md docs/d.md" {
		t.Errorf("kestrel is in %q", got)
	}
	if hits, _ := tr.Index().Search(context.Background(), "osprey", 10, nil); len(hits) != 1 || hits[0].Path != "docs/a.md" {
		t.Errorf("osprey: %+v", hits)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 || !strings.HasPrefix(files[0].Name(), "docs-") {
		t.Errorf("index dir holds %v", files)
	}
	if info, err := os.Stat(filepath.Join(dir, files[0].Name())); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("index file mode %v", info.Mode())
	}
}
