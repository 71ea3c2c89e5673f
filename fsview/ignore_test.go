package fsview

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoreTree is a repository whose ignore files use the rules people
// write: globs, negations, anchors, directory-only patterns, **, escapes,
// trailing spaces, comments, nested files and .git/info/exclude; a byte
// order mark, "everything but" and a directory's contents with one file
// taken back.
var ignoreTree = map[string]string{
	".gitignore":          "# comment\n*.log\n!keep.log\nbuild/\n/rootonly.txt\ndocs/**/*.tmp\n\\#hash.txt\ntrailing.txt   \na/**/b\n*.o\nvendor\n!vendor/\ncache/*\n!cache/keep/\n",
	"sub/.gitignore":      "!important.o\nlocal.txt\n/anchored.txt\nnested/\n*.txt\n!want.txt\n",
	"sub/deep/.gitignore": "!*.txt\n",
	".git/info/exclude":   "secret-notes.md\n",
	"keep.log":            "", "x.log": "", "sub/x.log": "", "sub/keep.log": "",
	"build/out.txt": "", "sub/build/out.md": "", "build.md": "",
	"rootonly.txt": "", "sub/rootonly.md": "",
	"docs/a/b/c.tmp": "", "docs/c.tmp": "", "docs/readme.md": "", "other/c.tmp": "",
	"#hash.txt": "", "trailing.txt": "",
	"a/b": "", "a/x/y/b": "", "a/x/b/file.md": "", "a/c": "",
	"x.o": "", "sub/important.o": "", "sub/deep/y.o": "",
	"sub/local.md": "", "local.txt": "", "sub/anchored.md": "", "sub/deeper/anchored.md": "",
	"sub/nested/f.md": "", "nested/f.md": "", "sub/want.txt": "", "sub/other.txt": "", "sub/deep/z.txt": "",
	"vendor/lib.go": "", "sub/vendor": "",
	"cache/a.md": "", "cache/keep/b.md": "",
	"secret-notes.md": "", "sub/secret-notes.md": "",
	"main.go": "",
	// A byte order mark before the first rule.
	"bom/.gitignore": "\ufeffsecret.txt\nother.txt\n", "bom/secret.txt": "", "bom/other.txt": "", "bom/kept.md": "",
	// Ignore everything except directories and Markdown.
	"except/.gitignore": "*\n!*/\n!*.md\n", "except/a.txt": "", "except/a.md": "",
	"except/sub/b.txt": "", "except/sub/b.md": "", "except/sub/deeper/c.go": "", "except/sub/deeper/c.md": "",
	// What is inside a directory, then one file of it again.
	"logsdir/.gitignore": "logs/**\n!logs/keep.txt\n", "logsdir/logs/keep.txt": "", "logsdir/logs/a.log": "",
	"logsdir/logs/deep/b.log": "", "logsdir/other.md": "",
}

// TestIgnoreFilesAgreeWithGit lists a tree with nested ignore files and
// holds what folio shows to what git check-ignore says of every path: a
// path is listed exactly when git does not ignore it (or a directory
// above it). The same rules in .ignore files give the same listing, and
// NoIgnore lists everything.
func TestIgnoreFilesAgreeWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && args[0] == "check-ignore" {
			err = nil // nothing ignored
		}
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("", "init", "-q")
	var all []string
	for name, content := range ignoreTree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, ".git/") {
			all = append(all, name)
		}
	}
	// Every path and every directory above one, as git would name them.
	paths := map[string]bool{}
	for _, name := range all {
		for p := name; p != "."; p = filepath.ToSlash(filepath.Dir(p)) {
			paths[p] = true
		}
	}
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	slices.Sort(names)
	ignored := map[string]bool{}
	for _, line := range strings.Split(git(strings.Join(names, "\n")+"\n", "check-ignore", "--stdin"), "\n") {
		if line != "" {
			ignored[strings.Trim(line, `"`)] = true
		}
	}
	if len(ignored) < 10 {
		t.Fatalf("git ignores only %v: the tree tests little", ignored)
	}
	var want []string
	for _, p := range names {
		hidden := false
		for q := p; q != "."; q = filepath.ToSlash(filepath.Dir(q)) {
			hidden = hidden || ignored[q]
		}
		if !hidden {
			want = append(want, p)
		}
	}

	list := func(opt Options) []string {
		opt.Deny = DefaultDeny()
		v, err := Open([]string{dir}, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		var got []string
		for _, e := range listAll(t, v, ".", ListOptions{}) {
			got = append(got, strings.TrimSuffix(e, "/"))
		}
		slices.Sort(got)
		return got
	}
	if got := list(Options{}); !slices.Equal(got, want) {
		t.Fatalf("folio lists\n%v\ngit keeps\n%v\nonly folio: %v\nonly git: %v", got, want, minus(got, want), minus(want, got))
	}
	if got := list(Options{NoIgnore: true}); !slices.Equal(got, names) {
		t.Fatalf("NoIgnore lists %v, want every path", minus(names, got))
	}

	// A walk that starts below the root keeps the rules of the
	// directories above it.
	v, err := Open([]string{dir}, Options{Deny: DefaultDeny()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var sub []string
	v.Walk(context.Background(), "sub", nil, func(f File, err error) error {
		if err == nil {
			sub = append(sub, f.Rel)
		}
		return nil
	})
	var wantSub []string
	for _, p := range want {
		if info, err := os.Stat(filepath.Join(dir, p)); strings.HasPrefix(p, "sub/") && err == nil && !info.IsDir() {
			wantSub = append(wantSub, p)
		}
	}
	slices.Sort(sub)
	if !slices.Equal(sub, wantSub) {
		t.Fatalf("walk of sub: %v, want %v", sub, wantSub)
	}
	// Ignored says of each path what the listing shows.
	real, _ := filepath.EvalSymlinks(dir)
	for _, p := range names {
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Ignored(filepath.Join(real, p), info.IsDir()); got == slices.Contains(want, p) {
			t.Errorf("Ignored(%s) = %v, against git", p, got)
		}
	}
	// A file ignored is still read by its name.
	if _, err := v.Regular("x.log"); err != nil {
		t.Fatalf("reading an ignored file by name: %v", err)
	}

	// The same rules in .ignore files, with no .git: the same listing,
	// but for what only .git/info/exclude said.
	for name := range ignoreTree {
		if path.Base(name) != ".gitignore" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Rename(p, strings.TrimSuffix(p, ".gitignore")+".ignore"); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(dir, ".git"))
	rename := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if strings.HasSuffix(p, ".gitignore") {
				p = strings.TrimSuffix(p, ".gitignore") + ".ignore"
			}
			out = append(out, p)
		}
		slices.Sort(out)
		return out
	}
	wantIgnore := rename(append(slices.Clone(want), "secret-notes.md", "sub/secret-notes.md"))
	if got := list(Options{}); !slices.Equal(got, wantIgnore) {
		t.Fatalf(".ignore files: only folio %v, only expected %v", minus(got, wantIgnore), minus(wantIgnore, got))
	}
}

// minus is what a holds that b does not.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// FuzzIgnorePattern: any line parses and matches without a panic, and a
// rule behaves as gitignore(5) says whatever it holds: "!" takes back
// exactly what the rule matches; a rule without "/" looks at a path's last
// name only.
func FuzzIgnorePattern(f *testing.F) {
	for _, rule := range []string{"*.log", "build/", "/root.txt", "a/**/b", "logs/**", "**/x", "[a-c]?.md", `\#h`, "{a,b}", "x\\ ", "*"} {
		f.Add(rule, "logs/a/b.log", true)
	}
	f.Fuzz(func(t *testing.T, rule, rel string, isDir bool) {
		parts := split(strings.Trim(path.Clean("/"+rel), "/"))
		if len(parts) == 0 || strings.ContainsAny(rule, "\n\r") {
			return
		}
		p, ok := parsePattern(rule, nil)
		if !ok {
			return
		}
		got := p.match(parts, isDir)
		if !strings.HasPrefix(rule, "!") && !strings.HasPrefix(rule, "#") {
			if n, ok := parsePattern("!"+rule, nil); !ok || !n.negate || n.match(parts, isDir) != got {
				t.Errorf("!%q does not match as %q does (%v) on %q", rule, rule, got, rel)
			}
		}
		if p.basename && p.match(parts[len(parts)-1:], isDir) != got {
			t.Errorf("%q matches %q by more than its last name", rule, rel)
		}
	})
}

// TestSkipsNote: a note names the first five paths left out, with their
// file and rule, and counts the rest.
func TestSkipsNote(t *testing.T) {
	var k Skips
	if k.Note("x", "y") != "" {
		t.Error("a note of nothing left out")
	}
	for i := range 7 {
		k.Add(Skip{Rel: fmt.Sprintf("d%d", i), Dir: i == 0, File: ".gitignore", Rule: "d*"})
	}
	want := `7 ignored paths not listed (d0/ by .gitignore "d*", d1 by .gitignore "d*", d2 by .gitignore "d*", d3 by .gitignore "d*", d4 by .gitignore "d*", 2 more): list one`
	if got := k.Note("not listed", "list one"); got != want || len(k.First) != 5 {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
