package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	if text := ask("what does the memory model say about a data race"); !strings.Contains(text, "go/go_mem.html:") {
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
