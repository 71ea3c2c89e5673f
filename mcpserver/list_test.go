package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// listing reads a list answer back: JSON (details, or a whole answer of
// a server that never folds), or the text of one path per line (as read
// takes it, directories ending in "/") and [folio] notes.
func listing(t *testing.T, r result) wire.Listing {
	t.Helper()
	if r.isError {
		t.Fatal(r.text)
	}
	var l wire.Listing
	if strings.HasPrefix(r.text, "{") {
		if err := json.Unmarshal([]byte(r.text), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	l.Entries = []wire.Entry{}
	var notes []string
	for line := range strings.Lines(r.text) {
		line = strings.TrimSuffix(line, "\n")
		if note, ok := strings.CutPrefix(line, "[folio] "); ok {
			notes = append(notes, note)
			l.Truncated = l.Truncated || strings.Contains(note, "was cut at")
			continue
		}
		if strings.HasPrefix(line, `"`) {
			if err := json.Unmarshal([]byte(line), &line); err != nil {
				t.Fatal(err)
			}
		}
		e := wire.Entry{Path: line, Type: "file"}
		if p, ok := strings.CutSuffix(line, "/"); ok {
			e.Path, e.Type = p, "dir"
		}
		l.Entries = append(l.Entries, e)
	}
	l.Note = strings.Join(notes, "; ")
	return l
}

func paths(l wire.Listing) string {
	var out []string
	for _, e := range l.Entries {
		s := e.Path
		if e.Type == "dir" {
			s += "/"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestList(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"README.md", "docs/a.md", "docs/b.go", "docs/deep/c.md", "net/http/server.go", ".git/config", "keys/x.pem", ".env"} {
		e.write(t, name, "x\n")
	}
	e.write(t, "net/http/server.go", strings.Repeat("y", 1234))
	alice := e.addToken(t, "alice", "docs/**", "README.md")
	url := serveHTTP(t, e.server(t, serverOpts{}))
	local := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"top", map[string]any{}, "README.md docs/ keys/ net/"},
		{"recursive", map[string]any{"recursive": true}, "README.md docs/ docs/a.md docs/b.go docs/deep/ docs/deep/c.md keys/ net/ net/http/ net/http/server.go"},
		{"depth 2", map[string]any{"recursive": true, "max_depth": 2}, "README.md docs/ docs/a.md docs/b.go docs/deep/ keys/ net/ net/http/"},
		{"subdirectory", map[string]any{"path": "docs"}, "docs/a.md docs/b.go docs/deep/"},
		{"glob", map[string]any{"recursive": true, "glob": "**/*.md"}, "README.md docs/a.md docs/deep/c.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := paths(listing(t, call(t, local, "list", tc.args))); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	l := listing(t, call(t, local, "list", map[string]any{"path": "net/http", "details": true}))
	if *l.Entries[0].Size != 1234 || l.Entries[0].MTime == "" || !strings.HasPrefix(l.URI, "file:///") || !strings.HasSuffix(l.URI, "/net/http") || l.Root+"/net/http" != l.URI {
		t.Fatalf("%+v", l)
	}
	// The allow list hides everything else, directories included.
	ca := dialHTTP(t, url, alice, nil)
	if got := paths(listing(t, call(t, ca, "list", map[string]any{"recursive": true}))); got != "README.md docs/ docs/a.md docs/b.go docs/deep/ docs/deep/c.md" {
		t.Fatalf("alice sees %s", got)
	}
	wantCode(t, call(t, ca, "list", map[string]any{"path": "net"}), toolerr.CodeNotFound)

	// The cap, said out loud.
	for i := range 30 {
		e.write(t, fmt.Sprintf("many/%02d.txt", i), "")
	}
	l = listing(t, call(t, local, "list", map[string]any{"path": "many", "max_entries": 10}))
	if len(l.Entries) != 10 || !l.Truncated || l.Note == "" || l.Entries[9].Path != "many/09.txt" {
		t.Fatalf("%+v", l)
	}
	if l := listing(t, call(t, local, "list", map[string]any{"path": "many"})); len(l.Entries) != 30 || l.Truncated {
		t.Fatalf("%d entries, truncated %v", len(l.Entries), l.Truncated)
	}
	for _, args := range []map[string]any{
		{"path": "README.md"},
		{"max_entries": 0},
		{"max_entries": wire.MaxEntriesLimit + 1},
		{"max_depth": 2},
		{"recursive": true, "max_depth": -1},
		{"glob": "[bad"},
		{"bogus": 1},
	} {
		wantCode(t, call(t, local, "list", args), toolerr.CodeInvalidArgument)
	}
}

// TestListCost: a directory's default listing costs at most 1.5 times the
// tokens (o200k_base) of its bare paths, one per line, even with a note of
// what the ignore files left out; details cost more. The tree is a copy
// of Go's net/http with build junk a .gitignore hides (go test -run
// ListCost -v ./mcpserver).
func TestListCost(t *testing.T) {
	e := newEnv(t)
	if err := os.CopyFS(e.dir, os.DirFS(mcptest.GoSource(t, "net", "http"))); err != nil {
		t.Fatal(err)
	}
	e.write(t, ".gitignore", "target/\nnode_modules/\n*.log\n")
	for i := range 50 {
		e.write(t, fmt.Sprintf("target/debug/obj-%02d.o", i), "x")
	}
	e.write(t, "node_modules/left-pad/index.js", "x")
	e.write(t, "build.log", "x")
	cs := dialMemory(t, e.server(t, serverOpts{local: true, threshold: 1 << 20}), nil)
	c := counter(t, tokencount.O200kBase)
	for _, args := range []map[string]any{{}, {"path": "httptest"}, {"path": "cgi", "recursive": true}, {"recursive": true}} {
		label := fmt.Sprint(args)
		r := call(t, cs, "list", args)
		l := listing(t, r)
		var bare []string
		for _, en := range l.Entries {
			bare = append(bare, en.Path)
		}
		ours, theirs := c.Count(r.text), c.Count(strings.Join(bare, "\n")+"\n")
		args["details"] = true
		details := c.Count(call(t, cs, "list", args).text)
		ratio := float64(ours) / float64(theirs)
		t.Logf("list %s: %d entries, %d tokens, bare paths %d: %.3fx (details: %d tokens, %.2fx)", label, len(l.Entries), ours, theirs, ratio, details, float64(details)/float64(theirs))
		if ratio > 1.5 {
			t.Errorf("list %s costs %d tokens, %.2f times its bare paths", label, ours, ratio)
		}
	}
}

// TestIgnoredSaySo: what the ignore files leave out is said, with the file
// and rule, and how to see it: a listing names what it left out; an
// ignored directory named is listed, and says it is ignored; a search that
// found nothing names what it did not search.
func TestIgnoredSaySo(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".gitignore", "target/\n*.log\n")
	e.write(t, "src/main.rs", "fn main() {}\n")
	e.write(t, "target/debug/app.d", "needle\n")
	e.write(t, "debug.log", "needle\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list", map[string]any{}, ".gitignore\nsrc/\n[folio] 2 ignored paths not listed (debug.log by .gitignore \"*.log\", target/ by .gitignore \"target/\"): list one by its path to see it\n"},
		{"list", map[string]any{"path": "target", "recursive": true}, "target/debug/\ntarget/debug/app.d\n[folio] target/ is ignored by .gitignore \"target/\": listed as asked, but a listing or search above it leaves it out\n"},
		{"grep", map[string]any{"pattern": "needle"}, "[folio] no matches in 2 files searched\n[folio] 2 ignored paths not searched (debug.log by .gitignore \"*.log\", target/ by .gitignore \"target/\"): name one as path to search it\n"},
		{"grep", map[string]any{"pattern": "needle", "path": "target"}, "target/debug/app.d\n1:needle\n"},
	} {
		if r := call(t, cs, tc.tool, tc.args); r.text != tc.want {
			t.Errorf("%s %v:\n%s\nwant\n%s", tc.tool, tc.args, r.text, tc.want)
		}
	}
}
