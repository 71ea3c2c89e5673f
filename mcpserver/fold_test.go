package mcpserver

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/redisstore"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/redistest"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// folded is a folded tool answer as a client sees it.
type folded struct {
	Preview json.RawMessage `json:"preview"`
	Shape   json.RawMessage `json:"shape"`
	Handle  string          `json:"handle"`
}

// wantFolded checks that r is a folded answer, in structuredContent, in its
// text followed by a hint line, and in _meta, and returns it.
func wantFolded(t testing.TB, r result) folded {
	t.Helper()
	if r.isError || r.raw.StructuredContent == nil {
		t.Fatalf("not folded: %.300s", r.text)
	}
	var f folded
	sc, _ := json.Marshal(r.raw.StructuredContent)
	if err := json.Unmarshal(sc, &f); err != nil || f.Handle == "" || f.Shape == nil {
		t.Fatalf("structuredContent %.300s: %v", sc, err)
	}
	body, hint, ok := strings.Cut(r.text, "\n")
	if !ok || !strings.Contains(hint, "result_query") || !strings.Contains(hint, f.Handle) {
		t.Fatalf("text %.300s: want the folded JSON and a hint line", r.text)
	}
	var again folded
	if err := json.Unmarshal([]byte(body), &again); err != nil || again.Handle != f.Handle {
		t.Fatalf("text JSON %.300s: %v", body, err)
	}
	m, _ := r.meta[wire.MetaResultHandle].(map[string]any)
	if m["handle"] != f.Handle || m["bytes"].(float64) <= 1024 || m["ttlSeconds"] != float64(600) {
		t.Fatalf("_meta %v", r.meta)
	}
	return f
}

// readFolded reads a folded text answer whole, as its hint says: runs of
// max_tokens, each the text, then a [folio] line with the call that goes
// on.
func readFolded(t testing.TB, cs *mcp.ClientSession, handle string) string {
	t.Helper()
	var b strings.Builder
	args := map[string]any{"handle": handle, "max_tokens": 8000}
	for {
		r := call(t, cs, "result_query", args)
		text, next, err := textRun(r.text)
		if r.isError || err != nil {
			t.Fatalf("result_query %v: %v: %.300s", args, err, r.text)
		}
		b.WriteString(text)
		if next == nil {
			return b.String()
		}
		args = next
	}
}

// textRun splits a run of a folded text into its text and the call that
// goes on (nil at the end).
func textRun(answer string) (string, map[string]any, error) {
	at := strings.LastIndex(answer, "\n[folio] characters ")
	if at < 0 {
		return "", nil, fmt.Errorf("no [folio] line")
	}
	footer := answer[at+1:]
	if strings.HasSuffix(footer, ", the end") {
		return answer[:at], nil, nil
	}
	_, call, ok := strings.Cut(footer, "more: result_query ")
	var next map[string]any
	if !ok || json.Unmarshal([]byte(call), &next) != nil {
		return "", nil, fmt.Errorf("footer %q", footer)
	}
	return answer[:at], next, nil
}

// queryAll reads every item of the list at path through result_query, page
// by page, and returns them.
func queryAll(t testing.TB, cs *mcp.ClientSession, handle, path string) []json.RawMessage {
	t.Helper()
	var all []json.RawMessage
	offset := 0
	for {
		r := call(t, cs, "result_query", map[string]any{"handle": handle, "path": path, "offset": offset, "limit": 50})
		if r.isError {
			t.Fatalf("result_query at %d: %s", offset, r.text)
		}
		var a struct {
			Value      []json.RawMessage
			Total      int
			NextOffset *int `json:"next_offset"`
		}
		if err := json.Unmarshal([]byte(r.text), &a); err != nil {
			t.Fatal(err)
		}
		all = append(all, a.Value...)
		if a.NextOffset == nil {
			if len(all) != a.Total {
				t.Fatalf("read %d of %d items", len(all), a.Total)
			}
			return all
		}
		offset = *a.NextOffset
	}
}

// TestListFoldsOverHTTP lists the Go distribution's src/net recursively
// over HTTP, with details (a JSON answer): the answer folds, result_query gives back every entry exactly,
// and neither another subject nor another session of the same subject can
// read the handle.
func TestListFoldsOverHTTP(t *testing.T) {
	e := newEnvAt(t, mcptest.GoSource(t, "net"))
	alice := e.addToken(t, "alice")
	bob := e.addToken(t, "bob")
	endpoint := serveHTTP(t, e.server(t, serverOpts{threshold: 8192}))
	cs := dialHTTP(t, endpoint, alice, nil)

	r := call(t, cs, "list", map[string]any{"recursive": true, "details": true})
	f := wantFolded(t, r)
	if len(r.text) > fold.DefaultThresholdBytes {
		t.Errorf("the folded answer is %d bytes", len(r.text))
	}
	got := queryAll(t, cs, f.Handle, "entries")

	// The same listing, whole, from a server that never folds.
	whole := e.server(t, serverOpts{threshold: 1 << 30, local: true})
	want := listing(t, call(t, dialMemory(t, whole, nil), "list", map[string]any{"recursive": true, "details": true}))
	if len(got) != len(want.Entries) || len(got) < 300 {
		t.Fatalf("result_query gave %d entries, the whole listing has %d", len(got), len(want.Entries))
	}
	for i, raw := range got {
		var entry wire.Entry
		json.Unmarshal(raw, &entry)
		w := want.Entries[i]
		if entry.Path != w.Path || entry.Type != w.Type {
			t.Fatalf("entry %d: %s, want %+v", i, raw, w)
		}
	}
	// A dot path into one entry, and fields.
	r = call(t, cs, "result_query", map[string]any{"handle": f.Handle, "path": "$.entries[3]", "fields": []string{"path"}})
	if r.isError || r.text != fmt.Sprintf(`{"path":"$.entries[3]","value":{"path":%q}}`, want.Entries[3].Path) {
		t.Errorf("entries[3]: %s", r.text)
	}

	// By tokens: the answer fits max_tokens, as _meta reports.
	r = call(t, cs, "result_query", map[string]any{"handle": f.Handle, "path": "entries", "offset": 10, "max_tokens": 200})
	n := counter(t, "o200k_base").Count(r.text)
	if r.isError || n > 200 || r.meta[wire.MetaTokens] != float64(n) || r.meta[wire.MetaTokenizer] != "o200k_base" {
		t.Errorf("max_tokens 200: %d tokens, _meta %v: %s", n, r.meta, r.text)
	}

	// A handle of the sessionless era is its caller's: alice reads it on a
	// connection of her own, bob does not, nor does a session of alice's
	// (a session's handles are its own, and it holds no other).
	if r := call(t, dialHTTP(t, endpoint, alice, nil), "result_query", map[string]any{"handle": f.Handle, "path": "entries.3.path"}); r.isError {
		t.Errorf("alice's next connection: %s", r.text)
	}
	wantCode(t, call(t, dialHTTP(t, endpoint, bob, nil), "result_query", map[string]any{"handle": f.Handle}), toolerr.CodeHandleNotFound)
	wantCode(t, call(t, dialSession(t, endpoint, alice, nil), "result_query", map[string]any{"handle": f.Handle}), toolerr.CodeHandleNotFound)
	session := dialSession(t, endpoint, alice, nil)
	g := wantFolded(t, call(t, session, "list", map[string]any{"recursive": true, "details": true}))
	if r := call(t, session, "result_query", map[string]any{"handle": g.Handle, "path": "entries.3.path"}); r.isError {
		t.Errorf("a session reads its own handle: %s", r.text)
	}
	wantCode(t, call(t, dialSession(t, endpoint, alice, nil), "result_query", map[string]any{"handle": g.Handle}), toolerr.CodeHandleNotFound)
	wantCode(t, call(t, dialHTTP(t, endpoint, alice, nil), "result_query", map[string]any{"handle": g.Handle}), toolerr.CodeHandleNotFound)
	wantCode(t, call(t, cs, "result_query", map[string]any{"handle": f.Handle, "path": "entries", "limit": 5000}), toolerr.CodeSliceTooLarge)
	wantCode(t, call(t, cs, "result_query", map[string]any{"handle": f.Handle, "page": 1, "offset": 0}), toolerr.CodeInvalidArgument)
	wantCode(t, call(t, cs, "result_query", map[string]any{"handle": f.Handle, "path": "entries.99999"}), toolerr.CodePathNotFound)
	wantCode(t, call(t, cs, "result_query", map[string]any{"handle": f.Handle, "nope": 1}), "invalid_argument")
}

// TestFoldNeedsAnOwner: an anonymous call of the session era without a
// session (stateless HTTP) gets the whole answer, since folio keeps nothing
// for it; an anonymous call of the sessionless era folds, and its later
// calls read the handle; with a token, a stateless answer folds and any
// call of the same subject reads it.
func TestFoldNeedsAnOwner(t *testing.T) {
	e := newEnv(t)
	for i := range 600 {
		e.write(t, fmt.Sprintf("d%d/file-with-a-longish-name-%04d.md", i%10, i), "x")
	}
	anonymous := serveHTTP(t, e.server(t, serverOpts{stateless: true, local: true}))
	r := call(t, dialSession(t, anonymous, "", nil), "list", map[string]any{"recursive": true})
	if r.raw.StructuredContent != nil || len(r.text) <= fold.DefaultThresholdBytes {
		t.Fatalf("anonymous stateless answer: %d bytes, structured %v", len(r.text), r.raw.StructuredContent != nil)
	}
	// One endpoint offers every caller the same tools: result_query too.
	if names := mcptest.ToolNames(t, dialSession(t, anonymous, "", nil)); !slices.Contains(names, "result_query") {
		t.Errorf("tools %v", names)
	}
	f := wantFolded(t, call(t, dialHTTP(t, anonymous, "", nil), "list", map[string]any{"recursive": true}))
	if n := strings.Count(readFolded(t, dialHTTP(t, anonymous, "", nil), f.Handle), "\n"); n != 610 {
		t.Errorf("the sessionless era, anonymous: %d entries, want 610", n)
	}

	tok := e.addToken(t, "carol")
	dave := e.addToken(t, "dave")
	endpoint := serveHTTP(t, e.server(t, serverOpts{stateless: true}))
	f = wantFolded(t, call(t, dialSession(t, endpoint, tok, nil), "list", map[string]any{"recursive": true}))
	if n := strings.Count(readFolded(t, dialSession(t, endpoint, tok, nil), f.Handle), "\n"); n != 610 {
		t.Errorf("%d entries, want 610", n)
	}
	wantCode(t, call(t, dialSession(t, endpoint, dave, nil), "result_query", map[string]any{"handle": f.Handle}), toolerr.CodeHandleNotFound)
}

// TestFoldPerConnection: two connections with no session ID (stdio-like)
// each read only their own handles.
func TestFoldPerConnection(t *testing.T) {
	e := newEnv(t)
	for i := range 600 {
		e.write(t, fmt.Sprintf("file-with-a-longish-name-%04d.md", i), "x")
	}
	s := e.server(t, serverOpts{local: true})
	one, two := dialMemory(t, s, nil), dialMemory(t, s, nil)
	f := wantFolded(t, call(t, one, "list", nil))
	if text := readFolded(t, one, f.Handle); !strings.Contains(text, "\nfile-with-a-longish-name-0399.md\n") {
		t.Errorf("own handle: %.300s", text)
	}
	wantCode(t, call(t, two, "result_query", map[string]any{"handle": f.Handle}), toolerr.CodeHandleNotFound)
}

// TestGrepFoldsOnlyWhenLarge: a small grep answers inline, a large one
// folds and result_query reads its matches.
func TestGrepFoldsOnlyWhenLarge(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %d: needle %s\n", i, strings.Repeat("hay ", i%7))
	}
	e.write(t, "big.txt", b.String())
	e.write(t, "small.txt", "one needle\nnothing\n")
	tok := e.addToken(t, "erin")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)

	r := call(t, cs, "grep", map[string]any{"pattern": "needle", "path": "small.txt"})
	if r.raw.StructuredContent != nil || r.text != "small.txt\n1:one needle\n" {
		t.Errorf("small grep: %s", r.text)
	}
	f := wantFolded(t, call(t, cs, "grep", map[string]any{"pattern": "needle", "max_matches": 5000}))
	g := grepResult(t, result{text: readFolded(t, cs, f.Handle)})
	if len(g.Matches) != 2001 {
		t.Fatalf("%d matches, want 2001", len(g.Matches))
	}
	if m := g.Matches[1500]; m.Path != "big.txt" || m.Line != 1501 || m.Text != "line 1500: needle "+strings.Repeat("hay ", 1500%7) {
		t.Errorf("match 1500: %+v", m)
	}
}

// TestRedisStoreDownSendsWhole folds into a real Redis, kills it, and shows
// that the next large answer is sent whole with a warning in the log.
func TestRedisStoreDownSendsWhole(t *testing.T) {
	e := newEnv(t)
	for i := range 600 {
		e.write(t, fmt.Sprintf("file-with-a-longish-name-%04d.md", i), "x")
	}
	srv := redistest.Start(t)
	store, err := redisstore.Open(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var logs mcptest.Buffer
	tok := e.addToken(t, "frank")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{store: store, log: slog.New(slog.NewTextHandler(&logs, nil))})), tok, nil)

	f := wantFolded(t, call(t, cs, "list", nil))
	if r := call(t, cs, "result_query", map[string]any{"handle": f.Handle, "max_tokens": 100}); r.isError {
		t.Fatalf("result_query through Redis: %s", r.text)
	}
	srv.Kill()
	r := call(t, cs, "list", nil)
	if r.isError || r.raw.StructuredContent != nil || len(listing(t, r).Entries) != 600 {
		t.Fatalf("with Redis down: %.200s", r.text)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "answer sent whole") {
		t.Errorf("no warning logged: %s", logs.String())
	}
}

// TestFoldedReadWhole: a folded answer read whole by following its hint
// (the example call, then on from next_offset) takes at most 4 calls, the
// answer's own included, and at most 1.1 times the tokens of the answer
// sent whole: a recursive list of Go's src/crypto and a grep of it. A folded
// JSON answer's hint names the cheaper projection (go test -run
// FoldedReadWhole -v ./mcpserver).
func TestFoldedReadWhole(t *testing.T) {
	e := newEnvAt(t, mcptest.GoSource(t, "crypto"))
	folding := dialMemory(t, e.server(t, serverOpts{local: true}), nil)
	whole := dialMemory(t, e.server(t, serverOpts{local: true, threshold: 1 << 30}), nil)
	c := counter(t, "o200k_base")
	example := regexp.MustCompile(`e\.g\. (\{.*?\})[,;]`)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"list", map[string]any{"recursive": true}},
		{"grep", map[string]any{"pattern": `panic\(`}},
	} {
		r := call(t, folding, tc.tool, tc.args)
		f := wantFolded(t, r)
		want := call(t, whole, tc.tool, tc.args).text
		m := example.FindStringSubmatch(r.text)
		var args map[string]any
		if m == nil || json.Unmarshal([]byte(m[1]), &args) != nil || args["handle"] != f.Handle {
			t.Fatalf("%s: the hint has no call to follow: %s", tc.tool, r.text[strings.LastIndex(r.text, "\n"):])
		}
		calls, tokens := 1, c.Count(r.text)
		var got strings.Builder
		for args != nil {
			q := call(t, folding, "result_query", args)
			calls++
			tokens += c.Count(q.text)
			text, next, err := textRun(q.text)
			if q.isError || err != nil {
				t.Fatalf("%s: result_query %v: %v: %.300s", tc.tool, args, err, q.text)
			}
			got.WriteString(text)
			args = next
		}
		n := c.Count(want)
		t.Logf("%s %v: whole %d tokens; folded and read whole by the hint: %d tokens (%.3fx) in %d calls", tc.tool, tc.args, n, tokens, float64(tokens)/float64(n), calls)
		if got.String() != want || calls > 4 || float64(tokens) > 1.1*float64(n) {
			t.Errorf("%s: %d calls, %d tokens against %d whole; same text %v", tc.tool, calls, tokens, n, got.String() == want)
		}
	}
	// A JSON answer (list with details): the hint names the projection
	// to one short key, and max_tokens.
	r := call(t, folding, "list", map[string]any{"recursive": true, "details": true})
	wantFolded(t, r)
	if !strings.Contains(r.text, `"path":"entries","fields":["path"],"max_tokens":8000`) {
		t.Errorf("the hint of a folded listing with details: %s", r.text[strings.LastIndex(r.text, "\n"):])
	}
}
