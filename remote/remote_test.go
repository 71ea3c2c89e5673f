package remote

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/mcpserver"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/toolerr"
)

// serve serves dir with folio's server on loopback, with one token.
func serve(t *testing.T, dir string) (endpoint, token string) {
	t.Helper()
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: fsview.DefaultDeny()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	ring, _ := cursor.NewRing(bytes.Repeat([]byte{3}, cursor.KeyLen))
	c, _ := tokencount.New(tokencount.Estimate)
	path := filepath.Join(t.TempDir(), "tokens.json")
	token, err = tokens.Add(path, "ci", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokens.Open(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.New(mcpserver.Config{FS: fs, Cursors: cursor.NewCodec(ring, time.Hour, nil), Counter: c, Tokens: tk})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", token
}

func TestClient(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.md", "sub/with space.md", "sub/中文.md", ".env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte("text of "+name+"\n"), 0o644)
	}
	endpoint, token := serve(t, dir)
	ctx := context.Background()
	if _, err := Dial(ctx, endpoint, "folio_wrong", "test"); err == nil {
		t.Fatal("a wrong token connected")
	}
	c, err := Dial(ctx, endpoint, token, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Files lists a directory as canonical URIs that read back.
	files, err := c.Files(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	want := []string{fileuri.Of(real + "/a.md"), fileuri.Of(real + "/sub/with space.md"), fileuri.Of(real + "/sub/中文.md")}
	if !slices.Equal(files, want) {
		t.Fatalf("got %q\nwant %q", files, want)
	}
	for _, uri := range files {
		for _, format := range []string{"json", "text"} {
			page, err := c.Page(ctx, uri, 500, format, "")
			if err != nil {
				t.Fatal(err)
			}
			if p, err := page.Decode(); err != nil || p.URI != uri || page.Format.String() != format {
				t.Fatalf("%s: %v %s", uri, err, page.JSON)
			}
		}
	}
	// Pages follows the cursors to the end, and stops at an error.
	long := bytes.Repeat([]byte("a line of text, 中文 and 🙂\n"), 400)
	os.WriteFile(filepath.Join(dir, "long.md"), long, 0o644)
	for _, format := range []string{"", "text"} {
		var got []byte
		pages := 0
		for page, err := range c.Pages(ctx, "long.md", 300, format, "") {
			if err != nil {
				t.Fatal(err)
			}
			p, _ := page.Decode()
			got, pages = append(got, p.Content...), pages+1
		}
		if !bytes.Equal(got, long) || pages < 5 {
			t.Fatalf("format %q: %d pages; equal %v", format, pages, bytes.Equal(got, long))
		}
	}
	for _, err := range c.Pages(ctx, ".env", 300, "", "") {
		if mcptest.Code(err) != toolerr.CodeNotFound {
			t.Fatalf("%v", err)
		}
	}
	// A file, or a name the server cannot list, is itself.
	if files, err := c.Files(ctx, "a.md"); err != nil || !slices.Equal(files, []string{"a.md"}) {
		t.Fatalf("%q %v", files, err)
	}
	// Error bodies come back as *toolerr.Error with their code.
	_, err = c.Page(ctx, ".env", 500, "", "")
	var e *toolerr.Error
	if !errors.As(err, &e) || e.Code != toolerr.CodeNotFound {
		t.Fatalf("%v", err)
	}
	if _, err := c.Call(ctx, "no-such-tool", nil); err == nil {
		t.Fatal("an unknown tool answered")
	}
	if e := asError("plain words"); e.Code != toolerr.CodeInternal {
		t.Fatalf("%+v", e)
	}
}
