package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
)

// TestServeGrepSearchesSymlinkedFiles: through folio serve, a repository's
// CLAUDE.md -> AGENTS.md is listed, read and searched: grep finds its text
// once, under AGENTS.md, or under CLAUDE.md when the glob names it, and
// under the symlink when the file it leads to is outside the path
// searched. A symlink out of the root is neither listed nor searched.
func TestServeGrepSearchesSymlinkedFiles(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	write(t, dir, "AGENTS.md", "# Agents\nRun the needle tests.\n")
	write(t, dir, "docs/guide.md", "no match here\n")
	write(t, base, "secret.md", "needle outside\n")
	for name, target := range map[string]string{
		"CLAUDE.md":       "AGENTS.md",
		"docs/agents.md":  "../AGENTS.md",
		"docs/leak.md":    "../../secret.md",
		"docs/agents2.md": "agents.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	cs := serveStdio(t, []string{dir})
	if text := mcptest.Text(mcptest.Call(t, cs, "list", map[string]any{"recursive": true})); text != "AGENTS.md\nCLAUDE.md\ndocs/\ndocs/agents.md\ndocs/agents2.md\ndocs/guide.md\n" {
		t.Errorf("list:\n%s", text)
	}
	if a := readLines(t, cs, map[string]any{"path": "CLAUDE.md"}); a.lines != "# Agents\nRun the needle tests.\n" {
		t.Errorf("read CLAUDE.md: %q", a.lines)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "needle"}, "AGENTS.md\n2:Run the needle tests.\n"},
		{map[string]any{"pattern": "needle", "glob": "CLAUDE.md"}, "CLAUDE.md\n2:Run the needle tests.\n"},
		{map[string]any{"pattern": "needle", "path": "docs"}, "docs/agents.md\n2:Run the needle tests.\n"},
		{map[string]any{"pattern": "needle", "path": "docs", "glob": "agents2.md"}, "docs/agents2.md\n2:Run the needle tests.\n"},
	} {
		if text := mcptest.Text(mcptest.Call(t, cs, "grep", tc.args)); text != tc.want {
			t.Errorf("grep %v:\n%s\nwant\n%s", tc.args, text, tc.want)
		}
	}
}
