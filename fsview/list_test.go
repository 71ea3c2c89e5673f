package fsview

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/fileuri"
)

// listAll lists d with opt and returns the Rel of each entry, "/" after a
// directory.
func listAll(t *testing.T, v *FS, dir string, opt ListOptions) []string {
	t.Helper()
	d, err := v.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = v.List(context.Background(), d, opt, func(f File) error {
		if f.IsDir() {
			got = append(got, f.Rel+"/")
		} else {
			got = append(got, f.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestList(t *testing.T) {
	rootDir, _ := tree(t)
	os.WriteFile(filepath.Join(rootDir, "docs-b.md"), []byte("b\n"), 0o644)
	os.MkdirAll(filepath.Join(rootDir, "docs/deep/er"), 0o755)
	os.WriteFile(filepath.Join(rootDir, "docs/deep/er/x.md"), []byte("x\n"), 0o644)
	v := open(t, Options{Deny: DefaultDeny()}, rootDir)
	all := []string{"docs/", "docs/a.md", "docs/deep/", "docs/deep/er/", "docs/deep/er/x.md", "docs/upfile", "docs/with space.md", "docs-b.md", "in-abs", "in-rel", "keys/", "sub/"}
	for _, tc := range []struct {
		name string
		dir  string
		opt  ListOptions
		want []string
	}{
		{"all", ".", ListOptions{}, all},
		{"one level", ".", ListOptions{MaxDepth: 1}, []string{"docs/", "docs-b.md", "in-abs", "in-rel", "keys/", "sub/"}},
		{"two levels of docs", "docs", ListOptions{MaxDepth: 2}, []string{"docs/a.md", "docs/deep/", "docs/deep/er/", "docs/upfile", "docs/with space.md"}},
		{"after a file", ".", ListOptions{After: "docs/a.md"}, all[2:]},
		{"after a directory", ".", ListOptions{After: "docs/deep"}, all[3:]},
		{"after a deep file", ".", ListOptions{After: "docs/deep/er/x.md"}, all[5:]},
		{"after the last", ".", ListOptions{After: "sub"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := listAll(t, v, tc.dir, tc.opt)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	f, _ := v.Resolve("docs/a.md")
	if err := v.List(context.Background(), f, ListOptions{}, func(File) error { return nil }); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("listing a file: %v", err)
	}
}

func TestComparePathsIsWalkOrder(t *testing.T) {
	order := []string{"a", "a/b", "a/b/c", "a/c", "a-c", "a-c/a", "b"}
	for i := range order {
		for j := range order {
			got := comparePaths(order[i], order[j])
			if (got < 0) != (i < j) || (got == 0) != (i == j) {
				t.Errorf("comparePaths(%q, %q) = %d", order[i], order[j], got)
			}
		}
	}
}

func TestRestrict(t *testing.T) {
	rootDir, _ := tree(t)
	os.MkdirAll(filepath.Join(rootDir, "other"), 0o755)
	os.WriteFile(filepath.Join(rootDir, "other/b.md"), []byte("b\n"), 0o644)
	os.Symlink("../other/b.md", filepath.Join(rootDir, "docs/to-other"))
	base := open(t, Options{Deny: DefaultDeny()}, rootDir)
	v, err := base.Restrict([]string{"docs/**"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"docs/a.md", "docs/with space.md", "docs", "."} {
		if _, err := v.Resolve(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Outside the list, by name or by where a symlink leads; deny still wins.
	for _, name := range []string{"other/b.md", "other", "in-rel", "docs/to-other", "docs/upfile/../../.env"} {
		if _, err := v.Resolve(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}
	if _, err := base.Resolve("other/b.md"); err != nil {
		t.Errorf("the base view changed: %v", err)
	}
	got := listAll(t, v, ".", ListOptions{})
	want := []string{"docs/", "docs/a.md", "docs/upfile", "docs/with space.md"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("listing: got %q, want %q", got, want)
	}
	none, _ := base.Restrict(nil)
	if _, err := none.Regular("docs/a.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an empty allow list shows a file: %v", err)
	}
	if _, err := base.Restrict([]string{"[bad"}); err == nil {
		t.Error("a bad glob was taken")
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := base.Regular("docs/a.md"); err != nil {
		t.Errorf("closing the view closed the roots: %v", err)
	}
}

func TestMayHoldMatch(t *testing.T) {
	for _, tc := range []struct {
		glob, dir string
		want      bool
	}{
		{"docs/**", "docs", true},
		{"docs/**", "docs/a/b", true},
		{"docs/**", "other", false},
		{"docs/*.md", "docs", true},
		{"docs/*.md", "docs/sub", false},
		{"*/api/*.md", "x", true},
		{"*/api/*.md", "x/api", true},
		{"*/api/*.md", "x/web", false},
		{"**/*.md", "anything/at/all", true},
		{"README.md", "docs", false},
		{"{docs,web/pub}/**", "web", true},
	} {
		if got := mayHoldMatch(tc.glob, tc.dir); got != tc.want {
			t.Errorf("mayHoldMatch(%q, %q) = %v", tc.glob, tc.dir, got)
		}
	}
}

func TestLooksText(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", sniffBytes) // a code point across the 8 KiB mark
	files := map[string]string{"t.md": "text\n", "empty": "", "bin": "a\x00b", "bad": "\xff\xfe", "long.md": long, "big.md": strings.Repeat("x", 2048)}
	for name, s := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644)
	}
	v := open(t, Options{MaxFileBytes: 1024 * 1024}, dir)
	capped := open(t, Options{MaxFileBytes: 1024}, dir)
	for name, want := range map[string]bool{"t.md": true, "empty": true, "bin": false, "bad": false, "long.md": true} {
		f, err := v.Regular(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.LooksText(f); got != want {
			t.Errorf("%s: LooksText = %v", name, got)
		}
	}
	f, _ := capped.Regular("big.md")
	if capped.LooksText(f) {
		t.Error("a file over the cap looks like text")
	}
}

func TestPermits(t *testing.T) {
	rootDir, outside := tree(t)
	base := open(t, Options{Deny: DefaultDeny()}, rootDir)
	v, _ := base.Restrict([]string{"docs/**"})
	for name, want := range map[string]bool{
		"docs/a.md":    true,
		"docs/gone.md": true, // no such file: judged by its name
		fileuri.Of(filepath.Join(rootDir, "docs/x")): true,
		"docs/../.env":                       false,
		"other.md":                           false,
		"docs/.env":                          false,
		filepath.Join(outside, "secret.txt"): false,
		"":                                   false,
	} {
		if got := v.Permits(name); got != want {
			t.Errorf("Permits(%q) = %v", name, got)
		}
	}
	if !base.Permits("other.md") || base.Permits(".git/config") {
		t.Error("the base view's policy")
	}
}

// TestListResumesLinearly: paging through a large directory, each page
// resumed after the last entry of the one before, reads the directory's
// names once, not once per page, and gives what one whole listing gives.
func TestListResumesLinearly(t *testing.T) {
	dir := t.TempDir()
	const files = 3000
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d-%d.md", (i*7919)%files, i%3)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "f01000-1.md.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "f01000-1.md.d", "inner"), nil, 0o644)
	v := open(t, Options{}, dir)
	d, _ := v.Resolve(".")
	var whole []string
	v.List(context.Background(), d, ListOptions{}, func(f File) error {
		whole = append(whole, f.Rel)
		return nil
	})
	before := v.shared.dirs.namesRead.Load()
	var paged []string
	pages := 0
	for after := ""; ; pages++ {
		n := 0
		err := v.List(context.Background(), d, ListOptions{After: after}, func(f File) error {
			if n == 200 {
				return errStop
			}
			paged = append(paged, f.Rel)
			after, n = f.Rel, n+1
			return nil
		})
		if err == nil {
			break
		}
	}
	if !slices.Equal(whole, paged) || len(whole) != files+2 {
		t.Fatalf("paged listing (%d entries) differs from the whole one (%d)", len(paged), len(whole))
	}
	if read := v.shared.dirs.namesRead.Load() - before; read > files {
		t.Errorf("%d pages read %d names of a directory of %d", pages, read, files)
	}
}

var errStop = errors.New("stop")
