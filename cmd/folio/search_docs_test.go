package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/tokencount"
)

// docsFixture is the docs search's fixture corpus (see
// testdata/docsearch).
var docsFixture, _ = filepath.Abs("../../testdata/docsearch/corpus")

// firstPassage is the line that opens an answer's first passage.
var firstPassage = regexp.MustCompile(`^(\S+):(\d+)-(\d+) @([0-9a-f]{32})`)

// TestSearchCommand runs folio search on the fixture's docs: the passage
// that answers comes first, with the file's version as b3sum gives it
// (checked by hash), and the answer is within its budget by tiktoken's
// count (held to tiktoken in package tokencount).
func TestSearchCommand(t *testing.T) {
	t.Parallel()
	r := folio(t, "", "search", "--root", docsFixture, "--max-tokens", "500", "how do I make a flag required in urfave cli")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := firstPassage.FindStringSubmatch(r.stdout)
	if m == nil || !strings.HasPrefix(m[1], "urfave-cli/") {
		t.Fatalf("answer:\n%s", r.stdout)
	}
	hash := folio(t, "", "hash", filepath.Join(docsFixture, m[1]))
	if !strings.HasPrefix(hash.stdout, m[4]) {
		t.Errorf("version %s, hash says %s", m[4], hash.stdout)
	}
	if !strings.Contains(r.stdout, "`Required` field to `true`") {
		t.Errorf("the answer misses the passage that answers:\n%s", r.stdout)
	}
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Count(strings.TrimSuffix(r.stdout, "\n")); n > 500 {
		t.Errorf("answer of %d tokens for a budget of 500", n)
	}
	for _, bad := range [][]string{{"search", "--root", docsFixture}, {"search", "--root", docsFixture, "--max-tokens", "0", "x"}} {
		if r := folio(t, "", bad...); r.code != exitInvalidArgument {
			t.Errorf("%v: exit %d", bad, r.code)
		}
	}
	if r := folio(t, "", "search", "--root", docsFixture, "--path", "nowhere", "flags"); r.code != exitNotFound {
		t.Errorf("--path nowhere: exit %d", r.code)
	}
}

// TestServeSearchDocs asks search_docs of folio serve over stdio with the
// official client, while the index may still be building, then once it is
// built; then changes a document and sees the answer follow.
func TestServeSearchDocs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(docsFixture)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(folioBin, "serve", "--root", dir)
	cmd.Env = testmain.Env(t)
	cs := dial(t, &mcp.CommandTransport{Command: cmd})
	ask := func(q string) string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_docs", Arguments: map[string]any{"query": q, "max_tokens": 800}})
		if err != nil || res.IsError {
			t.Fatalf("search_docs: %v %v", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	deadline := time.Now().Add(time.Minute)
	for text := ask("a"); strings.Contains(text, "still being built"); text = ask("a") {
		if time.Now().After(deadline) {
			t.Fatal("the index was not built in a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The memory model is HTML: the answer gives its text, not its tags.
	if text := ask("what does the memory model say about a data race"); !strings.Contains(text, "go/go_mem.html:") || strings.Contains(text, "<p>") || strings.Contains(text, "<code>") {
		t.Errorf("answer:\n%s", text)
	}
	write(t, dir, "notes/kestrel.md", "# Kestrel\n\nThe kestrel flag turns on hovering mode.\n")
	for text := ask("kestrel hovering"); !strings.Contains(text, "notes/kestrel.md:3-3"); text = ask("kestrel hovering") {
		if time.Now().After(deadline) {
			t.Fatalf("a new document was not indexed:\n%s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSearchPaths: folio search takes the question as its first argument
// and the files and directories to search after it, as grep and rg do:
// only they are searched; a word after the question that is no path is an
// invalid argument that says to quote the question; a --root or --path
// that is not there is not_found (exit 3), never an internal error; PATHs
// go with neither --root nor --path.
func TestSearchPaths(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "guide/closing.md", "# Closing\n\nIssues close when the fix is merged.\n")
	write(t, dir, "notes/closing.md", "# Notes\n\nIssues close on Fridays, the notes say.\n")
	write(t, dir, "faq.md", "# FAQ\n\nIssues close after a review.\n")
	write(t, dir, "main.go", "package main // issues close\n")
	const merged, fridays, review = "when the fix is merged", "on Fridays", "after a review"
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		code   int
		has    []string // in stdout
		hasNot []string // in stdout
		stderr string
	}{
		{"a directory", nil, []string{"when do issues close", "guide"}, 0, []string{"closing.md:3-3", merged}, []string{fridays, review}, ""},
		{"a file and a directory", nil, []string{"when do issues close", "faq.md", "notes"}, 0, []string{"faq.md:3-3", "notes/closing.md:3-3", fridays, review}, []string{merged}, ""},
		{"two directories", nil, []string{"when do issues close", "guide", "notes"}, 0, []string{merged, fridays}, []string{review}, ""},
		{"flags after the paths", nil, []string{"when do issues close", "guide", "--max-tokens", "300"}, 0, []string{merged}, []string{fridays}, ""},
		{"no PATH: the working directory", nil, []string{"when do issues close"}, 0, []string{merged, fridays, review}, nil, ""},
		{"PATHs over FOLIO_ROOT", []string{"FOLIO_ROOT=" + filepath.Join(dir, "notes")}, []string{"when do issues close", "guide"}, 0, []string{merged}, []string{fridays}, ""},
		{"FOLIO_ROOT", []string{"FOLIO_ROOT=" + filepath.Join(dir, "notes")}, []string{"when do issues close"}, 0, []string{fridays}, []string{merged}, ""},
		{"--root, as before", nil, []string{"--root", "guide", "when do issues close"}, 0, []string{merged}, []string{fridays}, ""},
		{"--root and --path, as before", nil, []string{"--root", ".", "--path", "notes", "when do issues close"}, 0, []string{fridays}, []string{merged}, ""},
		{"unquoted words", nil, []string{"when", "do", "issues", "close"}, 2, nil, nil,
			`folio: invalid_argument: "do" is not a file or directory: quote the question ("when do issues close")`},
		{"a word after the question", nil, []string{"when do issues", "close"}, 2, nil, nil,
			`folio: invalid_argument: "close" is not a file or directory: quote the question ("when do issues close")`},
		{"a PATH that is not there", nil, []string{"issues", filepath.Join(dir, "nowhere")}, 2, nil, nil,
			`folio: invalid_argument: "` + filepath.Join(dir, "nowhere") + `" is not a file or directory`},
		{"a --root that is not there", nil, []string{"--root", filepath.Join(dir, "nowhere"), "issues"}, 3, nil, nil,
			"folio: not_found: --root " + filepath.Join(dir, "nowhere") + ": no such file or directory"},
		{"a FOLIO_ROOT that is not there", []string{"FOLIO_ROOT=/nonexistent-folio"}, []string{"issues"}, 3, nil, nil,
			"folio: not_found: FOLIO_ROOT /nonexistent-folio: no such file or directory"},
		{"a --path that is not there", nil, []string{"--path", "nowhere", "issues"}, 3, nil, nil,
			"folio: not_found: --path nowhere: no such file or directory under "},
		{"PATHs and --root", nil, []string{"--root", "guide", "issues", "notes"}, 2, nil, nil, "as PATHs after the question or with --root, not both"},
		{"PATHs and --path", nil, []string{"--path", "guide", "issues", "notes"}, 2, nil, nil, "with PATHs, give that file or directory as a PATH"},
		{"a file search does not read", nil, []string{"issues", "main.go"}, 2, nil, nil, "main.go is not a document search reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(folioBin, append([]string{"search"}, tc.args...)...)
			cmd.Dir = dir
			cmd.Env = testmain.Env(t, tc.env...)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.code || !strings.Contains(errb.String(), tc.stderr) || strings.Contains(errb.String(), "internal") {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errb.String(), tc.stderr)
			}
			if tc.code != 0 && strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Errorf("the error is more than one line: %q", errb.String())
			}
			for _, s := range tc.has {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the answer misses %q:\n%s", s, out.String())
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(out.String(), s) {
					t.Errorf("the answer has %q, from outside the PATHs:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestServeStoppedBeforeIndexBuilt stops folio serve while its docs index
// is still being built (a tree of 4,000 documents, 40 MB, takes seconds to
// index): the log says the build stopped, with the documents indexed so
// far, and not that an index was built.
func TestServeStoppedBeforeIndexBuilt(t *testing.T) {
	dir := t.TempDir()
	para := strings.Repeat("The kestrel hovers over the field, watching for voles in the grass. ", 150)
	for i := range 4000 {
		write(t, dir, fmt.Sprintf("d%02d/doc%04d.md", i%40, i), fmt.Sprintf("# Doc %d\n\n%s\n", i, para))
	}
	p, err := startProc(t, nil, "--root", dir, "--http", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // some documents indexed, not all
	p.stop(t)
	log := p.stderr.String()
	if strings.Contains(log, "docs index built") {
		t.Fatalf("a stopped build logged an index built:\n%s", log)
	}
	m := regexp.MustCompile(`msg="docs index build stopped before it finished" documents=(\d+) `).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no line says the build stopped:\n%s", log)
	}
	if n, _ := strconv.Atoi(m[1]); n >= 4000 {
		t.Errorf("the build stopped with all %d documents indexed", n)
	} else {
		t.Logf("stopped with %d documents indexed", n)
	}
}

// TestSearchFixtures runs folio search over a checkout whose testdata
// holds a shorter copy of its CLI docs: the docs answer first, the copy is
// not quoted, and --path inside testdata answers from it.
func TestSearchFixtures(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "docs/cli.md", "# Command line\n\nThe serve command takes a root flag and a tokenizer flag.\n\nIt serves the files under the root to agents.\n")
	write(t, dir, "testdata/x/cli.md", "# Command line\n\nThe serve command takes a root flag and a tokenizer flag.\n")
	for _, c := range []struct {
		args  []string
		first string
	}{
		{[]string{"search", "--root", dir, "serve command root flag tokenizer flag"}, "docs/cli.md"},
		{[]string{"search", "--root", dir, "--path", "testdata", "serve command root flag tokenizer flag"}, "testdata/x/cli.md"},
	} {
		r := folio(t, "", c.args...)
		m := firstPassage.FindStringSubmatch(r.stdout)
		if r.code != 0 || m == nil || m[1] != c.first {
			t.Errorf("%v: exit %d, answer:\n%s%s", c.args[3:], r.code, r.stdout, r.stderr)
		}
		if c.first == "docs/cli.md" && strings.Contains(r.stdout, "testdata/") {
			t.Errorf("a fixture quoted:\n%s", r.stdout)
		}
	}
}

// TestSearchPluralMeetsSingular asks in the plural and in another verb
// form than the docs use: "when do issues close" of a file that says "An
// issue closes when its last message is answered" finds that passage,
// words joined by their stem (package rank), not "nothing matches".
func TestSearchPluralMeetsSingular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "tracker.md", "An issue closes when its last message is answered.\n\nLabels sort the tracker's work by kind.\n")
	r := folio(t, "", "search", "when do issues close", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "An issue closes when its last message is answered") || strings.Contains(r.stdout, "nothing matches") {
		t.Errorf("answer:\n%s", r.stdout)
	}
}
