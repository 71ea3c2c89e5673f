package fsview

import (
	"strings"
	"testing"
)

// TestGlobMissed: what a glob that matched nothing says reads right for
// no entry, one and many.
func TestGlobMissed(t *testing.T) {
	g, err := ParseGlob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{
		0: `the glob "*.md" matched nothing: there are no files under docs/ (it is matched against names at any depth`,
		1: `the glob "*.md" did not match the one file under docs/: it is matched against names at any depth`,
		3: `the glob "*.md" matched none of the 3 files under docs/: it is matched against names at any depth`,
	} {
		if got := g.Missed(n, "file", "files", "docs/"); !strings.HasPrefix(got, want) {
			t.Errorf("%d: %s\nwant %s…", n, got, want)
		}
	}
}
