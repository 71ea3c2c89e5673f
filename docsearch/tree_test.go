package docsearch

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
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

// passageHeader is the line that opens a passage in an answer, its path
// first.
var passageHeader = regexp.MustCompile(`(?m)^(\S+):\d+-\d+`)

// TestTreeFixtures serves a checkout whose test fixtures say what its docs
// say, in fewer words (so they would rank first): a question is answered
// from the docs, the fixtures only when the search is inside their folder
// (or names one of them), or when the root itself is inside one; when
// only fixtures match, the answer says where they are.
func TestTreeFixtures(t *testing.T) {
	top := t.TempDir()
	root, second := filepath.Join(top, "checkout"), filepath.Join(top, "testdata", "corpus")
	docs := map[string]string{
		"checkout/docs/cli.md": "# Command line\n\nThe serve command takes a root flag and a tokenizer flag.\n\n" +
			"It serves the files under the root to agents, over standard input and output or HTTP, and logs to standard error.\n",
		"checkout/testdata/x/cli.md":      "# Command line\n\nThe serve command takes a root flag and a tokenizer flag.\n",
		"checkout/pkg/fixtures/cli.md":    "# Serve\n\nThe serve command takes a root flag.\n",
		"checkout/testdata/only.md":       "# Osprey\n\nThe osprey fixture dives for fish.\n",
		"testdata/corpus/guide/heron.md":  "# Heron\n\nThe heron stands in the shallows.\n",
		"checkout/docs/testdata-notes.md": "# Notes\n\nA file named like a fixture folder: the kestrel hovers.\n",
	}
	for name, text := range docs {
		p := filepath.Join(top, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := fsview.Open([]string{root, second}, fsview.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	tr := NewTree(fs, TreeOptions{})
	if err := tr.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		question, under string
		first           string // the first passage's path, "" for none
		note            string // a part of the answer's note
	}{
		{"serve command root flag tokenizer flag", "", "docs/cli.md", ""},
		{"serve command root flag tokenizer flag", "docs", "docs/cli.md", ""},
		{"serve command root flag tokenizer flag", "testdata", "testdata/x/cli.md", ""},
		{"serve command root flag tokenizer flag", "testdata/x", "testdata/x/cli.md", ""},
		{"serve command root flag", "pkg/fixtures", "pkg/fixtures/cli.md", ""},
		{"serve command root flag", "pkg/fixtures/cli.md", "pkg/fixtures/cli.md", ""},
		{"osprey dives for fish", "", "", "test fixtures match (testdata/only.md, say)"},
		{"osprey dives for fish", "testdata", "testdata/only.md", ""},
		{"kestrel hovers", "", "docs/testdata-notes.md", ""},
		{"heron shallows", "", second + "/guide/heron.md", ""},
	} {
		ans, err := tr.Ask(context.Background(), fs, c.under, Query{Text: c.question, MaxTokens: 500}, func(s string) int { return len(s) / 4 })
		if err != nil {
			t.Fatalf("%q under %q: %v", c.question, c.under, err)
		}
		first, _, _ := strings.Cut(ans.Text, ":")
		if c.first == "" && ans.Passages > 0 || c.first != "" && first != c.first {
			t.Errorf("%q under %q: answered\n%s", c.question, c.under, ans.Text)
		}
		for _, m := range passageHeader.FindAllStringSubmatch(ans.Text, -1) {
			if c.under == "" && Fixture(tr.relOf(m[1])) {
				t.Errorf("%q: a fixture quoted:\n%s", c.question, ans.Text)
			}
		}
		if !strings.Contains(ans.Text, c.note) {
			t.Errorf("%q under %q: no note %q:\n%s", c.question, c.under, c.note, ans.Text)
		}
	}
}

// passageVersion finds each passage's path and version in an answer.
var passageVersion = regexp.MustCompile(`(?m)^(\S+):\d+-\d+ @(\S+)`)

// TestTreeAskVersions: each passage is quoted with the version of the
// very bytes it is quoted from, the view's: over files that hold still
// (the fixture's corpus, whose versions the view remembers after the
// first answer) and over a file changed after it was indexed (quoted
// from its new text, by its new version).
func TestTreeAskVersions(t *testing.T) {
	count := func(s string) int { return len(s) / 4 }
	check := func(t *testing.T, root, question, want string, change bool) {
		t.Helper()
		fs, err := fsview.Open([]string{root}, fsview.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer fs.Close()
		tr := NewTree(fs, TreeOptions{})
		if err := tr.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			ans, err := tr.Ask(context.Background(), fs, "", Query{Text: question, MaxTokens: 2000}, count)
			if err != nil {
				t.Fatal(err)
			}
			ms := passageVersion.FindAllStringSubmatch(ans.Text, -1)
			if len(ms) == 0 || !strings.Contains(ans.Text, want) {
				t.Fatalf("answer %d has no passage with %q:\n%s", i, want, ans.Text)
			}
			for _, m := range ms {
				text, err := os.ReadFile(filepath.Join(root, m[1]))
				if err != nil {
					t.Fatal(err)
				}
				if v := fsview.VersionOf(text).String(); m[2] != v {
					t.Errorf("answer %d quotes %s @%s, its version is %s", i, m[1], m[2], v)
				}
			}
			if i == 0 && change {
				// Changed after it was indexed: same size, another word.
				if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n\nThe kestrel hovers down.\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				want = "kestrel hovers down."
			}
		}
	}
	t.Run("corpus", func(t *testing.T) {
		root, err := filepath.Abs(filepath.Join(fixture, "corpus"))
		if err != nil {
			t.Fatal(err)
		}
		q := questions(t)[0]
		check(t, root, q.Question, "@", false)
	})
	t.Run("changed", func(t *testing.T) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n\nThe kestrel hovers high.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, root, "kestrel hovers", "kestrel hovers high.", true)
	})
}
