package mcpserver

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/llmstxt"
	"github.com/folio-mcp/folio/wire"
)

// llmsEnv serves a docs tree with a denied file, an ignored one and one
// outside alice's allow list.
func llmsEnv(t *testing.T) *env {
	e := newEnv(t)
	e.write(t, "README.md", "# Gadget\n\nGadget does things. Well.\n")
	e.write(t, "guide/start.md", "# Start\n\nBegin here. "+strings.Repeat("Words and more words. ", 300)+"\n")
	e.write(t, "guide/more.md", "# More\n\nMore of it.\n")
	e.write(t, "id_rsa.md", "keywordsecret\n")
	e.write(t, ".gitignore", "draft.md\n")
	e.write(t, "draft.md", "draftword\n")
	e.write(t, "private/p.md", "privateword\n")
	return e
}

// readAllPages follows the read tool's pages of uri and joins them,
// checking that each carries the version.
func readAllPages(t *testing.T, cs *mcp.ClientSession, uri string, maxTokens int) (string, string) {
	t.Helper()
	var b strings.Builder
	version := ""
	args := map[string]any{"path": uri, "max_tokens": maxTokens, "format": "json"}
	for i := 0; ; i++ {
		r := call(t, cs, wire.Read, args)
		if r.isError {
			t.Fatalf("page %d of %s: %s", i, uri, r.text)
		}
		var p struct {
			URI, Content, Version string
			HasMore               bool   `json:"has_more"`
			NextCursor            string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(r.text), &p); err != nil {
			t.Fatal(err)
		}
		if p.URI != uri || (version != "" && p.Version != version) {
			t.Fatalf("page %d: uri %s version %s, want %s %s", i, p.URI, p.Version, uri, version)
		}
		version = p.Version
		b.WriteString(p.Content)
		if !p.HasMore {
			return b.String(), version
		}
		args = map[string]any{"path": uri, "max_tokens": maxTokens, "cursor": p.NextCursor, "format": "json"}
	}
}

// madeURI reports whether uri names a root's llms.txt or llms-full.txt:
// made by folio, in a tree that has none of its own.
func madeURI(uri string) bool {
	base := path.Base(uri)
	return base == llmstxt.IndexName || base == llmstxt.FullName
}

func versionOf(text string) string {
	sum := blake3.Sum256([]byte(text))
	return hex.EncodeToString(sum[:fsview.VersionLen])
}

// TestMadeLLMsTxt: resources/list offers a root's llms.txt and
// llms-full.txt, resources/read gives them with their version, the read
// tool pages them (pages joined give the whole text, which is what
// package llmstxt makes of the caller's view), and neither holds what the
// caller may not see.
func TestMadeLLMsTxt(t *testing.T) {
	e := llmsEnv(t)
	alice := e.addToken(t, "alice", "llms*.txt", "README.md", "guide/**", "id_rsa.md", "draft.md")
	bob := e.addToken(t, "bob", "guide/**")
	url := serveHTTP(t, e.server(t, serverOpts{}))
	cs := dialHTTP(t, url, alice, nil)
	ctx := context.Background()
	root := fileuri.Of(e.fs.Roots()[0])
	index, full := root+"/llms.txt", root+"/llms-full.txt"
	listed := map[string]bool{}
	for res, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[res.URI] = true
	}
	if !listed[index] || !listed[full] || !listed[root+"/guide/start.md"] {
		t.Fatalf("resources/list: %v", listed)
	}
	view, err := e.fs.Restrict([]string{"llms*.txt", "README.md", "guide/**", "id_rsa.md", "draft.md"})
	if err != nil {
		t.Fatal(err)
	}
	var wantFull bytes.Buffer
	wantIndex, err := llmstxt.Write(ctx, view, e.fs.Roots()[0], llmstxt.Options{MaxFullBytes: servedFullBytes}, &wantFull)
	if err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]string{index: string(wantIndex), full: wantFull.String()} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Contents[0].Text
		if got != want || res.Meta[wire.MetaVersion] != versionOf(want) {
			t.Errorf("resources/read %s: version %v\n%s\nwant %s\n%s", uri, res.Meta[wire.MetaVersion], got, versionOf(want), want)
		}
		for _, word := range []string{"keywordsecret", "draftword", "privateword"} {
			if strings.Contains(got, word) {
				t.Errorf("%s holds %s, which alice may not see", uri, word)
			}
		}
		paged, version := readAllPages(t, cs, uri, 300)
		if paged != want || version != versionOf(want) {
			t.Errorf("pages of %s joined: %d bytes, version %s; want %d bytes, %s", uri, len(paged), version, len(want), versionOf(want))
		}
	}
	if !strings.Contains(string(wantIndex), "- [Start](guide/start.md): Begin here.\n") || strings.Contains(string(wantIndex), "private") {
		t.Errorf("llms.txt:\n%s", wantIndex)
	}
	lines := call(t, cs, wire.Read, map[string]any{"path": index, "offset": 1, "limit": 3})
	if lines.isError || !strings.HasPrefix(lines.text, "# Gadget\n\n> Gadget does things. Well.\n\n[folio] lines 1-3 of ") {
		t.Errorf("lines of llms.txt: %s", lines.text)
	}
	// A relative name is the first root's; one outside the roots is none.
	if r := call(t, cs, wire.Read, map[string]any{"path": "llms.txt", "max_tokens": 2000}); r.isError || !strings.Contains(r.text, `"uri":"`+index+`"`) {
		t.Errorf("read llms.txt: %.300s", r.text)
	}
	for _, name := range []string{"/llms.txt", "file:///llms.txt", "guide/llms.txt", root + "/guide/llms-full.txt"} {
		wantCode(t, call(t, cs, wire.Read, map[string]any{"path": name, "max_tokens": 500}), "not_found")
	}
	// bob's allow list does not hold llms.txt: it is not there for him.
	bcs := dialHTTP(t, url, bob, nil)
	for res, err := range bcs.Resources(ctx, nil) {
		if err != nil || strings.HasPrefix(filepath.Base(res.URI), "llms") {
			t.Fatalf("bob lists %v (%v)", res, err)
		}
	}
	wantCode(t, call(t, bcs, wire.Read, map[string]any{"path": index, "max_tokens": 500}), "not_found")
}

// TestRealLLMsTxtWins: a root's own llms.txt is served as it is, and
// listed once; llms-full.txt, which the root lacks, is still made.
func TestRealLLMsTxtWins(t *testing.T) {
	e := llmsEnv(t)
	real := e.write(t, "llms.txt", "# the real one\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	ctx := context.Background()
	count := map[string]int{}
	for res, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		count[res.URI]++
	}
	full := fileuri.Of(filepath.Join(e.fs.Roots()[0], "llms-full.txt"))
	if count[real] != 1 || count[full] != 1 {
		t.Errorf("listed %v", count)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: real})
	if err != nil || res.Contents[0].Text != "# the real one\n" {
		t.Fatalf("resources/read of the real llms.txt: %v %v", res, err)
	}
	text, _ := readAllPages(t, cs, full, 2000)
	if strings.Contains(text, "the real one") || !strings.Contains(text, "=== guide/more.md (") {
		t.Errorf("llms-full.txt:\n%s", text)
	}
}

// TestMadeLLMsTxtChanges: a cursor of a made file whose tree changed since
// is a version_conflict (no watcher: made again on each request); with
// the watcher, a made file is kept, and a change is seen once it is told.
func TestMadeLLMsTxtChanges(t *testing.T) {
	e := llmsEnv(t)
	s := e.server(t, serverOpts{local: true})
	cs := dialMemory(t, s, nil)
	full := fileuri.Of(filepath.Join(e.fs.Roots()[0], "llms-full.txt"))
	first := call(t, cs, wire.Read, map[string]any{"path": full, "max_tokens": 200, "format": "json"})
	var p struct {
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(first.text), &p); err != nil || p.NextCursor == "" {
		t.Fatalf("first page: %s", first.text)
	}
	e.write(t, "guide/more.md", "# More\n\nChanged.\n")
	wantCode(t, call(t, cs, wire.Read, map[string]any{"path": full, "max_tokens": 200, "cursor": p.NextCursor, "format": "json"}), "version_conflict")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx)
	for i := 0; !s.made.watching.Load(); i++ {
		if i == 2000 {
			t.Fatal("the watcher never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	index := fileuri.Of(filepath.Join(e.fs.Roots()[0], "llms.txt"))
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: index}); err != nil {
		t.Fatal(err)
	}
	// Made once the watcher runs, it is kept until the next change.
	s.made.mu.Lock()
	kept := len(s.made.files)
	s.made.mu.Unlock()
	if kept != 1 {
		t.Errorf("with the watcher, %d made files are kept, want 1", kept)
	}
	e.write(t, "guide/extra.md", "# Extra\n\nNew.\n")
	for i := 0; ; i++ {
		if i == 200 {
			t.Fatal("a new document never reached the made llms.txt")
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: index})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Contents[0].Text, "[Extra](guide/extra.md)") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "llms.txt")); err == nil {
		t.Error("serving made a file")
	}
}

// TestMadeLLMsTxtSection: a made file is read as a real file of its name
// is, section included: a .txt has no sections, and says so, where the
// made file once ignored the section (and its next page's cursor failed).
func TestMadeLLMsTxtSection(t *testing.T) {
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"lines", map[string]any{"section": "Start", "limit": 3}},
		{"pages", map[string]any{"section": "Start", "max_tokens": 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := llmsEnv(t)
			cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
			made := map[string]any{"path": "llms-full.txt"}
			for k, v := range tc.args {
				made[k] = v
			}
			got := call(t, cs, wire.Read, made)
			e.write(t, "llms-full.txt", "# Gadget\n\n## Start\n\nBegin here.\n")
			want := call(t, cs, wire.Read, made)
			wantCode(t, got, "not_found")
			if got.text != want.text {
				t.Errorf("a section of the made llms-full.txt: %s\nof a real one: %s", got.text, want.text)
			}
		})
	}
}
