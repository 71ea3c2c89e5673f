package mcpserver

import (
	"context"
	"errors"

	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/wire"
)

// TestSymlinkSwapRace: while a directory and a symlink to a hidden one
// (.git, denied; private/, outside the token's allow list) are swapped in a
// loop with renameat2(RENAME_EXCHANGE), no tool, over HTTP, ever gives a
// byte or a name of the hidden directory. The file opened must be the file
// checked.
func TestSymlinkSwapRace(t *testing.T) {
	calls := 5000 // per case: 10,000 in all
	if raceEnabled || testing.Short() {
		calls = 500
	}
	for _, tc := range []struct {
		name, hidden string
		allow        []string
	}{
		{"deny list", ".git", nil},
		{"allow list", "private", []string{"docs/**"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.write(t, "docs/config", "public docs\n")
			e.write(t, "docs/guide.md", "public guide\n")
			e.write(t, tc.hidden+"/config", "SECRET config\n")
			e.write(t, tc.hidden+"/HEAD", "SECRET head\n")
			if err := os.Symlink(tc.hidden, filepath.Join(e.dir, "swap")); err != nil {
				t.Fatal(err)
			}
			tok := e.addToken(t, "mallory", tc.allow...)
			cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)

			docs, swap := filepath.Join(e.dir, "docs"), filepath.Join(e.dir, "swap")
			if err := unix.Renameat2(unix.AT_FDCWD, docs, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
				t.Skipf("renameat2(RENAME_EXCHANGE): %v", err)
			}
			stop := make(chan struct{})
			var swapping sync.WaitGroup
			var swaps atomic.Int64
			swapping.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if unix.Renameat2(unix.AT_FDCWD, docs, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE) == nil {
						swaps.Add(1)
					}
				}
			})
			defer func() { close(stop); swapping.Wait() }()

			docsURI := "file://" + filepath.Join(e.dir, "docs", "config")
			attacks := []struct {
				method string
				args   map[string]any
			}{
				{"read", map[string]any{"path": "docs/config", "max_tokens": 1000}},
				{"read", map[string]any{"path": "docs/config"}},
				{"read", map[string]any{"paths": []string{"docs/config", "docs/HEAD"}}},
				{"grep", map[string]any{"pattern": "SECRET", "path": "docs"}},
				{"grep", map[string]any{"pattern": "SECRET"}},
				{"list", map[string]any{"path": "docs"}},
				{"list", map[string]any{"recursive": true}},
				{"resources/read", nil},
				{"resources/list", nil},
			}
			ctx := context.Background()
			leaks := 0
			for i := range calls {
				a := attacks[i%len(attacks)]
				var text string
				switch a.method {
				case "resources/read":
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: docsURI})
					if err == nil {
						text = res.Contents[0].Text
					}
				case "resources/list":
					res, err := cs.ListResources(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range res.Resources {
						text += r.URI + "\n"
					}
				default:
					res, err := cs.CallTool(ctx, toolCall(a.method, a.args))
					if err != nil {
						t.Fatal(err)
					}
					text = res.Content[0].(*mcp.TextContent).Text
				}
				named := a.method == "list" || a.method == "resources/list" || a.method == "grep"
				if strings.Contains(text, "SECRET") || named && strings.Contains(text, "HEAD") {
					leaks++
					if leaks <= 3 {
						t.Errorf("%s %v leaked: %.200s", a.method, a.args, text)
					}
				}
			}
			if leaks > 0 {
				t.Errorf("%d leaks in %d calls", leaks, calls)
			}
			t.Logf("%d calls, %d swaps, %d leaks", calls, swaps.Load(), leaks)
			if swaps.Load() == 0 {
				t.Fatal(errors.New("nothing was swapped"))
			}
		})
	}
}

// TestDenyListOverHTTP: credential files at any depth and in any case are
// hidden from every tool.
func TestDenyListOverHTTP(t *testing.T) {
	e := newEnv(t)
	secrets := []string{"vendor/lib/.git/config", ".ssh/id_rsa", "home/.ssh/config", ".netrc", ".ENV", "docs/.Env",
		".ENV.production", ".aws/credentials", ".npmrc", ".pypirc", "certs/site.PEM", "id_rsa.bak", ".git-credentials"}
	for _, name := range secrets {
		e.write(t, name, "SECRET in "+name+"\n")
	}
	e.write(t, "docs/guide.md", "public\n")
	tok := e.addToken(t, "alice")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)
	for _, name := range secrets {
		wantCode(t, call(t, cs, "read", map[string]any{"path": name}), "not_found")
		wantCode(t, call(t, cs, "read", map[string]any{"path": name, "max_tokens": 500}), "not_found")
	}
	for _, r := range []result{
		call(t, cs, "grep", map[string]any{"pattern": "SECRET"}),
		call(t, cs, "list", map[string]any{"recursive": true}),
	} {
		if r.isError || strings.Contains(r.text, "SECRET") || strings.Contains(r.text, "netrc") || strings.Contains(r.text, "ssh") {
			t.Errorf("leaked: %s", r.text)
		}
	}
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if files := slices.DeleteFunc(res.Resources, func(r *mcp.Resource) bool { return madeURI(r.URI) }); len(files) != 1 {
		t.Errorf("resources/list gives %d files, want only docs/guide.md", len(files))
	}
}

// TestGrepCost: a pattern whose program is too large is refused; a slow
// search stops at its time budget with what it found; a long literal is
// found in time linear in the text.
func TestGrepCost(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("abcdefghij", 20_000) // a 200 KB line
	e.write(t, "long.txt", "first line\n"+long+"\n")
	var big strings.Builder
	for i := range 9 {
		fmt.Fprintf(&big, "%d %s\n", i, long[:100_000])
	}
	e.write(t, "slow/big.txt", big.String())
	e.write(t, "slow/a.txt", "Z\n")
	tok := e.addToken(t, "alice")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{grepTimeout: 300 * time.Millisecond, threshold: 1 << 20})), tok, nil)

	r := call(t, cs, "grep", map[string]any{"pattern": strings.Repeat(".{1000}", 10)})
	wantCode(t, r, "invalid_argument")
	if !strings.Contains(r.text, "too complex") {
		t.Errorf("refusal: %s", r.text)
	}
	// About 900 instructions on 900 KB of long lines: seconds of CPU
	// without the budget.
	g := grepResult(t, call(t, cs, "grep", map[string]any{"pattern": "[a-j]{1,450}Z", "path": "slow"}))
	if !g.Truncated || !strings.Contains(g.Note, "time budget") {
		t.Errorf("slow grep: truncated %v, note %q", g.Truncated, g.Note)
	}
	needle := long[5:100_005]
	g = grepResult(t, call(t, cs, "grep", map[string]any{"pattern": needle, "literal": true, "path": "long.txt"}))
	if len(g.Matches) != 1 || g.Matches[0].Line != 2 || g.Truncated {
		t.Errorf("long literal: %d matches, truncated %v", len(g.Matches), g.Truncated)
	}
}

// TestGrepAnswerBound: context 20 and max_matches 100000 on a large file
// give an answer within the byte bound, marked truncated.
func TestGrepAnswerBound(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := 0; b.Len() < 900_000; i++ {
		fmt.Fprintf(&b, "line %d with a match and some more words to fill it\n", i)
	}
	e.write(t, "big.txt", b.String())
	const bound = 256 << 10
	tok := e.addToken(t, "alice")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{maxAnswerBytes: bound})), tok, nil)
	r := call(t, cs, "grep", map[string]any{"pattern": "match", "context": 20, "max_matches": 100000})
	h, _ := r.meta[wire.MetaResultHandle].(map[string]any)
	size, _ := h["bytes"].(float64)
	if h == nil || size == 0 || size > bound {
		t.Fatalf("answer of %v bytes (bound %d): %.300s", size, bound, r.text)
	}
	if text := readFolded(t, cs, h["handle"].(string)); !strings.Contains(text, "[folio] stopped before the answer passed") {
		t.Errorf("no note in %d bytes: %.300s", len(text), text[max(len(text)-300, 0):])
	}
}

// TestHangUpStopsWork: a client that hangs up in the middle of a long grep,
// without a cancel notification, stops the search: the call ends as a
// tool error instead of running to its end. In both eras: a session's
// request, and a sessionless one.
func TestHangUpStopsWork(t *testing.T) {
	e := newEnv(t)
	line := strings.Repeat("abcdefghij", 10_000)
	for i := range 10 {
		e.write(t, fmt.Sprintf("slow/%d.txt", i), strings.Repeat(line+"\n", 9))
	}
	tok := e.addToken(t, "alice")
	records := make(chan slog.Record, 100)
	srv := e.server(t, serverOpts{grepTimeout: time.Hour, log: slog.New(recordHandler(records))})
	url := serveHTTP(t, srv)
	session := dialSession(t, url, tok, nil)
	for _, era := range []string{sessionEra, "2026-07-28"} {
		// About a minute of CPU, asked for in a POST of our own.
		meta := ""
		if era != sessionEra {
			meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		}
		body := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"[a-j]{1,450}Z"}` + meta + `}}`
		ctx, hangUp := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", era)
		if era == sessionEra {
			req.Header.Set("Mcp-Session-Id", session.ID())
		} else {
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "grep")
		}
		go func() {
			time.Sleep(200 * time.Millisecond)
			hangUp()
		}()
		if res, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		waitForGrep(t, era, records)
	}
}

// waitForGrep fails unless the grep logged in records ended as a tool
// error.
func waitForGrep(t *testing.T, era string, records chan slog.Record) {
	t.Helper()
	for {
		var r slog.Record
		select {
		case r = <-records:
		case <-time.After(time.Minute):
			t.Fatalf("%s: the grep never ended, or was never called", era)
		}
		attrs := map[string]string{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		if attrs["tool"] == "grep" {
			if attrs["tool_error"] != "true" {
				t.Errorf("%s: the grep ran to its end: %v", era, attrs)
			}
			return
		}
	}
}

// recordHandler is a slog handler that sends every record to records.
type recordHandler chan slog.Record

func (h recordHandler) Enabled(context.Context, slog.Level) bool      { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error { h <- r.Clone(); return nil }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h recordHandler) WithGroup(string) slog.Handler                 { return h }

// TestLineReadBound: a hundred copies of one file in uris share one token
// cap; one file over the byte bound is an error that says how to read it;
// resources/read of a file over the token cap is too_large.
func TestLineReadBound(t *testing.T) {
	e := newEnv(t)
	text := strings.Repeat("a line of the file, repeated\n", 10_000) // 290 KB
	e.write(t, "f.txt", text)
	tok := e.addToken(t, "alice")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)
	uris := make([]string, wire.MaxPaths)
	for i := range uris {
		uris[i] = "f.txt"
	}
	r := call(t, cs, "read", map[string]any{"paths": uris})
	read, rest, _ := strings.Cut(r.text, "[folio] the answer's cap")
	n := counter(t, tokencount.O200kBase).Count(read)
	if n > reader.DefaultLineMaxTokens || n < reader.DefaultLineMaxTokens*9/10 {
		t.Errorf("uris: %d tokens, cap %d", n, reader.DefaultLineMaxTokens)
	}
	files := strings.Count(read, "=== ")
	if files < 2 || strings.Count(read, "stopped at the token cap") != 1 || strings.Count(rest, "f.txt") != wire.MaxPaths-files {
		t.Errorf("uris: %d files read, the last cut, the others named as not read: %.300s … %.300s", files, read, rest)
	}

	small := strings.Repeat("x ", 30_000) // 60 KB: under the byte bound, over the token cap
	if n := counter(t, tokencount.O200kBase).Count(small); n <= reader.DefaultLineMaxTokens {
		t.Fatalf("the file counts %d tokens, not over the cap", n)
	}
	e.write(t, "g.txt", small)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file://" + filepath.Join(e.dir, "g.txt")})
	if err == nil || !strings.Contains(err.Error(), "tokens a resource read gives") {
		t.Errorf("resources/read of a file over the token cap: %v", err)
	}

	const bound = 32 << 10
	cs = dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{maxAnswerBytes: bound})), tok, nil)
	wantCode(t, call(t, cs, "read", map[string]any{"path": "f.txt"}), "too_large")
	if r := call(t, cs, "read", map[string]any{"path": "f.txt", "offset": 10, "limit": 5}); r.isError {
		t.Errorf("a few lines of a large file: %s", r.text)
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file://" + filepath.Join(e.dir, "f.txt")})
	if err == nil || !strings.Contains(err.Error(), "read tool") {
		t.Errorf("resources/read of a file over the bound: %v", err)
	}
}

// TestListBound: a listing stops short of the answer bound, and says so.
func TestListBound(t *testing.T) {
	e := newEnv(t)
	for i := range 500 {
		e.write(t, fmt.Sprintf("dir/file-with-a-long-name-%04d.md", i), "x")
	}
	const bound = 8 << 10
	cs := dialMemory(t, e.server(t, serverOpts{local: true, maxAnswerBytes: bound, threshold: 1 << 20}), nil)
	r := call(t, cs, "list", map[string]any{"recursive": true})
	l := listing(t, r)
	if len(r.text) > bound || !l.Truncated || len(l.Entries) < 50 || !strings.Contains(l.Note, "cut at") {
		t.Errorf("%d bytes, %d entries, truncated %v, note %q", len(r.text), len(l.Entries), l.Truncated, l.Note)
	}
}

// TestTrickledBody: a client that sends its body a byte at a time, with no
// token, is cut off when the body timeout ends, long before it finishes.
func TestTrickledBody(t *testing.T) {
	e := newEnv(t)
	e.addToken(t, "alice")
	srv := e.server(t, serverOpts{bodyTimeout: 200 * time.Millisecond})
	url := serveHTTP(t, srv)
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const size = 500
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
	answered := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn)
		answered <- string(b)
	}()
	sent := 0
	for ; sent < size; sent++ {
		select {
		case got := <-answered:
			if !strings.HasPrefix(got, "HTTP/1.1 408") {
				t.Errorf("answer to a trickled body: %.100q", got)
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := conn.Write([]byte("x")); err != nil {
			break // cut off
		}
	}
	if sent == size {
		t.Fatalf("the whole trickled body was taken")
	}
}

// TestHandleAfterNarrowing: a handle made before the caller's allow list
// was narrowed is not found after, even in the same session.
func TestHandleAfterNarrowing(t *testing.T) {
	e := newEnv(t)
	for i := range 600 {
		e.write(t, fmt.Sprintf("private/secret-%03d.md", i), "SECRET line\n")
	}
	e.write(t, "docs/a.md", "public\n")
	bob := e.addToken(t, "bob", "docs/**", "private/**")
	clock := time.Now()
	s := e.server(t, serverOpts{tokensNow: func() time.Time { return clock }})
	cs := dialHTTP(t, serveHTTP(t, s), bob, nil)
	f := wantFolded(t, call(t, cs, "grep", map[string]any{"pattern": "SECRET"}))
	query := map[string]any{"handle": f.Handle, "max_tokens": 200}
	if r := call(t, cs, "result_query", query); r.isError || !strings.Contains(r.text, "SECRET") {
		t.Fatalf("before narrowing: %s", r.text)
	}
	e.setAllow(t, 0, "docs/**")
	clock = clock.Add(tokens.ReloadEvery)
	wantCode(t, call(t, cs, "result_query", query), "result_handle_not_found")
}

// TestSessionCaps: sessions (of the era that has them) are capped per
// subject and in all; ending one makes room.
func TestSessionCaps(t *testing.T) {
	e := newEnv(t)
	alice, bob := e.addToken(t, "alice"), e.addToken(t, "bob")
	s := e.server(t, serverOpts{})
	s.cfg.MaxSessions, s.cfg.MaxSessionsPerSubject = 5, 3
	url := serveHTTP(t, s)
	var open []*mcp.ClientSession
	for range 3 {
		open = append(open, dialSession(t, url, alice, nil))
	}
	if _, err := tryDialHTTP(url, alice, sessionEra, nil); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Fatalf("alice's fourth session: %v", err)
	}
	dialSession(t, url, bob, nil)
	dialSession(t, url, bob, nil)
	if _, err := tryDialHTTP(url, bob, sessionEra, nil); err == nil {
		t.Fatal("a sixth session in all was opened")
	}
	open[0].Close() // DELETE ends the session
	for i := 0; ; i++ {
		cs, err := tryDialHTTP(url, alice, sessionEra, nil)
		if err == nil {
			cs.Close()
			break
		}
		if i == 100 {
			t.Fatalf("no room after a session ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestListChangedFollowsRights: a session hears of files appearing only
// where its token may see them; a notification that cannot be delivered
// is logged once per change, not once per session.
func TestListChangedFollowsRights(t *testing.T) {
	e := newEnv(t)
	e.write(t, "docs/a.md", "a\n")
	e.write(t, "private/b.md", "b\n")
	alice, bob := e.addToken(t, "alice", "docs/**"), e.addToken(t, "bob")
	var logs mcptest.Buffer
	s := e.server(t, serverOpts{log: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx)
	url := serveHTTP(t, s)
	listen := func(token string) chan struct{} {
		ch := make(chan struct{}, 64)
		dialSession(t, url, token, &mcp.ClientOptions{ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			ch <- struct{}{}
		}})
		return ch
	}
	aliceHeard, bobHeard := listen(alice), listen(bob)
	// Sessions opened by an initialize alone, with no event stream:
	// nothing can reach them.
	for range 5 {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deaf","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bob)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusOK || res.Header.Get(sessionIDHeader) == "" {
			t.Fatalf("initialize: %v %v", err, res)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	heard := func(ch chan struct{}, name string) {
		t.Helper()
		for i := 0; ; i++ {
			e.write(t, fmt.Sprintf("%s/new-%d.md", name, i), "x\n")
			select {
			case <-ch:
				time.Sleep(300 * time.Millisecond) // let the round end
				for len(ch) > 0 {
					<-ch
				}
				return
			case <-time.After(200 * time.Millisecond):
				if i == 100 {
					t.Fatalf("nothing heard of %s", name)
				}
			}
		}
	}
	heard(bobHeard, "private")
	if len(aliceHeard) != 0 {
		t.Fatal("alice heard of files in private/")
	}
	warns := strings.Count(logs.String(), "level=WARN")
	os.Remove(filepath.Join(e.dir, "private", "b.md"))
	select {
	case <-bobHeard:
	case <-time.After(20 * time.Second):
		t.Fatal("bob did not hear of the removal")
	}
	time.Sleep(300 * time.Millisecond)
	if n := strings.Count(logs.String(), "level=WARN") - warns; n > 1 {
		t.Errorf("one change to 5 unreachable sessions logged %d warnings", n)
	}
	if len(aliceHeard) != 0 {
		t.Fatal("alice heard of a removal in private/")
	}
	heard(aliceHeard, "docs")
}

// listAllResources pages through resources/list and returns the URIs of
// the files (the made llms.txt and llms-full.txt left out).
func listAllResources(t testing.TB, cs *mcp.ClientSession) []string {
	var uris []string
	params := &mcp.ListResourcesParams{}
	for {
		res, err := cs.ListResources(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if !madeURI(r.URI) {
				uris = append(uris, r.URI)
			}
		}
		if res.NextCursor == "" {
			return uris
		}
		params.Cursor = res.NextCursor
	}
}

// TestResourcesListLargeDirectory: a directory of thousands of files is
// listed page by page over HTTP, every file once, in order.
func TestResourcesListLargeDirectory(t *testing.T) {
	e := newEnv(t)
	const files = 5000
	for i := range files {
		os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("f%05d.md", i)), []byte("x\n"), 0o644)
	}
	tok := e.addToken(t, "alice")
	uris := listAllResources(t, dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil))
	if len(uris) != files || !slices.IsSorted(uris) {
		t.Fatalf("%d files listed (sorted: %v), want %d", len(uris), slices.IsSorted(uris), files)
	}
}

// TestReadMemoryOverHTTP: reads wait while the read memory is full, a
// client that gives up while waiting costs nothing more, and a read goes
// through once there is room.
func TestReadMemoryOverHTTP(t *testing.T) {
	dir := t.TempDir()
	fs, err := fsview.Open([]string{dir}, fsview.Options{ReadMemory: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	e := newEnvAt(t, dir)
	e.fs = fs
	e.write(t, "held.txt", strings.Repeat("x", 60<<10))
	e.write(t, "wanted.txt", strings.Repeat("y\n", 10<<10))
	tok := e.addToken(t, "alice")
	cs := dialHTTP(t, serveHTTP(t, e.server(t, serverOpts{})), tok, nil)
	f, _ := fs.Regular("held.txt")
	held, err := fs.Snapshot(context.Background(), f, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, toolCall("read", map[string]any{"path": "wanted.txt", "max_tokens": 100})); err == nil {
		t.Fatal("a read went through while the read memory was full")
	}
	held.Release()
	if r := call(t, cs, "read", map[string]any{"path": "wanted.txt", "max_tokens": 100}); r.isError {
		t.Fatalf("after the memory was given back: %s", r.text)
	}
}
