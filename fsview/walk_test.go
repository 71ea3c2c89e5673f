package fsview

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/fileuri"
)

// linkTree is a root with symlinks to files inside it (one into an
// ignored directory, one into a denied file, one out of the root), beside
// the files they lead to, as a repository's CLAUDE.md -> AGENTS.md.
func linkTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for name, content := range map[string]string{
		"root/AGENTS.md":     "agents\n",
		"root/docs/notes.md": "notes\n",
		"root/gen/out.md":    "generated\n",
		"root/.gitignore":    "gen/\n",
		"root/.env":          "SECRET=1\n",
		"outside/secret.md":  "outside\n",
	} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"CLAUDE.md":       "AGENTS.md",
		"docs/readme.md":  "../AGENTS.md",
		"docs/again.md":   filepath.Join(root, "docs/notes.md"),
		"latest.md":       "gen/out.md",
		"gen/current.md":  "out.md",
		"to-env":          ".env",
		"out.md":          "../outside/secret.md",
		"docs/chain.md":   "../CLAUDE.md",
		"docs/to-docs.md": "../docs",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestWalkFilesSymlinks: a walk gives a symlink to a file inside the root
// under its own name, and its entry reads the file it leads to; it tells
// that file's name in the walk and whether the walk finds it by that name
// too. A symlink to an ignored file is skipped as ignored (unless the walk
// is of the ignored directory itself), and one to a denied file or out of
// the root is hidden; a listing shows what the walk gives.
func TestWalkFilesSymlinks(t *testing.T) {
	root := linkTree(t)
	v := open(t, Options{Deny: DefaultDeny()}, root)
	ctx := context.Background()
	for _, tc := range []struct {
		dir     string
		want    []string // each entry: name, what it reads, its target and whether walked
		skipped []string
	}{
		{".", []string{
			".gitignore=gen/",
			"AGENTS.md=agents",
			"CLAUDE.md=agents -> AGENTS.md walked",
			"docs/again.md=notes -> docs/notes.md walked",
			"docs/chain.md=agents -> AGENTS.md walked",
			"docs/notes.md=notes",
			"docs/readme.md=agents -> AGENTS.md walked",
		}, []string{"gen by .gitignore gen/", "latest.md by .gitignore gen/"}},
		{"docs", []string{
			"docs/again.md=notes -> docs/notes.md walked",
			"docs/chain.md=agents -> AGENTS.md",
			"docs/notes.md=notes",
			"docs/readme.md=agents -> AGENTS.md",
		}, nil},
		// A directory named is walked, ignored or not, and so are the
		// symlinks in it to its files.
		{"gen", []string{
			"gen/current.md=generated -> gen/out.md walked",
			"gen/out.md=generated",
		}, nil},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			var got, skipped []string
			err := v.WalkFiles(ctx, tc.dir, func(s Skip) {
				skipped = append(skipped, fmt.Sprintf("%s by %s %s", s.Rel, s.File, s.Rule))
			}, nil, func(e *Entry, err error) error {
				if err != nil {
					return nil
				}
				s, err := v.ReadEntry(ctx, e, nil)
				if err != nil {
					t.Errorf("%s: %v", e.Rel, err)
					return nil
				}
				line := e.Rel + "=" + strings.TrimSuffix(string(s.Window), "\n")
				s.Release()
				if target, walked := e.Target(); target.URI != "" {
					line += " -> " + target.Rel
					if walked {
						line += " walked"
					}
					if target.URI != fileuri.Of(filepath.Join(root, target.Rel)) {
						t.Errorf("%s: target %s is not named as its Rel, %s", e.Rel, target.URI, target.Rel)
					}
				}
				got = append(got, line)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("walk of %s gave\n%s\nwant\n%s", tc.dir, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if strings.Join(skipped, "|") != strings.Join(tc.skipped, "|") {
				t.Errorf("skipped %q, want %q", skipped, tc.skipped)
			}
			// List gives the same files.
			var listed []string
			for _, name := range listAll(t, v, tc.dir, ListOptions{}) {
				if !strings.HasSuffix(name, "/") {
					listed = append(listed, name)
				}
			}
			var walked []string
			for _, line := range got {
				walked = append(walked, line[:strings.IndexByte(line, '=')])
			}
			if strings.Join(listed, "|") != strings.Join(walked, "|") {
				t.Errorf("list shows %q, the walk gave %q", listed, walked)
			}
		})
	}
}
