package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func listing(t *testing.T, r result) wire.Listing {
	t.Helper()
	if r.isError {
		t.Fatal(r.text)
	}
	var l wire.Listing
	if err := json.Unmarshal([]byte(r.text), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func paths(l wire.Listing) string {
	var out []string
	for _, e := range l.Entries {
		s := e.Path
		if e.Type == "dir" {
			s += "/"
		} else if e.Size == nil {
			s += "(no size)"
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
		{"subdirectory", map[string]any{"uri": "docs"}, "docs/a.md docs/b.go docs/deep/"},
		{"glob", map[string]any{"recursive": true, "glob": "**/*.md"}, "README.md docs/a.md docs/deep/c.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := paths(listing(t, call(t, local, "list", tc.args))); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	l := listing(t, call(t, local, "list", map[string]any{"uri": "net/http"}))
	if *l.Entries[0].Size != 1234 || !strings.HasPrefix(l.URI, "file:///") || !strings.HasSuffix(l.URI, "/net/http") || l.Root+"/net/http" != l.URI {
		t.Fatalf("%+v", l)
	}
	// The allow list hides everything else, directories included.
	ca := dialHTTP(t, url, alice, nil)
	if got := paths(listing(t, call(t, ca, "list", map[string]any{"recursive": true}))); got != "README.md docs/ docs/a.md docs/b.go docs/deep/ docs/deep/c.md" {
		t.Fatalf("alice sees %s", got)
	}
	wantCode(t, call(t, ca, "list", map[string]any{"uri": "net"}), toolerr.CodeNotFound)

	// The cap, said out loud.
	for i := range 30 {
		e.write(t, fmt.Sprintf("many/%02d.txt", i), "")
	}
	l = listing(t, call(t, local, "list", map[string]any{"uri": "many", "max_entries": 10}))
	if len(l.Entries) != 10 || !l.Truncated || l.Note == "" || l.Entries[9].Path != "many/09.txt" {
		t.Fatalf("%+v", l)
	}
	if l := listing(t, call(t, local, "list", map[string]any{"uri": "many"})); len(l.Entries) != 30 || l.Truncated {
		t.Fatalf("%d entries, truncated %v", len(l.Entries), l.Truncated)
	}
	for _, args := range []map[string]any{
		{"uri": "README.md"},
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
