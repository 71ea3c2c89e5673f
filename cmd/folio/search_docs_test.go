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
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(docsFixture)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(folioBin, "serve", "--root", dir)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+stateDir(t))
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
