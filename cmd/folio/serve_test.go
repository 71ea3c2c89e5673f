package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/tokencount"
)

// serveProc is a running folio serve --http.
type serveProc struct {
	endpoint string
	cmd      *exec.Cmd
	done     chan error
	stderr   *strings.Builder
}

var listeningRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startServe starts folio serve with args (for HTTP, "--http",
// "127.0.0.1:0" among them) and waits for its address. It is stopped with SIGTERM
// at the end of the test, and must exit 0.
func startServe(t *testing.T, env []string, args ...string) *serveProc {
	t.Helper()
	p, err := startProc(t, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop ends a serve process with SIGTERM and waits for it; it must exit 0.
// The test's idle connections are closed first: a connection the client
// dialled and never used counts as a request in flight until it is 5 s
// old (net/http), and the server would wait that long for it.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("serve exited with %v:\n%s", err, p.stderr)
		}
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatal("serve did not stop on SIGTERM")
	}
}

func startProc(t testing.TB, env []string, args ...string) (*serveProc, error) {
	cmd := exec.Command(folioBin, append([]string{"serve"}, args...)...)
	cmd.Env = testmain.Env(t, env...)
	return startCmd(cmd)
}

// startCmd starts cmd, a folio serve over HTTP, and waits for the address
// it logs.
func startCmd(cmd *exec.Cmd) (*serveProc, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProc{cmd: cmd, done: make(chan error, 1), stderr: &strings.Builder{}}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.stderr.WriteString(line + "\n")
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				addr <- m[1]
			}
		}
		p.done <- cmd.Wait()
	}()
	select {
	case a := <-addr:
		p.endpoint = "http://" + a + "/mcp"
		return p, nil
	case err := <-p.done:
		return nil, fmt.Errorf("serve exited (%v):\n%s", err, p.stderr)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("serve did not start:\n%s", p.stderr)
	}
}

func dial(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func httpTransport(endpoint, token string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: remote.HTTPClient(token)}
}

// readTool calls read and returns its text and whether it is an error.
func readTool(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// pageThrough reads uri to the end, each page from the next client in
// turn, and returns the contents joined.
func pageThrough(t *testing.T, budget int, uri string, clients ...*mcp.ClientSession) string {
	t.Helper()
	var got strings.Builder
	args := map[string]any{"path": uri, "max_tokens": budget}
	for i := 0; ; i++ {
		text, isErr := readTool(t, clients[i%len(clients)], args)
		if isErr {
			t.Fatalf("page %d: %s", i+1, text)
		}
		p, err := pager.Decode([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(p.Content)
		if !p.HasMore {
			return got.String()
		}
		args["cursor"] = *p.NextCursor
	}
}

func TestServeStdio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Repeat("中文🙂 \"quoted\" \\ path\r\n", 400)
	write(t, dir, "docs/a.md", text)
	cmd := exec.Command(folioBin, "serve", "--root", dir, "--log-level", "debug")
	cmd.Env = testmain.Env(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs := dial(t, &mcp.CommandTransport{Command: cmd})
	if got := pageThrough(t, 600, "docs/a.md", cs); got != text {
		t.Fatal("stdio pages do not give back the file")
	}
	if got, isErr := readTool(t, cs, map[string]any{"path": "docs/a.md", "offset": 2, "limit": 1}); isErr || !strings.HasPrefix(got, "中文🙂 \"quoted\" \\ path\r\n\n[folio] ") {
		t.Fatalf("line mode: %q", got)
	}
	if got, isErr := readTool(t, cs, map[string]any{"path": "docs/a.md", "max_tokens": 600, "limit": 1}); !isErr || !strings.Contains(got, "invalid_argument") {
		t.Fatalf("mixed modes: %q", got)
	}
	cs.Close()
	if !strings.Contains(stderr.String(), "msg=serving") || !strings.Contains(stderr.String(), "method=tools/call") {
		t.Fatalf("logs on stderr: %s", stderr.String())
	}
}

// TestServeDirArgs: directories given after serve's flags are served as
// roots after the --root ones (an MCP bundle's list of folders expands
// to them: packaging/mcpb); one that is not there, a file or / is
// refused naming it, as a --root would be.
func TestServeDirArgs(t *testing.T) {
	t.Parallel()
	first, second, third := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, first, "a.md", "first\n")
	write(t, second, "b.md", "second\n")
	write(t, third, "c.md", "third\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"after --root", []string{"--root", first, second, third}},
		{"alone", []string{first, second, third}},
	} {
		cmd := exec.Command(folioBin, append([]string{"serve"}, c.args...)...)
		cmd.Env = testmain.Env(t)
		cs := dial(t, &mcp.CommandTransport{Command: cmd})
		for path, want := range map[string]string{"a.md": "first\n", filepath.Join(second, "b.md"): "second\n", filepath.Join(third, "c.md"): "third\n"} {
			if got := pageThrough(t, 600, path, cs); got != want {
				t.Errorf("%s: %s is %q, want %q", c.name, path, got, want)
			}
		}
		cs.Close()
	}
	missing := filepath.Join(first, "nope")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--root", first, missing}, exitNotFound, "folio: not_found: " + missing + ": no such directory\n"},
		{[]string{first, filepath.Join(first, "a.md")}, exitInvalidArgument, "folio: invalid_argument: " + filepath.Join(first, "a.md") + " is a file, not a directory"},
		{[]string{"--root", first, "/"}, exitInvalidArgument, "/ would serve the whole machine"},
	} {
		r := folio(t, "", append([]string{"serve"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve %v: exit %d (want %d), stderr %q, want %q", c.args, r.code, c.code, r.stderr, c.want)
		}
	}
}

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Repeat("served over HTTP, 中文 and 🙂\n", 800)
	path := write(t, dir, "docs/a.md", text)
	write(t, dir, "docs/b.md", "short\n")
	write(t, dir, "other/c.md", "other\n")
	write(t, dir, "bin.dat", "\x00\x01")
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	r := folio(t, "", "token", "add", "--tokens", tokens, "--subject", "ci")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	ci := strings.TrimSpace(r.stdout)
	r = folio(t, "", "token", "add", "--tokens", tokens, "--subject", "alice", "--allow", "docs/**")
	alice := strings.TrimSpace(r.stdout)
	if b, _ := os.ReadFile(tokens); strings.Contains(string(b), ci) || !strings.HasPrefix(ci, "folio_") {
		t.Fatalf("token %q, file %s", ci, b)
	}
	p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--tokens", tokens)

	// The command line as a client.
	r = folio(t, "", "read", "--server", p.endpoint, "--token", ci, "--all", "--max-tokens", "500", "docs/a.md")
	var got strings.Builder
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	for _, line := range lines {
		pg, err := pager.Decode([]byte(line))
		if err != nil {
			t.Fatalf("%v: %s %s", err, line, r.stderr)
		}
		got.WriteString(pg.Content)
	}
	if r.code != 0 || got.String() != text || len(lines) < 3 {
		t.Fatalf("read --server --all: exit %d, %d pages, equal %v: %s", r.code, len(lines), got.String() == text, r.stderr)
	}
	r = folio(t, "", "read", "--server", p.endpoint, "--token", ci, "--max-tokens", "500", fileuri.Of(path))
	first := decodePage(t, r.stdout)
	r = folio(t, "", "read", "--server", p.endpoint, "--token", ci, "--max-tokens", "500", "--cursor", *first.NextCursor, fileuri.Of(path))
	if second := decodePage(t, r.stdout); !strings.HasPrefix(text[len(first.Content):], second.Content) {
		t.Fatal("the second page does not follow the first")
	}
	// Text pages through the server, from a line: the block decodes alone
	// and starts at that line.
	r = folio(t, "", "read", "--server", p.endpoint, "--token", ci, "--max-tokens", "500", "--format", "text", "--line", "3", fileuri.Of(path))
	third := strings.SplitAfterN(text, "\n", 3)[2]
	if tp, err := pager.DecodeText([]byte(strings.TrimSuffix(r.stdout, "\n"))); err != nil || !tp.HasMore || !strings.HasPrefix(third, tp.Content) || tp.Content == "" {
		t.Fatalf("read --server --format text --line 3: exit %d, %v: %.200q", r.code, err, r.stdout)
	}
	r = folio(t, "", "read", "--server", p.endpoint, "--token", ci, "--offset", "1", "--limit", "2", "docs/b.md")
	if r.code != 0 || r.stdout != "short\n" || r.stderr != "[folio] lines 1-1 of 1; end of file\n" {
		t.Fatalf("line mode: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = folio(t, "", "read", "--server", p.endpoint, "--token", alice, "--max-tokens", "500", "other/c.md")
	if r.code != exitNotFound || decodeError(t, r.stdout) != "not_found" {
		t.Fatalf("outside the allow list: exit %d %s", r.code, r.stdout)
	}
	r = folio(t, "", "read", "--server", p.endpoint, "--token", "folio_bad", "--max-tokens", "500", "docs/b.md")
	if r.code != exitFailure {
		t.Fatalf("a bad token: exit %d", r.code)
	}

	// Remote verify of the whole root, with no local reading, in both
	// page formats.
	for _, format := range []string{"json", "text"} {
		r = folio(t, "", "verify", "--server", p.endpoint, "--token", ci, "--json", "--format", format, "--max-tokens", "300,2000", ".")
		var rep struct {
			Files, Pages, Skipped int
			Failures              []any
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || rep.Files != 3 || rep.Skipped != 1 || len(rep.Failures) != 0 || rep.Pages < 6 {
			t.Fatalf("verify --server --format %s: exit %d %s %s", format, r.code, r.stdout, r.stderr)
		}
	}
	// A budget too small for any page is a failure, not a pass.
	r = folio(t, "", "verify", "--server", p.endpoint, "--token", ci, "--max-tokens", "30", "docs/b.md")
	if r.code != exitFailure || !strings.Contains(r.stdout, "budget_too_small") {
		t.Fatalf("verify at 30 tokens: exit %d %s", r.code, r.stdout)
	}

	// Narrowing alice's allow list stops her continuation without a restart.
	cs := dial(t, httpTransport(p.endpoint, alice))
	text1, _ := readTool(t, cs, map[string]any{"path": "docs/a.md", "max_tokens": 500})
	pg, _ := pager.Decode([]byte(text1))
	var f struct {
		Tokens []map[string]any `json:"tokens"`
	}
	b, _ := os.ReadFile(tokens)
	json.Unmarshal(b, &f)
	f.Tokens[1]["allow"] = []string{"other/**"}
	b, _ = json.Marshal(f)
	os.WriteFile(tokens+".new", b, 0o600)
	os.Rename(tokens+".new", tokens)
	changed := time.Now()
	for {
		out, isErr := readTool(t, cs, map[string]any{"path": "docs/a.md", "max_tokens": 500, "cursor": *pg.NextCursor})
		if isErr && strings.Contains(out, "not_found") {
			break
		}
		if time.Since(changed) > 10*time.Second {
			t.Fatalf("the continuation still reads after the allow list was narrowed: %s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("narrowed allow list took hold after %v", time.Since(changed).Round(10*time.Millisecond))
}

func decodeError(t *testing.T, s string) string {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		t.Fatalf("%v: %q", err, s)
	}
	return e.Error.Code
}

// TestServeStatelessReplicas: two stateless processes sharing one cursor
// key file honour each other's cursors.
func TestServeStatelessReplicas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Repeat("replica text 🙂\n", 2000)
	write(t, dir, "r.md", text)
	key := filepath.Join(t.TempDir(), "cursor.key")
	env := []string{"FOLIO_CURSOR_KEY_FILE=" + key}
	a := startServe(t, env, "--root", dir, "--http", "127.0.0.1:0", "--stateless")
	b := startServe(t, env, "--root", dir, "--http", "127.0.0.1:0", "--stateless")
	ca, cb := dial(t, httpTransport(a.endpoint, "")), dial(t, httpTransport(b.endpoint, ""))
	if got := pageThrough(t, 400, "r.md", ca, cb); got != text {
		t.Fatal("pages alternated between replicas do not give back the file")
	}
}

func TestServeRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badUpstreams := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(badUpstreams, []byte(`{"mcpServers":{"bad":{"type":"http"}}}`), 0o600)
	// A flag that cannot be used is a usage error, exit 2, before anything
	// starts; what fails after (a file missing or wrong) exits 1.
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--root", dir, "--http", "0.0.0.0:0"}, "loopback", 2},
		{[]string{"--root", dir, "--http", ":0"}, "loopback", 2},
		{[]string{"--root", dir, "--stateless"}, "--stateless needs --http", 2},
		{[]string{"--root", dir, "--tokens", filepath.Join(dir, "t.json")}, "--tokens applies to --http", 2},
		{[]string{"--root", dir, "--http", "0.0.0.0:0", "--oauth", ""}, "--tokens and --oauth need a file", 2},
		{[]string{"--root", dir, "--http", "0.0.0.0:0", "--tokens", ""}, "--tokens and --oauth need a file", 2},
		{[]string{"--root", dir, "--http", "127.0.0.1:0", "--oauth", filepath.Join(dir, "missing.json")}, "--oauth", 1},
		{[]string{"--root", dir, "--http", "127.0.0.1:0", "--tokens", filepath.Join(dir, "missing.json")}, "tokens file", 1},
		{[]string{"--root", filepath.Join(dir, "missing")}, "folio: not_found: --root " + filepath.Join(dir, "missing") + ": no such directory", 3},
		{[]string{"--root", dir, "--handle-store", "postgres://x"}, "unknown store", 2},
		{[]string{"--root", dir, "--handle-store", "mem"}, "unknown store", 2},
		{[]string{"--root", dir, "--handle-store", "redis:/x"}, "unknown store", 2},
		{[]string{"--root", dir, "--handle-store", "bolt:"}, "bolt:PATH", 2},
		{[]string{"--root", dir, "--handle-store-max-entries", "0"}, "at least one entry", 2},
		{[]string{"--root", dir, "--handle-store-max-bytes", "0"}, "must be positive", 2},
		{[]string{"--root", dir, "--upstreams", badUpstreams}, `server \"bad\", url`, 1},
		{[]string{"--root", dir, "--upstreams", badUpstreams, "--upstream-timeout", "0s"}, "--upstream-timeout must be positive", 2},
		{[]string{"--root", dir, "--fold-threshold-bytes", "1000"}, "under the minimum of 1024", 2},
		{[]string{"--root", dir, "--fold-ttl", "0s"}, "TTL", 2},
		{[]string{"--root", dir, "--page-format", "yaml"}, "unknown page format", 2},
		{[]string{"--root", dir, "--line-max-tokens", "0"}, "--line-max-tokens must be between 1 and", 2},
		{[]string{"--root", dir, "--line-max-tokens", "99999999999"}, "--line-max-tokens must be between 1 and", 2},
		{[]string{"--root", dir, "--log-level", "loud"}, "--log-level", 2},
		{[]string{"--root", dir, "--tokenizer", "gpt1"}, "--tokenizer", 2},
		{[]string{"--root", dir, "--max-answer-bytes", "10"}, "--max-answer-bytes at least 1024", 2},
	} {
		r := folio(t, "", append([]string{"serve"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("serve %v: exit %d (want %d), %s", tc.args, r.code, tc.code, r.stderr)
		}
	}
}

// TestInterruptIsNotAnError: SIGINT stops a stdio server with exit 0 and
// nothing logged at ERROR.
func TestInterruptIsNotAnError(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(folioBin, "serve", "--root", t.TempDir())
	cmd.Env = testmain.Env(t)
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	logPath := filepath.Join(t.TempDir(), "stderr")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logged := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	for i := 0; i < 100 && !strings.Contains(logged(), "server session connected"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if out := logged(); err != nil || strings.Contains(out, "level=ERROR") || !strings.Contains(out, "server stopped") {
		t.Fatalf("exit %v:\n%s", err, out)
	}
}

// TestToolsListOnTheWire counts the tokens of the tools/list answer as the
// binary writes it over stdio (the result's bytes, as a client receives
// them) and holds the figure README.md and docs/tools.md give (every one
// the docs give) to it.
func TestToolsListOnTheWire(t *testing.T) {
	t.Parallel()
	result := wireToolsList(t, "--root", t.TempDir(), "--log-level", "error")
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n := c.Count(string(result))
	t.Logf("tools/list on the wire: %d bytes, %d tokens (o200k_base)", len(result), n)
	figure := regexp.MustCompile("`tools/list` answer is ([0-9,]+) tokens")
	found := map[string]bool{}
	for _, d := range docFiles(t) {
		for _, m := range figure.FindAllStringSubmatch(d.text, -1) {
			found[d.name] = true
			want, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			if n != want {
				t.Errorf("the tools/list answer is %d tokens on the wire; %s says %d", n, d.name, want)
			}
		}
	}
	for _, name := range []string{"README.md", "docs/tools.md"} {
		if !found[name] {
			t.Errorf("%s gives no tools/list figure", name)
		}
	}
}

// TestServeRootMistakes: a root nobody meant is refused (exit 2) with
// what to give instead: "~" that no shell expanded, a relative root
// where a desktop client starts servers (/), and / itself; the same
// relative root from a project directory serves.
func TestServeRootMistakes(t *testing.T) {
	t.Parallel()
	run := func(dir string, root string) result {
		cmd := exec.Command(folioBin, "serve", "--root", root)
		cmd.Dir = dir
		cmd.Env = testmain.Env(t, "HOME=/home/alice")
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return result{stderr: errb.String(), code: code}
	}
	project := t.TempDir()
	for _, tc := range []struct{ dir, root, want string }{
		{project, "~/notes", "give the absolute path, /home/alice/notes"},
		{"/", ".", "the working directory is / (desktop clients start servers there)"},
		{"/", "docs", "the working directory is /"},
		{project, "/", "would serve the whole machine"},
		{"/tmp", "..", "would serve the whole machine"},
	} {
		if r := run(tc.dir, tc.root); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--root %s from %s: exit %d, %s", tc.root, tc.dir, r.code, r.stderr)
		}
	}
	// From the project, "." is the project: it serves (stdin is empty, so
	// it ends at once).
	if r := run(project, "."); r.code != 0 {
		t.Errorf("--root . from a project: exit %d, %s", r.code, r.stderr)
	}
}

// TestServeRootNotThere: a --root that is not there, or is a file, is
// refused as the other root mistakes are, before anything starts: one
// line "folio: CODE: …" naming the root, no log line, and the exit code
// serve --help lists (3 not found, 2 invalid argument).
func TestServeRootNotThere(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir, "a.md", "text\n")
	for _, tc := range []struct {
		root, want string
		code       int
	}{
		{filepath.Join(dir, "nope"), "folio: not_found: --root " + filepath.Join(dir, "nope") + ": no such directory\n", exitNotFound},
		{file, "folio: invalid_argument: --root " + file + " is a file, not a directory: give the directory to serve (" + dir + " holds it)\n", exitInvalidArgument},
	} {
		for _, transport := range [][]string{nil, {"--http", "127.0.0.1:0"}} {
			r := folio(t, "", append([]string{"serve", "--root", tc.root}, transport...)...)
			if r.code != tc.code || r.stderr != tc.want {
				t.Errorf("serve --root %s %v: exit %d (want %d), stderr %q, want %q", tc.root, transport, r.code, tc.code, r.stderr, tc.want)
			}
		}
	}
	help := folio(t, "", "serve", "--help")
	if !strings.Contains(help.stdout, "3 a --root that is not there") {
		t.Errorf("serve --help does not list the exit code:\n%s", help.stdout)
	}
}

// TestStdioStaysUp: over stdio, a line that is not JSON, or not JSON-RPC,
// is answered with a JSON-RPC error and the session goes on (it used to
// end it, and folio with it); a batch is answered as one, in order, in
// the protocol versions that have batches, and refused in those that do
// not, the session going on.
func TestStdioStaysUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version string
		batches bool
	}{{"2025-03-26", true}, {"2025-11-25", false}} {
		t.Run(tc.version, func(t *testing.T) {
			in, lines := serveWire(t, "--root", t.TempDir(), "--log-level", "error")
			answer := func(line string) string {
				t.Helper()
				fmt.Fprintln(in, line)
				if !lines.Scan() {
					t.Fatalf("no answer to %s: %v", line, lines.Err())
				}
				return lines.Text()
			}
			for line, want := range map[string]string{
				"hello": `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"a line that is not JSON"}}`,
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"a line that is not JSON"}}`,
				`{"id":1,"method":"initialize"}`:                          `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid JSON-RPC message: no \"jsonrpc\":\"2.0\""}}`,
			} {
				if got := answer(line); got != want {
					t.Errorf("%s: answered %s, want %s", line, got, want)
				}
			}
			if got := answer(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.version + `","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`); !strings.Contains(got, `"protocolVersion":"`+tc.version+`"`) {
				t.Fatalf("initialize: %s", got)
			}
			fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			got := answer(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":"three","method":"tools/list"}]`)
			var batch []struct {
				ID     any             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct{ Code int }
			}
			switch err := json.Unmarshal([]byte(got), &batch); {
			case tc.batches && (err != nil || len(batch) != 2 || batch[0].ID != 2.0 || batch[1].ID != "three" || batch[1].Result == nil):
				t.Errorf("a batch: %.300s", got)
			case !tc.batches && !strings.Contains(got, `"code":-32600`):
				t.Errorf("a batch in %s: %.300s", tc.version, got)
			}
			if got := answer(`{"jsonrpc":"2.0","id":4,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":4,"result":{}}` {
				t.Errorf("ping after all that: %s", got)
			}
		})
	}
}
