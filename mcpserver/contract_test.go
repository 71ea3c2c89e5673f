package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/grep"
	"github.com/folio-mcp/folio/internal/atomicfile"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// TestVersionConflict: a file rewritten between two pages with the same
// size and the same mtime is a version_conflict, with no text of the new
// version; a deleted file is not_found.
func TestVersionConflict(t *testing.T) {
	e := newEnv(t)
	old := strings.Repeat("A-line of the first version\n", 400)
	e.write(t, "f.md", old)
	p := filepath.Join(e.dir, "f.md")
	info, _ := os.Stat(p)
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), "", nil)
	r := call(t, cs, "read", map[string]any{"path": "f.md", "max_tokens": 500})
	page, err := pager.Decode([]byte(r.text))
	if err != nil || !page.HasMore {
		t.Fatalf("first page: %v %q", err, r.text)
	}
	neu := strings.ReplaceAll(old, "A-line", "B-line")
	os.WriteFile(p, []byte(neu), 0o644)
	os.Chtimes(p, info.ModTime(), info.ModTime())
	if now, _ := os.Stat(p); now.Size() != info.Size() || !now.ModTime().Equal(info.ModTime()) {
		t.Fatal("the rewrite changed size or mtime")
	}
	next := map[string]any{"path": "f.md", "max_tokens": 500, "cursor": *page.NextCursor}
	r = call(t, cs, "read", next)
	wantCode(t, r, toolerr.CodeVersionConflict)
	if strings.Contains(r.text, "B-line") {
		t.Fatal("the conflict leaks text of the new version")
	}
	// Repeating the restart works on the new version.
	r = call(t, cs, "read", map[string]any{"path": "f.md", "max_tokens": 500})
	if r.isError || !strings.Contains(r.text, "B-line") {
		t.Fatalf("restart: %s", r.text)
	}
	os.Remove(p)
	wantCode(t, call(t, cs, "read", next), toolerr.CodeNotFound)
}

// TestCursorBinding: a cursor replayed against another URI, by another
// subject, or with one character changed is invalid_cursor.
func TestCursorBinding(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", strings.Repeat("alpha beta gamma\n", 500))
	e.write(t, "b.md", strings.Repeat("alpha beta gamma\n", 500))
	alice, bob := e.addToken(t, "alice"), e.addToken(t, "bob")
	url := serveHTTP(t, e.server(t, serverOpts{}))
	ca, cb := dialHTTP(t, url, alice, nil), dialHTTP(t, url, bob, nil)
	r := call(t, ca, "read", map[string]any{"path": "a.md", "max_tokens": 400})
	page, _ := pager.Decode([]byte(r.text))
	cur := *page.NextCursor
	// The cursor works for its owner, on its file, and gives the same page
	// every time (seed check 3).
	again := call(t, ca, "read", map[string]any{"path": "a.md", "max_tokens": 400, "cursor": cur})
	if again.isError {
		t.Fatal(again.text)
	}
	if r := call(t, ca, "read", map[string]any{"path": "a.md", "max_tokens": 400, "cursor": cur}); r.text != again.text {
		t.Fatalf("a repeated cursor gave another page:\n%s\n%s", again.text, r.text)
	}
	wantCode(t, call(t, ca, "read", map[string]any{"path": "b.md", "max_tokens": 400, "cursor": cur}), toolerr.CodeInvalidCursor)
	wantCode(t, call(t, cb, "read", map[string]any{"path": "a.md", "max_tokens": 400, "cursor": cur}), toolerr.CodeInvalidCursor)
	for i := range len(cur) {
		c := byte('A')
		if cur[i] == 'A' {
			c = 'B'
		}
		bad := cur[:i] + string(c) + cur[i+1:]
		wantCode(t, call(t, ca, "read", map[string]any{"path": "a.md", "max_tokens": 400, "cursor": bad}), toolerr.CodeInvalidCursor)
	}
}

// TestArguments: line mode as specified, and every bad mix refused.
func TestArguments(t *testing.T) {
	e := newEnv(t)
	e.write(t, "l.txt", "zero\r\none\ntwo\nthree")
	e.write(t, "m.txt", "only\n")
	cs := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	lURI := "file://" + filepath.ToSlash(e.fs.Roots()[0]) + "/l.txt"
	// Lines count from 1; the lines are the file's own bytes, and the
	// footer that follows says where they are and how to go on.
	lVersion := hashOf(t, filepath.Join(e.fs.Roots()[0], "l.txt"))
	more := func(offset, limit int) string {
		if limit == 0 {
			return fmt.Sprintf(`; more: read {"path":"l.txt","offset":%d}`, offset)
		}
		return fmt.Sprintf(`; more: read {"path":"l.txt","offset":%d,"limit":%d}`, offset, limit)
	}
	footer := func(first, last int, tail string) string {
		return fmt.Sprintf("[folio] lines %d-%d of 4%s", first, last, tail)
	}
	for _, tc := range []struct {
		name  string
		args  map[string]any
		lines string
		tail  string
		next  int
	}{
		{"whole file", map[string]any{"path": "l.txt"}, "zero\r\none\ntwo\nthree", footer(1, 4, "; end of file"), 0},
		{"offset", map[string]any{"path": "l.txt", "offset": 2}, "one\ntwo\nthree", footer(2, 4, "; end of file"), 0},
		{"offset 0 is the start", map[string]any{"path": "l.txt", "offset": 0, "limit": 1}, "zero\r\n", footer(1, 1, more(2, 1)), 2},
		{"offset and limit", map[string]any{"path": "l.txt", "offset": 2, "limit": 2}, "one\ntwo\n", footer(2, 3, more(4, 2)), 4},
		{"tail", map[string]any{"path": "l.txt", "offset": -2}, "two\nthree", footer(3, 4, "; end of file"), 0},
		{"by URI", map[string]any{"path": lURI, "limit": 1}, "zero\r\n", footer(1, 1, more(2, 1)), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, cs, "read", tc.args)
			n, _ := r.meta[wire.MetaContentBytes].(float64)
			if r.isError || int(n) > len(r.text) || r.text[:int(n)] != tc.lines {
				t.Fatalf("got %q (error %v, content_bytes %v), want lines %q", r.text, r.isError, r.meta[wire.MetaContentBytes], tc.lines)
			}
			if got, ok := strings.CutPrefix(r.text[int(n):], "\n"); !ok || got != tc.tail {
				t.Fatalf("footer %q, want %q", got, tc.tail)
			}
			if r.meta[wire.MetaNextOffset] != float64(tc.next) || r.meta[wire.MetaTotalLines] != float64(4) || r.meta[wire.MetaVersion] != lVersion {
				t.Fatalf("_meta %v", r.meta)
			}
		})
	}
	r := call(t, cs, "read", map[string]any{"paths": []string{"l.txt", "missing.txt", "m.txt"}, "limit": 1})
	want := "=== l.txt ===\nzero\r\n\n" + footer(1, 1, more(2, 1)) + "\n=== missing.txt ===\n{\"error\":{\"code\":\"not_found\",\"message\":\"no such file: \\\"missing.txt\\\" is not a visible file under the served roots; check the path, or list the directory\"}}\n=== m.txt ===\nonly\n\n[folio] lines 1-1 of 1; end of file\n"
	if r.isError || r.text != want {
		t.Fatalf("paths: got %q\nwant %q", r.text, want)
	}
	r = call(t, cs, "read", map[string]any{"path": "l.txt", "offset": 9})
	if wantCode(t, r, toolerr.CodeInvalidArgument); !strings.Contains(r.text, "past the end") || !strings.Contains(r.text, "it has 4 lines") {
		t.Fatalf("past the end: %s", r.text)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"max_tokens with offset", map[string]any{"path": "l.txt", "max_tokens": 100, "offset": 1}},
		{"max_tokens with limit", map[string]any{"path": "l.txt", "max_tokens": 100, "limit": 1}},
		{"cursor with offset", map[string]any{"path": "l.txt", "max_tokens": 100, "cursor": "x", "offset": 1}},
		{"max_tokens with paths", map[string]any{"paths": []string{"l.txt"}, "max_tokens": 100}},
		{"cursor without max_tokens", map[string]any{"path": "l.txt", "cursor": "x"}},
		{"path and paths", map[string]any{"path": "l.txt", "paths": []string{"l.txt"}}},
		{"path and its former name, uri, naming different files", map[string]any{"path": "l.txt", "uri": "m.txt"}},
		{"paths and its former name, uris, naming different files", map[string]any{"paths": []string{"l.txt"}, "uris": []string{"m.txt"}}},
		{"uri and paths", map[string]any{"uri": "l.txt", "paths": []string{"m.txt"}}},
		{"uri of the wrong type", map[string]any{"uri": 5}},
		{"nothing", map[string]any{}},
		{"zero budget", map[string]any{"path": "l.txt", "max_tokens": 0}},
		{"zero limit", map[string]any{"path": "l.txt", "limit": 0}},
		{"line without max_tokens", map[string]any{"path": "l.txt", "line": 2}},
		{"line with cursor", map[string]any{"path": "l.txt", "max_tokens": 100, "cursor": "x", "line": 2}},
		{"unknown format", map[string]any{"path": "l.txt", "max_tokens": 100, "format": "yaml"}},
		{"wrong type", map[string]any{"path": "l.txt", "max_tokens": "2000"}},
		{"unknown argument", map[string]any{"path": "l.txt", "max_token": 2000}},
		{"too many paths", map[string]any{"paths": make([]string, wire.MaxPaths+1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, call(t, cs, "read", tc.args), toolerr.CodeInvalidArgument)
		})
	}
	r = call(t, cs, "read", map[string]any{"path": "l.txt", "max_tokens": 20})
	wantCode(t, r, toolerr.CodeBudgetTooSmall)
	if !strings.Contains(r.text, "at least") {
		t.Fatalf("budget_too_small does not name the smallest budget: %s", r.text)
	}
	wantCode(t, call(t, cs, "read", map[string]any{"path": "l.txt", "max_tokens": 100, "cursor": "not-a-cursor"}), toolerr.CodeInvalidCursor)
}

// TestConfinement: nothing outside the roots is read through the protocol.
func TestConfinement(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside secret\n"), 0o644)
	e.write(t, "ok.md", "fine\n")
	e.write(t, ".env", "SECRET=1\n")
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(e.dir, "link-out"))
	os.Symlink("../"+filepath.Base(outside), filepath.Join(e.dir, "dir-out"))
	if err := syscall.Mkfifo(filepath.Join(e.dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), "", nil)
	rel, _ := filepath.Rel(e.dir, filepath.Join(outside, "secret.txt"))
	for _, name := range []string{
		"../" + filepath.Base(outside) + "/secret.txt",
		rel,
		filepath.Join(outside, "secret.txt"),
		"file://" + filepath.Join(outside, "secret.txt"),
		"file://" + e.dir + "/../" + filepath.Base(outside) + "/secret.txt",
		"link-out",
		"dir-out/secret.txt",
		".env",
		"/etc/passwd",
	} {
		for _, args := range []map[string]any{{"path": name}, {"path": name, "max_tokens": 500}} {
			r := call(t, cs, "read", args)
			if !r.isError || strings.Contains(r.text, "outside secret") || strings.Contains(r.text, "SECRET") {
				t.Fatalf("%v: %s", args, r.text)
			}
		}
	}
	done := make(chan result, 1)
	go func() { done <- call(t, cs, "read", map[string]any{"path": "fifo", "max_tokens": 500}) }()
	select {
	case r := <-done:
		wantCode(t, r, toolerr.CodeNotText)
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO hangs")
	}
	wantCode(t, call(t, cs, "list", map[string]any{"path": "../"}), toolerr.CodeNotFound)
}

// TestTokens: a call without a valid token is refused at the door; a
// revoked token or a narrowed allow list holds from the first call after
// the file is read again.
func TestTokens(t *testing.T) {
	e := newEnv(t)
	e.write(t, "docs/a.md", strings.Repeat("docs text\n", 300))
	e.write(t, "other/b.md", "other\n")
	alice := e.addToken(t, "alice", "docs/**")
	clock := time.Now()
	s := e.server(t, serverOpts{tokensNow: func() time.Time { return clock }})
	url := serveHTTP(t, s)
	for _, tok := range []string{"", "folio_wrong"} {
		if _, err := tryDialHTTP(url, tok, "", nil); err == nil {
			t.Fatalf("token %q let in", tok)
		}
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("token %q: HTTP %d", tok, resp.StatusCode)
		}
	}
	cs := dialHTTP(t, url, alice, nil)
	wantCode(t, call(t, cs, "read", map[string]any{"path": "other/b.md"}), toolerr.CodeNotFound)
	r := call(t, cs, "read", map[string]any{"path": "docs/a.md", "max_tokens": 200})
	page, _ := pager.Decode([]byte(r.text))
	next := map[string]any{"path": "docs/a.md", "max_tokens": 200, "cursor": *page.NextCursor}

	// Narrow alice to other/**: the continuation stops once the file is
	// read again, tokens.ReloadEvery after the last read.
	e.setAllow(t, 0, "other/**")
	if r := call(t, cs, "read", next); r.isError {
		t.Fatalf("before the reload: %s", r.text)
	}
	clock = clock.Add(tokens.ReloadEvery)
	wantCode(t, call(t, cs, "read", next), toolerr.CodeNotFound)
	if r := call(t, cs, "read", map[string]any{"path": "other/b.md"}); r.isError {
		t.Fatalf("the widened list: %s", r.text)
	}

	// Revoke every token: the session's next call is refused.
	atomicfile.Write(e.tokens, []byte(`{"tokens":[]}`))
	clock = clock.Add(tokens.ReloadEvery)
	if _, err := cs.CallTool(context.Background(), toolCall("read", map[string]any{"path": "other/b.md"})); err == nil {
		t.Fatal("a revoked token still reads")
	}

	// A broken file lets nobody in, and a fixed one lets them back.
	bob := e.addToken(t, "bob")
	os.WriteFile(e.tokens, []byte(`{"tokens":[`), 0o600)
	clock = clock.Add(tokens.ReloadEvery)
	if _, err := tryDialHTTP(url, bob, "", nil); err == nil {
		t.Fatal("a broken tokens file let a token in")
	}
	os.Remove(e.tokens)
	bob = e.addToken(t, "bob")
	clock = clock.Add(tokens.ReloadEvery)
	dialHTTP(t, url, bob, nil)
}

func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		tokens bool
		ok     bool
	}{
		{"127.0.0.1:8080", false, true},
		{"[::1]:8080", false, true},
		{"localhost:0", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"192.0.2.1:8080", false, false},
		{":8080", true, true},
		{"no-port", true, false},
	} {
		warn, err := CheckAddress(tc.addr, tc.tokens)
		if (err == nil) != tc.ok {
			t.Errorf("%s tokens=%v: %v", tc.addr, tc.tokens, err)
		}
		if err == nil && !tc.tokens && warn == "" {
			t.Errorf("%s: no warning without tokens", tc.addr)
		}
	}
}

// TestHTTPGuards: the SDK's DNS-rebinding protection is on, and a session
// cannot be taken over with another subject's token.
func TestHTTPGuards(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.md", "text\n")
	alice, bob := e.addToken(t, "alice"), e.addToken(t, "bob")
	url := serveHTTP(t, e.server(t, serverOpts{}))
	post := func(token, session, host string) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.md"}}}`
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(alice, "", "evil.example"); code != http.StatusForbidden {
		t.Errorf("a rebound Host header: HTTP %d", code)
	}
	cs := dialHTTP(t, url, alice, &mcp.ClientOptions{})
	if cs.ID() == "" {
		t.Skip("the client speaks a sessionless protocol version")
	}
	if code := post(bob, cs.ID(), ""); code < 400 {
		t.Errorf("bob used alice's session: HTTP %d", code)
	}
	if code := post(alice, cs.ID(), ""); code >= 400 {
		t.Errorf("alice's own session: HTTP %d", code)
	}
}

// TestToolSchemas ties each tool's input schema, as tools/list gives it,
// to the argument struct its handler decodes (the same names, of the same
// types, but for the former names the struct still takes, which the
// schema does not offer), and to the limits the code enforces; no schema
// closes itself to other names (the handler refuses those: see
// TestArguments).
func TestToolSchemas(t *testing.T) {
	e := newEnv(t)
	cs := dialMemory(t, e.server(t, serverOpts{local: true, docs: true}), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	structs := map[string]any{"read": wire.ReadArgs{}, "list": wire.ListArgs{}, "grep": wire.GrepArgs{}, "result_query": wire.ResultQueryArgs{}, "outline": wire.OutlineArgs{}, "search_docs": wire.SearchDocsArgs{}}
	// tool.property: {minimum, maximum}, -1 for none.
	limits := map[string][2]int{
		"read.offset":             {-1, -1},
		"read.limit":              {1, -1},
		"read.line":               {1, -1},
		"read.max_tokens":         {1, reader.MaxTokensLimit},
		"list.max_depth":          {0, -1},
		"list.max_entries":        {1, wire.MaxEntriesLimit},
		"grep.context":            {0, grep.MaxContext},
		"grep.max_matches":        {1, grep.MaxMatchesLimit},
		"result_query.offset":     {0, -1},
		"result_query.limit":      {1, -1},
		"result_query.page":       {1, -1},
		"result_query.max_tokens": {1, -1},
		"outline.max_tokens":      {1, -1},
		"search_docs.max_tokens":  {1, wire.MaxAnswerTokens},
	}
	seen := 0
	for _, tool := range res.Tools {
		args, ok := structs[tool.Name]
		if !ok {
			t.Errorf("tool %s has no argument struct here", tool.Name)
			continue
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type    string                 `json:"type"`
				Minimum *int                   `json:"minimum"`
				Maximum *int                   `json:"maximum"`
				Items   *struct{ Type string } `json:"items"`
			} `json:"properties"`
			AdditionalProperties *bool `json:"additionalProperties"`
		}
		_, renamed := reflect.New(reflect.TypeOf(args)).Interface().(wire.Renamed)
		if err := json.Unmarshal(raw, &schema); err != nil || schema.Type != "object" || schema.AdditionalProperties != nil {
			t.Errorf("%s: schema %s", tool.Name, raw)
			continue
		}
		fields := map[string]string{}
		rt := reflect.TypeOf(args)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if renamed && (name == wire.FormerPathName || name == wire.FormerPathsName) {
				continue
			}
			fields[name] = schemaType(rt.Field(i).Type)
		}
		for name, p := range schema.Properties {
			typ := p.Type
			if p.Items != nil {
				typ += " of " + p.Items.Type
			}
			if fields[name] != typ {
				t.Errorf("%s.%s: the schema says %q, the struct decodes %q", tool.Name, name, typ, fields[name])
			}
			delete(fields, name)
			if typ != "integer" {
				continue
			}
			want, ok := limits[tool.Name+"."+name]
			if !ok {
				t.Errorf("%s.%s: an integer with no limits in this test", tool.Name, name)
				continue
			}
			seen++
			for i, got := range []*int{p.Minimum, p.Maximum} {
				if (got == nil) != (want[i] < 0) || got != nil && *got != want[i] {
					has := "none"
					if got != nil {
						has = strconv.Itoa(*got)
					}
					t.Errorf("%s.%s: %s %s, want %d (-1: none)", tool.Name, name, []string{"minimum", "maximum"}[i], has, want[i])
				}
			}
		}
		for name := range fields {
			t.Errorf("%s: the struct decodes %q, which the schema does not offer", tool.Name, name)
		}
	}
	if seen != len(limits) {
		t.Errorf("%d integer arguments checked, %d in the table", seen, len(limits))
	}
}

// schemaType is the JSON schema type of a Go argument type.
func schemaType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int:
		return "integer"
	case reflect.Slice:
		return "array of " + schemaType(t.Elem())
	}
	return t.String()
}
