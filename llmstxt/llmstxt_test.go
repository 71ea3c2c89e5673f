package llmstxt_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/llmstxt"
)

// tree writes files (slash paths to their text) under a new directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docsTree is a small docs tree with files the view hides, files that
// are no documents, and old outputs.
func docsTree(t *testing.T) string {
	return tree(t, map[string]string{
		"README.md":             "# Folio Docs\n\nFolio serves files to agents in pages. It counts tokens exactly.\n\n## More\n\nText.\n",
		"guide.md":              "---\ntitle: The Guide\n---\n\nStart here. Then go on.\n",
		"docs/setup.md":         "# Setup\n\nInstall it with go install, e.g. from a checkout. Then run it.\n",
		"docs/deep/notes.rst":   "Notes\n=====\n\nA note on [brackets] and more!\n",
		"docs/plain.txt":        "no heading here, just words\n",
		"docs/a b(c).rst":       "Odd [name]\n==========\n\nBody.\n",
		"secret.md":             "# Secret\n\nthe word swordfish\n",
		".gitignore":            "ignored.md\n",
		"ignored.md":            "# Ignored\n\nthe word ignoredword\n",
		"big.md":                "# Big\n\n" + strings.Repeat("x", 3000) + "\n",
		"binary.md":             "# Bin\x00\n",
		"main.go":               "package main\n",
		"llms.txt":              "# old index\n",
		"llms-full.txt":         "old full\n",
		"out/llms.txt":          "# old index in out\n",
		"docs/llms-nested.html": "<h1>Nested</h1>\n<p>An HTML page. Second sentence.</p>\n",
	})
}

func open(t *testing.T, dir string) *fsview.FS {
	t.Helper()
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: append(fsview.DefaultDeny(), "secret*"), MaxFileBytes: 2048})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	return fs
}

func TestIndex(t *testing.T) {
	dir := docsTree(t)
	fs := open(t, dir)
	got, err := llmstxt.Index(context.Background(), fs, dir, llmstxt.Options{Skip: func(rel string) bool { return strings.HasPrefix(rel, "out/") }})
	if err != nil {
		t.Fatal(err)
	}
	want := `# Folio Docs

> Folio serves files to agents in pages. It counts tokens exactly.

Each link is a document of this tree, with the first sentence of its text; llms-full.txt beside this file holds the documents whole.

## Docs

- [Folio Docs](README.md): Folio serves files to agents in pages.
- [The Guide](guide.md): Start here.

## docs

- [Odd \[name\]](docs/a%20b%28c%29.rst): Body.
- [Nested](docs/llms-nested.html): An HTML page.
- [plain.txt](docs/plain.txt): no heading here, just words
- [Setup](docs/setup.md): Install it with go install, e.g. from a checkout.

## docs/deep

- [Notes](docs/deep/notes.rst): A note on [brackets] and more!
`
	if string(got) != want {
		t.Errorf("llms.txt:\n%s\nwant:\n%s", got, want)
	}
	checkLinks(t, dir, "", got)
}

// checkLinks checks that every link of index, read from the directory
// at, names a file under dir.
func checkLinks(t *testing.T, at, prefix string, index []byte) {
	t.Helper()
	links := regexp.MustCompile(`\]\(([^)]*)\)`).FindAllSubmatch(index, -1)
	if len(links) == 0 {
		t.Fatal("no links")
	}
	for _, l := range links {
		p, err := url.PathUnescape(string(l[1]))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p, prefix) {
			t.Errorf("link %s does not start with %s", p, prefix)
		}
		if _, err := os.Stat(filepath.Join(at, filepath.FromSlash(p))); err != nil {
			t.Errorf("link %s: %v", l[1], err)
		}
	}
}

// splitFull parses llms-full.txt into its documents (path to bytes), and
// what follows the last one.
func splitFull(t *testing.T, full []byte) (map[string]string, string) {
	t.Helper()
	header := regexp.MustCompile(`(?m)^=== (.*) \((\d+) bytes\) ===\n`)
	docs := map[string]string{}
	loc := header.FindIndex(full)
	if loc == nil {
		return docs, ""
	}
	rest := full[loc[0]:]
	for {
		m := header.FindSubmatch(rest)
		if m == nil || !bytes.HasPrefix(rest, m[0]) {
			return docs, string(rest)
		}
		n, _ := strconv.Atoi(string(m[2]))
		body := rest[len(m[0]):]
		if len(body) < n+1 || body[n] != '\n' {
			t.Fatalf("document %s is not %d bytes and a newline", m[1], n)
		}
		docs[string(m[1])] = string(body[:n])
		rest = body[n+1:]
	}
}

func TestFull(t *testing.T) {
	dir := docsTree(t)
	fs := open(t, dir)
	var full bytes.Buffer
	index, err := llmstxt.Write(context.Background(), fs, dir, llmstxt.Options{Skip: func(rel string) bool { return strings.HasPrefix(rel, "out/") }}, &full)
	if err != nil {
		t.Fatal(err)
	}
	again, err := llmstxt.Index(context.Background(), fs, dir, llmstxt.Options{Skip: func(rel string) bool { return strings.HasPrefix(rel, "out/") }})
	if err != nil || !bytes.Equal(index, again) {
		t.Errorf("Write's llms.txt differs from Index's (%v)", err)
	}
	if !strings.HasPrefix(full.String(), "# Folio Docs\n\n> Folio serves files to agents in pages. It counts tokens exactly.\n\nEach document") {
		t.Errorf("llms-full.txt starts:\n%.200s", full.String())
	}
	docs, tail := splitFull(t, full.Bytes())
	if tail != "" {
		t.Errorf("after the last document: %q", tail)
	}
	want := []string{"README.md", "guide.md", "docs/a b(c).rst", "docs/llms-nested.html", "docs/plain.txt", "docs/setup.md", "docs/deep/notes.rst"}
	if len(docs) != len(want) {
		t.Errorf("documents %v, want %v", keys(docs), want)
	}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || docs[name] != string(b) {
			t.Errorf("%s: %q, want its bytes %q (%v)", name, docs[name], b, err)
		}
	}
	for _, word := range []string{"swordfish", "ignoredword", "old index", "old full", "package main", "xxxx"} {
		if strings.Contains(full.String(), word) || bytes.Contains(index, []byte(word)) {
			t.Errorf("%q, which the view hides or is no document, is in the outputs", word)
		}
	}
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

func TestBounds(t *testing.T) {
	files := map[string]string{"README.md": "# Many\n\nMany documents.\n"}
	for i := range 200 {
		files[fmt.Sprintf("d%02d/doc%03d.md", i%20, i)] = fmt.Sprintf("# Document %d\n\nIt says %s.\n", i, strings.Repeat("words ", 40))
	}
	dir := tree(t, files)
	fs := open(t, dir)
	const maxIndex, maxFull = 2000, 5000
	var full bytes.Buffer
	index, err := llmstxt.Write(context.Background(), fs, dir, llmstxt.Options{MaxIndexBytes: maxIndex, MaxFullBytes: maxFull}, &full)
	if err != nil {
		t.Fatal(err)
	}
	if len(index) > maxIndex || full.Len() > maxFull {
		t.Errorf("llms.txt %d bytes (bound %d), llms-full.txt %d (bound %d)", len(index), maxIndex, full.Len(), maxFull)
	}
	listed := bytes.Count(index, []byte("\n- ["))
	if note := fmt.Sprintf("[folio] llms.txt stops at its bound of %d bytes: %d more documents are not listed.\n", maxIndex, 201-listed); !bytes.HasSuffix(index, []byte(note)) {
		t.Errorf("llms.txt ends:\n%s\nwant %s", index[max(0, len(index)-200):], note)
	}
	docs, tail := splitFull(t, full.Bytes())
	if note := fmt.Sprintf("[folio] llms-full.txt stops at its bound of %d bytes: %d more documents are not in it; read them by their own paths.\n", maxFull, 201-len(docs)); tail != note {
		t.Errorf("llms-full.txt ends %q, want %q", tail, note)
	}
	checkLinks(t, dir, "", index)
}

func TestNoReadme(t *testing.T) {
	dir := tree(t, map[string]string{"sub/a.md": "# A\n\nAbout a.\n"})
	fs := open(t, dir)
	index, err := llmstxt.Index(context.Background(), fs, dir, llmstxt.Options{LinkPrefix: "../tree/"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# " + filepath.Base(dir) + "\n\nEach link is a document of this tree, with the first sentence of its text; llms-full.txt beside this file holds the documents whole.\n\n## sub\n\n- [A](../tree/sub/a.md): About a.\n"
	if string(index) != want {
		t.Errorf("llms.txt:\n%s\nwant:\n%s", index, want)
	}
}

func TestNotADirectory(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "# A\n"})
	fs := open(t, dir)
	if _, err := llmstxt.Index(context.Background(), fs, filepath.Join(dir, "a.md"), llmstxt.Options{}); err == nil {
		t.Error("a file made an llms.txt")
	}
}

// TestLongDocuments: a document's title and first sentence are read from
// its opening, even when its first paragraph is one line longer than that.
func TestLongDocuments(t *testing.T) {
	dir := tree(t, map[string]string{
		"long.md":  "# Long\n\nIt begins. " + strings.Repeat("Word ", 4000) + "\n",
		"lines.md": "# Lines\n\nFirst of many. Lines.\n" + strings.Repeat("line\n", 4000),
	})
	fs, err := fsview.Open([]string{dir}, fsview.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	index, err := llmstxt.Index(context.Background(), fs, dir, llmstxt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- [Lines](lines.md): First of many.\n", "- [Long](long.md): It begins.\n"} {
		if !bytes.Contains(index, []byte(want)) {
			t.Errorf("llms.txt lacks %q:\n%s", want, index)
		}
	}
}
