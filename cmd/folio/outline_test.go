package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/tokencount"
)

// TestOutlineCommand: folio outline of a directory (names relative to it,
// ignore files applied) and of a file, each line's tokens the counter's;
// a small budget's more: line is the command that goes on; exit codes.
func TestOutlineCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := "# A\n\nalpha text\n"
	b := "Title\n=====\n\n## B c\n\nbeta text\n"
	write(t, dir, "a.md", a)
	write(t, dir, "sub/b.md", b)
	write(t, dir, ".gitignore", "ignored/\n")
	write(t, dir, "ignored/c.md", "# C\n")
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	r := folio(t, "", "outline", dir)
	want := fmt.Sprintf("%d .gitignore\n%d a.md # A\n%d sub/b.md # Title\n[folio] 1 ignored path not outlined (ignored/ by .gitignore \"ignored/\"): outline one by its path to see it\n",
		c.Count("ignored/\n"), c.Count(a), c.Count(b))
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d %s\n%s\nwant\n%s", r.code, r.stderr, r.stdout, want)
	}
	r = folio(t, "", "outline", filepath.Join(dir, "sub/b.md"))
	want = fmt.Sprintf("b.md: 6 lines, %d tokens\n1-6 %d # Title\n4-6 %d ## B c\n", c.Count(b), c.Count(b), c.Count("## B c\n\nbeta text\n"))
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d %s\n%s\nwant\n%s", r.code, r.stderr, r.stdout, want)
	}
	// Pages of 60 tokens, each command from the last one's more: line,
	// run in dir: the line names the file as it was given, and an
	// absolute name under the temporary directory made what fits depend
	// on how long that directory's name was.
	args := []string{"outline", "--max-tokens", "60", "sub/b.md"}
	var lines []string
	answers := 0
	for range 10 {
		answers++
		r = folioIn(t, dir, "", args...)
		if r.code != 0 || c.Count(r.stdout) > 60 {
			t.Fatalf("exit %d %s: %q", r.code, r.stderr, r.stdout)
		}
		out, more, ok := strings.Cut(r.stdout, "[folio] more: folio ")
		lines = append(lines, strings.SplitAfter(out, "\n")[1:]...)
		if !ok {
			break
		}
		args = strings.Fields(more)
	}
	if got := strings.Join(lines, ""); answers < 2 || got != strings.Join(strings.SplitAfter(want, "\n")[1:], "") {
		t.Fatalf("paged in %d answers: %q", answers, got)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"outline", filepath.Join(dir, "missing")}, 3},
		{[]string{"outline", "--max-tokens", "5", dir}, 7},
		{[]string{"outline", "--cursor", "123", dir}, 5},
		{[]string{"outline"}, 2},
	} {
		if r := folio(t, "", tc.args...); r.code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, r.code, tc.code, r.stderr)
		}
	}
}
