package main

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// llmsTree is a docs tree with a file the default deny list hides, one
// --deny hides, one .gitignore excludes, and old outputs.
func llmsTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README.md":          "# Widget Manual\n\nWidget makes widgets from parts. It is fast.\n",
		"install.md":         "# Installing\n\nRun the installer. Then check.\n",
		"guide/usage.md":     "# Usage\n\nCall widget with a part.\n",
		"guide/api/ref.html": "<h1>Reference</h1>\n<p>Every call, one by one.</p>\n",
		"id_rsa.txt":         "keymaterialword\n",
		"private/plan.md":    "# Plan\n\nplanword\n",
		".gitignore":         "draft.md\n",
		"draft.md":           "# Draft\n\ndraftword\n",
		"llms.txt":           "# oldindexword\n",
		"llms-full.txt":      "oldfullword\n",
	} {
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

// llmsDocs parses llms-full.txt: each document's path and bytes, checked
// to be laid out as its header says.
func llmsDocs(t *testing.T, full []byte) map[string]string {
	t.Helper()
	header := regexp.MustCompile(`(?m)^=== (.*) \((\d+) bytes\) ===\n`)
	docs := map[string]string{}
	loc := header.FindIndex(full)
	if loc == nil {
		t.Fatalf("no document in llms-full.txt:\n%s", full)
	}
	for rest := full[loc[0]:]; len(rest) > 0; {
		m := header.FindSubmatch(rest)
		if m == nil || !bytes.HasPrefix(rest, m[0]) {
			t.Fatalf("llms-full.txt goes on with %q", rest)
		}
		n, _ := strconv.Atoi(string(m[2]))
		body := rest[len(m[0]):]
		if len(body) < n+1 || body[n] != '\n' {
			t.Fatalf("%s is not %d bytes and a newline", m[1], n)
		}
		docs[string(m[1])] = string(body[:n])
		rest = body[n+1:]
	}
	return docs
}

func TestLLMsTxt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		out  func(dir string) string // --out, or "" for none
	}{
		{"in DIR", func(string) string { return "" }},
		{"out inside DIR", func(dir string) string { return filepath.Join(dir, "site") }},
		{"out elsewhere", func(string) string { return filepath.Join(t.TempDir(), "site") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := llmsTree(t)
			args := []string{"llms-txt", "--deny", "private", dir}
			out, prefix := dir, ""
			if o := tc.out(dir); o != "" {
				args = append(args, "--out", o)
				out = o
				back, err := filepath.Rel(o, dir)
				if err != nil {
					t.Fatal(err)
				}
				prefix = filepath.ToSlash(back) + "/"
			}
			var first [2][]byte
			for run := range 2 {
				if r := folio(t, "", args...); r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				index, err := os.ReadFile(filepath.Join(out, "llms.txt"))
				if err != nil {
					t.Fatal(err)
				}
				full, err := os.ReadFile(filepath.Join(out, "llms-full.txt"))
				if err != nil {
					t.Fatal(err)
				}
				if run == 1 && (!bytes.Equal(index, first[0]) || !bytes.Equal(full, first[1])) {
					t.Errorf("a second run wrote other files: its own outputs are in them\n%s", index)
				}
				first = [2][]byte{index, full}
			}
			checkLLMsTxt(t, dir, out, prefix, first[0], first[1])
		})
	}
}

// checkLLMsTxt checks the two files written to out for the tree dir, whose
// links start with prefix.
func checkLLMsTxt(t *testing.T, dir, out, prefix string, index, full []byte) {
	t.Helper()
	for _, want := range []string{
		"# Widget Manual\n\n> Widget makes widgets from parts. It is fast.\n\n",
		"\n## Docs\n\n- [Widget Manual](" + prefix + "README.md): Widget makes widgets from parts.\n- [Installing](" + prefix + "install.md): Run the installer.\n",
		"\n## guide\n\n- [Usage](" + prefix + "guide/usage.md): Call widget with a part.\n",
		"\n## guide/api\n\n- [Reference](" + prefix + "guide/api/ref.html): Every call, one by one.\n",
	} {
		if !bytes.Contains(index, []byte(want)) {
			t.Errorf("llms.txt lacks %q:\n%s", want, index)
		}
	}
	for _, l := range regexp.MustCompile(`\]\(([^)]*)\)`).FindAllSubmatch(index, -1) {
		p, err := url.PathUnescape(string(l[1]))
		if err == nil {
			_, err = os.Stat(filepath.Join(out, filepath.FromSlash(p)))
		}
		if err != nil {
			t.Errorf("link %s does not resolve from %s: %v", l[1], out, err)
		}
	}
	docs := llmsDocs(t, full)
	want := []string{"README.md", "install.md", "guide/usage.md", "guide/api/ref.html"}
	if len(docs) != len(want) {
		t.Errorf("llms-full.txt holds %d documents, want %v", len(docs), want)
	}
	for _, name := range want {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || docs[name] != string(b) {
			t.Errorf("%s in llms-full.txt: %q, want %q", name, docs[name], b)
		}
	}
	for _, word := range []string{"keymaterialword", "planword", "draftword", "oldindexword", "oldfullword"} {
		if bytes.Contains(index, []byte(word)) || bytes.Contains(full, []byte(word)) {
			t.Errorf("%s, hidden or an old output, is in the new outputs", word)
		}
	}
}

func TestLLMsTxtErrors(t *testing.T) {
	t.Parallel()
	dir := llmsTree(t)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"llms-txt"}, exitInvalidArgument, "llms-txt takes one DIR"},
		{[]string{"llms-txt", dir, dir}, exitInvalidArgument, "llms-txt takes one DIR"},
		{[]string{"llms-txt", filepath.Join(dir, "README.md")}, exitInvalidArgument, "is not a directory"},
		{[]string{"llms-txt", filepath.Join(dir, "missing")}, exitNotFound, "no such directory"},
		{[]string{"llms-txt", "--max-index-bytes", "10", dir}, exitInvalidArgument, "at least 1024"},
	} {
		r := folio(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("folio %v: exit %d, %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.says)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "llms.txt")); string(b) != "# oldindexword\n" {
		t.Errorf("a failed run changed llms.txt: %q", b)
	}
}
