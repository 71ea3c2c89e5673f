package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/otelcoltest"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/tokens"
)

// folioBin is the binary under test, built once (by TestMain).
var folioBin string

// TestMain builds folio, and starts building the upstreams' and the
// collector's programs while the first tests run; testmain runs the
// tests in a temporary directory of their own and removes it after.
func TestMain(m *testing.M) {
	testmain.Main(m, func() error {
		upstreamtest.Prebuild()
		// grpcnotrace, as the release build (.goreleaser.yaml): grpc
		// then leaves out golang.org/x/net/trace (TestTemplatesLeftOut).
		flags := []string{"-tags=grpcnotrace"}
		if raceEnabled {
			flags = append(flags, "-race")
		}
		bin, err := testmain.Build("folio", ".", nil, flags...)
		folioBin = bin
		otelcoltest.Prebuild()
		return err
	})
}

// folioCmd is folio with args, run in the test's own home (testmain.Env).
func folioCmd(t testing.TB, args ...string) *exec.Cmd {
	cmd := exec.Command(folioBin, args...)
	cmd.Env = testmain.Env(t)
	return cmd
}

type result struct {
	stdout, stderr string
	code           int
}

// folio runs the binary with the test's own state directory.
func folio(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, folioBin, args...)
	cmd.Env = testmain.Env(t)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("folio %v did not finish", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// stateDir is the XDG_STATE_HOME of the test's runs of folio, in the
// test's own home (testmain.Env).
func stateDir(t testing.TB) string {
	return testmain.StateHome(t)
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func decodePage(t *testing.T, s string) pager.Decoded {
	t.Helper()
	if !strings.HasSuffix(s, "}\n") || strings.Count(s, "\n") != 1 {
		t.Fatalf("want one JSON line, got %q", s)
	}
	p, err := pager.Decode([]byte(s[:len(s)-1]))
	if err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return p
}

func TestReadPagesReconstruct(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"seed.txt":     strings.Repeat("中文🙂 \"quoted\" \\ path ", 6000),
		"mixed.md":     "\ufeff# Title\r\n\r\nline\rlone CR\n\x01\x1f control \u2028 sep\t\"q\" \\ back\n" + strings.Repeat("emoji 🙂👍🏽 CJK 中文 ", 300),
		"empty.txt":    "",
		"crlf-end.txt": strings.Repeat("x\r\n", 700),
	}
	for name, text := range files {
		path := write(t, dir, name, text)
		for _, tok := range []string{tokencount.Estimate, tokencount.O200kBase} {
			var got strings.Builder
			args := []string{"read", "--tokenizer", tok, "--max-tokens", "700", path}
			pages := 0
			for {
				r := folio(t, "", args...)
				if r.code != 0 {
					t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
				}
				if r.stderr != "" {
					t.Fatalf("stderr on success: %q", r.stderr)
				}
				c, err := tokencount.New(tok)
				if err != nil {
					t.Fatal(err)
				}
				if n := c.Count(strings.TrimSuffix(r.stdout, "\n")); n > 700 {
					t.Fatalf("%s: page of %d tokens", name, n)
				}
				p := decodePage(t, r.stdout)
				got.WriteString(p.Content)
				pages++
				if !p.HasMore {
					break
				}
				args = []string{"read", "--tokenizer", tok, "--max-tokens", "700", "--cursor", *p.NextCursor, path}
			}
			if got.String() != text {
				t.Fatalf("%s with %s: %d pages do not reconstruct the file", name, tok, pages)
			}
		}
	}
}

// TestReadTextPages pages a file with --format text, following the cursor
// in each footer: every page fits, and the contents give back the file.
func TestReadTextPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := "\ufeffno final newline\r\n" + strings.Repeat("中文🙂 \"quoted\" \\ path\n", 300) + "end"
	path := write(t, dir, "f.md", text)
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	args := []string{"read", "--format", "text", "--max-tokens", "400", path}
	for pages := 1; ; pages++ {
		r := folio(t, "", args...)
		block := strings.TrimSuffix(r.stdout, "\n")
		p, err := pager.DecodeText([]byte(block))
		if r.code != 0 || err != nil || c.Count(block) > 400 {
			t.Fatalf("page %d: exit %d, %v, %d tokens: %s", pages, r.code, err, c.Count(block), r.stderr)
		}
		got.WriteString(p.Content)
		if !p.HasMore {
			break
		}
		args = []string{"read", "--format", "text", "--max-tokens", "400", "--cursor", *p.NextCursor, path}
	}
	if got.String() != text {
		t.Fatal("the text pages do not give back the file")
	}
	// --line starts the first page at a line; --all goes on from there.
	r := folio(t, "", "read", "--format", "text", "--max-tokens", "400", "--line", "301", "--all", path)
	if !strings.HasPrefix(r.stdout, "中文🙂 \"quoted\" \\ path\nend\n[folio] lines 301-302 end version=") || strings.Count(r.stdout, "[folio] ") != 1 {
		t.Fatalf("--line 301: exit %d %q", r.code, r.stdout)
	}
}

func TestReadAllMatchesCursors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := write(t, dir, "f.md", strings.Repeat("Some *Markdown* text, with `code` and more.\n", 400))
	all := folio(t, "", "read", "--all", "--max-tokens", "400", path)
	if all.code != 0 {
		t.Fatalf("exit %d: %s", all.code, all.stderr)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(all.stdout, "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d pages", len(lines))
	}
	// A new read starts a new chain of cursors, with its own issue time,
	// so only its first page's start is fixed.
	if a, b := decodePage(t, folio(t, "", "read", "--max-tokens", "400", path).stdout), decodePage(t, lines[0]); a.Version != b.Version || a.Content[:100] != b.Content[:100] {
		t.Fatalf("first pages differ: %+v %+v", a, b)
	}
	// Following --all's cursors one call at a time gives its pages, byte
	// for byte.
	for i := 1; i < len(lines); i++ {
		prev := decodePage(t, lines[i-1])
		r := folio(t, "", "read", "--max-tokens", "400", "--cursor", *prev.NextCursor, path)
		if r.stdout != strings.TrimSuffix(lines[i], "\n")+"\n" {
			t.Fatalf("page %d differs:\n%s\n%s", i+1, r.stdout, lines[i])
		}
	}
	// A repeated cursor gives the same page.
	first := decodePage(t, lines[0])
	a := folio(t, "", "read", "--max-tokens", "400", "--cursor", *first.NextCursor, path)
	b := folio(t, "", "read", "--max-tokens", "400", "--cursor", *first.NextCursor, path)
	if a.stdout != b.stdout || a.code != 0 {
		t.Fatalf("repeated cursor: %q vs %q", a.stdout, b.stdout)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := write(t, dir, "f.txt", strings.Repeat("abc ", 2000))
	bin := write(t, dir, "bin.dat", "a\x00b")
	big := write(t, dir, "big.txt", strings.Repeat("x", 5000))
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	first := decodePage(t, folio(t, "", "read", "--max-tokens", "200", path).stdout)
	cur := *first.NextCursor
	other := write(t, dir, "g.txt", strings.Repeat("abc ", 2000))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		ecode string // the JSON error code on stdout, in page mode
	}{
		{"missing", []string{"read", "--max-tokens", "100", filepath.Join(dir, "nope")}, 3, "not_found"},
		{"missing, line mode", []string{"read", filepath.Join(dir, "nope")}, 3, ""},
		{"binary", []string{"read", "--max-tokens", "100", bin}, 4, "not_text"},
		{"fifo", []string{"read", "--max-tokens", "100", fifo}, 4, "not_text"},
		{"directory", []string{"read", "--max-tokens", "100", dir}, 2, "invalid_argument"},
		{"too large", []string{"read", "--max-file-bytes", "1000", "--max-tokens", "100", big}, 4, "too_large"},
		{"budget", []string{"read", "--max-tokens", "10", path}, 7, "budget_too_small"},
		{"zero budget", []string{"read", "--max-tokens", "0", path}, 2, "invalid_argument"},
		{"cursor of another file", []string{"read", "--max-tokens", "200", "--cursor", cur, other}, 5, "invalid_cursor"},
		{"changed cursor", []string{"read", "--max-tokens", "200", "--cursor", cur[:20] + flip(cur[20]) + cur[21:], path}, 5, "invalid_cursor"},
		{"cursor without budget", []string{"read", "--cursor", cur, path}, 2, "invalid_argument"},
		{"page mode with offset", []string{"read", "--max-tokens", "200", "--offset", "1", path}, 2, "invalid_argument"},
		{"cursor with limit", []string{"read", "--max-tokens", "200", "--cursor", cur, "--limit", "1", path}, 2, "invalid_argument"},
		{"all without budget", []string{"read", "--all", path}, 2, ""},
		{"unknown tokenizer", []string{"read", "--tokenizer", "gpt9", "--max-tokens", "100", path}, 2, "invalid_argument"},
		{"no path", []string{"read", "--max-tokens", "100"}, 2, ""},
		{"unknown flag", []string{"read", "--bogus", path}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := folio(t, "", tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if r.stderr == "" {
				t.Fatal("no message on stderr")
			}
			if tc.ecode == "" {
				return
			}
			if strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") != 0 {
				t.Fatalf("stderr is not one line: %q", r.stderr)
			}
			var body errorBody
			if err := json.Unmarshal([]byte(r.stdout), &body); err != nil || body.Error.Code != tc.ecode || body.Error.Message == "" {
				t.Fatalf("stdout %q, want error %s", r.stdout, tc.ecode)
			}
		})
	}
	// A file rewritten with the same size and mtime between two pages.
	info, _ := os.Stat(path)
	write(t, dir, "f.txt", strings.Repeat("abd ", 2000))
	os.Chtimes(path, info.ModTime(), info.ModTime())
	r := folio(t, "", "read", "--max-tokens", "200", "--cursor", cur, path)
	if r.code != 6 || !strings.Contains(r.stdout, `"version_conflict"`) || strings.Contains(r.stdout, "abd") {
		t.Fatalf("changed file: exit %d, %s", r.code, r.stdout)
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestReadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := write(t, dir, "f.txt", "A-first\r\nA-middle\nA-last\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "A-first\r\nA-middle\nA-last\n"},
		{[]string{"--offset", "1", "--limit", "1"}, "A-first\r\n"},
		{[]string{"--offset", "2"}, "A-middle\nA-last\n"},
		{[]string{"--offset", "-1"}, "A-last\n"},
		{[]string{"--offset", "-2", "--limit", "1"}, "A-middle\n"},
	} {
		r := folio(t, "", append(append([]string{"read"}, tc.args...), path)...)
		if r.code != 0 || r.stdout != tc.want {
			t.Errorf("%v: exit %d, %q", tc.args, r.code, r.stdout)
		}
	}
	for _, args := range [][]string{{"--offset", "4"}, {"--limit", "0"}, {"--line", "2"}, {"--max-tokens", "100", "--line", "4"}} {
		r := folio(t, "", append(append([]string{"read"}, args...), path)...)
		if r.code != exitInvalidArgument {
			t.Errorf("%v: exit %d, %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestCursorKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := write(t, dir, "f.txt", strings.Repeat("abc ", 2000))
	keyFile := filepath.Join(t.TempDir(), "keys", "cursor.key")
	r := folio(t, "", "read", "--cursor-key-file", keyFile, "--max-tokens", "200", path)
	info, err := os.Stat(keyFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", err, info)
	}
	cur := *decodePage(t, r.stdout).NextCursor
	// Another process with the same key file honours the cursor; the
	// environment variable names the file too.
	cmd := exec.Command(folioBin, "read", "--max-tokens", "200", "--cursor", cur, path)
	cmd.Env = testmain.Env(t, "FOLIO_CURSOR_KEY_FILE="+keyFile)
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), `"content"`) {
		t.Fatalf("same key file: %v %s", err, out)
	}
	// Another key does not.
	if r := folio(t, "", "read", "--max-tokens", "200", "--cursor", cur, path); r.code != 5 {
		t.Fatalf("another key: exit %d", r.code)
	}
	// The default key file is under XDG_STATE_HOME.
	if _, err := os.Stat(filepath.Join(stateDir(t), "folio", "cursor.key")); err != nil {
		t.Fatal(err)
	}
	// An expired cursor.
	if r := folio(t, "", "read", "--cursor-key-file", keyFile, "--cursor-ttl", "1ns", "--max-tokens", "200", "--cursor", cur, path); r.code != 5 || !strings.Contains(r.stdout, "cursor_expired") {
		t.Fatalf("expired: exit %d %s", r.code, r.stdout)
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := write(t, dir, "empty", "")
	bin := write(t, dir, "bin", "\x00\xff")
	r := folio(t, "", "hash", empty, bin)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	// BLAKE3 of the empty input, from the BLAKE3 test vectors.
	if lines[0] != "af1349b9f5f9a1a6a0404dea36dcc949  "+empty {
		t.Fatalf("hash of the empty file: %q", lines[0])
	}
	if b3sum, err := exec.LookPath("b3sum"); err == nil {
		out, err := exec.Command(b3sum, bin).Output()
		if err != nil || !strings.HasPrefix(string(out), strings.Fields(lines[1])[0]) {
			t.Fatalf("b3sum says %q, folio %q", out, lines[1])
		}
	}
	// The page carries the same version.
	p := decodePage(t, folio(t, "", "read", "--max-tokens", "100", empty).stdout)
	if p.Version != "af1349b9f5f9a1a6a0404dea36dcc949" || p.Content != "" || p.HasMore {
		t.Fatalf("empty file page %+v", p)
	}
	if r := folio(t, "", "hash", filepath.Join(dir, "nope")); r.code != 3 {
		t.Fatalf("missing: exit %d", r.code)
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := write(t, dir, "a.txt", "hello world")
	b := write(t, dir, "b.txt", strings.Repeat("中文", 10))
	r := folio(t, "", "count", "--tokenizer", "estimate", a, b)
	want := "3\t" + a + "\n30\t" + b + "\n33\ttotal\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, %q, want %q", r.code, r.stdout, want)
	}
	r = folio(t, "hello world", "count", "-")
	if r.code != 0 || r.stdout != "2\t-\n" {
		t.Fatalf("stdin: exit %d, %q", r.code, r.stdout)
	}
	for _, bin := range []string{"\xff", "a\x00b"} {
		if r := folio(t, bin, "count", "-"); r.code != 4 {
			t.Fatalf("binary stdin %q: exit %d", bin, r.code)
		}
	}
	// DEL is a token of its own: the counts are tiktoken's (1.0.22,
	// encode_ordinary).
	for _, tc := range []struct{ text, want string }{
		{"a\x7fb", "3"},
		{strings.Repeat("\x7f", 500), "500"},
		{strings.Repeat("line\x7f\x7f one\n", 100), "500"},
	} {
		for _, tok := range []string{"o200k_base", "cl100k_base"} {
			if r := folio(t, tc.text, "count", "--tokenizer", tok, "-"); r.code != 0 || r.stdout != tc.want+"\t-\n" {
				t.Errorf("%s: %q: exit %d, %q, want %s", tok, tc.text[:min(len(tc.text), 12)], r.code, r.stdout, tc.want)
			}
		}
	}
}

// TestCountDirectory: folio count DIR counts every text file under DIR,
// a line each (named by DIR as given and the path under it) and the total,
// as verify walks it: the default deny list and --deny, the ignore files
// (--no-ignore), text detection and --max-file-bytes; files and standard
// input beside it are counted as before.
func TestCountDirectory(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"docs/a.md":        "# A\n\nhello world\n",
		"docs/sub/b.txt":   strings.Repeat("中文 words ", 40),
		"docs/.gitignore":  "ignored.md\n",
		"docs/ignored.md":  "ignored words\n",
		"docs/big.txt":     strings.Repeat("big ", 400),
		"docs/.env":        "SECRET=1\n",
		"docs/.git/HEAD":   "ref: refs/heads/main\n",
		"docs/bin.dat":     "\x00\x01\x02",
		"docs/keys/id.pem": "-----BEGIN-----\n",
		"notes.md":         "notes, outside\n",
	}
	for name, text := range texts {
		write(t, dir, name, text)
	}
	est, err := tokencount.New("estimate")
	if err != nil {
		t.Fatal(err)
	}
	lines := func(names ...string) string {
		var b strings.Builder
		total := 0
		for _, n := range names {
			name, file, _ := strings.Cut(n, "=")
			if file == "" {
				file = name
			}
			c := est.Count(texts[file])
			total += c
			fmt.Fprintf(&b, "%d\t%s\n", c, name)
		}
		fmt.Fprintf(&b, "%d\ttotal\n", total)
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		want   string
		stderr string
	}{
		{"a directory", "", []string{"docs"}, lines("docs/.gitignore", "docs/a.md", "docs/big.txt", "docs/sub/b.txt"), ""},
		{"flags after it", "", []string{"docs/", "--no-ignore"}, lines("docs/.gitignore", "docs/a.md", "docs/big.txt", "docs/ignored.md", "docs/sub/b.txt"), ""},
		{"--deny", "", []string{"--deny", "sub/**", "docs"}, lines("docs/.gitignore", "docs/a.md", "docs/big.txt"), ""},
		{"over --max-file-bytes", "", []string{"--max-file-bytes", "1000", "docs"}, lines("docs/.gitignore", "docs/a.md", "docs/sub/b.txt"), "folio: docs/big.txt: left out: "},
		{"the directory itself", "", []string{"."}, lines(".gitignore=docs/.gitignore", "a.md=docs/a.md", "big.txt=docs/big.txt", "sub/b.txt=docs/sub/b.txt"), ""},
		{"a file and a directory", "", []string{"notes.md", "docs/sub"}, lines("notes.md", "docs/sub/b.txt"), ""},
		{"standard input and a directory", "notes, outside\n", []string{"-", "docs/sub"}, lines("-=notes.md", "docs/sub/b.txt"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := dir
			if tc.name == "the directory itself" {
				wd = filepath.Join(dir, "docs")
			}
			r := folioIn(t, wd, tc.stdin, append([]string{"count", "--tokenizer", "estimate"}, tc.args...)...)
			if r.code != 0 || r.stdout != tc.want || !strings.HasPrefix(r.stderr, tc.stderr) || (tc.stderr == "") != (r.stderr == "") {
				t.Fatalf("exit %d\n%s(want\n%s) stderr %q", r.code, r.stdout, tc.want, r.stderr)
			}
		})
	}
	// A directory that is not there is one, as a file is.
	if r := folioIn(t, dir, "", "count", "nowhere/"); r.code != exitNotFound {
		t.Errorf("a missing directory: exit %d, %q", r.code, r.stderr)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "docs/a.md", strings.Repeat("# Doc\n\nText with words.\r\n", 300))
	write(t, dir, "docs/b.txt", strings.Repeat("中文🙂 \"quoted\" \\ path ", 500))
	write(t, dir, "docs/empty.txt", "")
	write(t, dir, "bin.dat", "\x00\x01")
	write(t, dir, ".env", "SECRET=1")
	os.Symlink("/etc/passwd", filepath.Join(dir, "escape"))
	for _, format := range []string{"json", "text"} {
		r := folio(t, "", "verify", "--max-tokens", "300,1000", "--deny", "**/.env", "--json", "--format", format, dir)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s %s", format, r.code, r.stdout, r.stderr)
		}
		var rep struct {
			Files, Pages, Skipped int
			SkippedBy             map[string]int `json:"skipped_by"`
			Failures              []any
			Largest               int     `json:"largest_page_tokens"`
			Fill                  float64 `json:"mean_fill"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Files != 3 || rep.Skipped != 3 || rep.SkippedBy["not_text"] != 1 || rep.SkippedBy["not_found"] != 2 ||
			len(rep.Failures) != 0 || rep.Largest > 1000 || rep.Fill < 0.9 || rep.Pages < 10 {
			t.Fatalf("%s: report %+v", format, rep)
		}
		if r.stderr != "" {
			t.Fatalf("stderr is not a terminal, yet: %q", r.stderr)
		}
	}
	// A budget that cannot hold a page is a failure.
	if r := folio(t, "", "verify", "--max-tokens", "20", dir); r.code != 1 || !strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("tiny budget: exit %d %s", r.code, r.stdout)
	}
	if r := folio(t, "", "verify", "--max-tokens", "x", dir); r.code != 2 {
		t.Fatalf("bad budget list: exit %d", r.code)
	}
}

// The seed's acceptance check on real data: the Go distribution's
// src/encoding at three budgets.
func TestVerifyGoEncoding(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("pages a few MB three times")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src", "encoding")
	for _, format := range []string{"json", "text"} {
		r := folio(t, "", "verify", "--max-tokens", "500,2000,8000", "--format", format, src)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stdout)
		}
		sc := bufio.NewScanner(strings.NewReader(r.stdout))
		sc.Scan()
		if !strings.Contains(sc.Text(), "failures 0") || strings.HasPrefix(sc.Text(), "files 0") {
			t.Fatalf("%s: summary %q", format, sc.Text())
		}
		t.Log(format, sc.Text())
	}
}

// TestVersion: a binary built as the release build stamps it prints the
// release, its commit and its date, in "folio version" and "folio
// --version" alike; one built without the stamp prints what Go's build
// info knows, "(devel)" for a build from a work tree.
func TestVersion(t *testing.T) {
	t.Parallel()
	stamped, err := testmain.Build("folio-stamped", ".", nil,
		"-ldflags=-X main.version=v9.9.9-test -X main.commit=0123abc -X main.date=2026-01-02T03:04:05Z")
	if err != nil {
		t.Fatal(err)
	}
	const release = "v9.9.9-test (commit 0123abc, built 2026-01-02T03:04:05Z)"
	platform := fmt.Sprintf(" %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, tc := range []struct {
		bin, arg, want string
	}{
		{stamped, "version", "folio " + release + platform},
		{stamped, "--version", "folio version " + release + "\n"},
		{folioBin, "version", "folio (devel)"},
		{folioBin, "--version", "folio version (devel)"},
	} {
		cmd := exec.Command(tc.bin, tc.arg)
		cmd.Env = testmain.Env(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v", filepath.Base(tc.bin), tc.arg, err)
		}
		if !strings.HasPrefix(string(out), tc.want) || (tc.bin == stamped && string(out) != tc.want) {
			t.Errorf("%s %s: %q, want %q", filepath.Base(tc.bin), tc.arg, out, tc.want)
		}
	}
}

// TestVersionInitIsLight: what folio's own packages build at start-up
// (Go's inittrace), which every command pays for, "folio version"
// included, stays small: tables and regular expressions only some
// commands need are built at their first use.
func TestVersionInitIsLight(t *testing.T) {
	t.Parallel()
	const perPackage, total = 32 << 10, 48 << 10
	cmd := exec.Command(folioBin, "version")
	cmd.Env = append(testmain.Env(t), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	sum, seen := 0, 0
	for line := range strings.Lines(stderr.String()) {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/folio-mcp/folio/") {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		seen++
		sum += b
		if b > perPackage {
			t.Errorf("%s allocates %d bytes at start-up, over %d", f[1], b, perPackage)
		}
	}
	if seen == 0 {
		t.Fatalf("no init line of folio's packages in %q", stderr.String())
	}
	if sum > total {
		t.Errorf("folio's packages allocate %d bytes at start-up, over %d", sum, total)
	}
}

// TestTokenAddRace: token add and revoke run at once from many processes
// lose nothing: every printed token is in the file, and no revocation is
// undone. A temporary file left by a killed run is cleaned up.
func TestTokenAddRace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.json")
	if r := folio(t, "", "token", "add", "--tokens", path, "--subject", "first"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	stale := filepath.Join(filepath.Dir(path), ".tokens.json.tmp-123")
	os.WriteFile(stale, []byte(`{"tok`), 0o600)
	const runs = 30
	printed := make([]string, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			r := folio(t, "", "token", "add", "--tokens", path, "--subject", fmt.Sprintf("s%d", i))
			if r.code != 0 {
				t.Error(r.stderr)
			}
			printed[i] = strings.TrimSpace(r.stdout)
		})
	}
	wg.Wait()
	b, _ := os.ReadFile(path)
	var f struct {
		Tokens []struct{ Subject, Token_SHA256 string }
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.Tokens) != runs+1 {
		t.Fatalf("%d entries after %d concurrent adds (%v)", len(f.Tokens), runs, err)
	}
	for _, tok := range printed {
		if !strings.Contains(string(b), tokens.Hash(tok)) {
			t.Errorf("printed token %.12s… is not in the file", tok)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file is still there")
	}

	// A revocation racing an add is never undone.
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for i := range rounds {
		if r := folio(t, "", "token", "add", "--tokens", path, "--subject", "victim"); r.code != 0 {
			t.Fatal(r.stderr)
		}
		wg.Go(func() { folio(t, "", "token", "add", "--tokens", path, "--subject", fmt.Sprintf("r%d", i)) })
		if r := folio(t, "", "token", "revoke", "--tokens", path, "--subject", "victim"); r.code != 0 {
			t.Fatal(r.stderr)
		}
		wg.Wait()
		if b, _ := os.ReadFile(path); strings.Contains(string(b), `"victim"`) {
			t.Fatalf("round %d: the revocation was undone", i)
		}
	}
}

// TestKeyFileOpenToOthers: a cursor key file that others may read is
// refused, with the fix in the message.
func TestKeyFileOpenToOthers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.md")
	os.WriteFile(path, []byte("text\n"), 0o644)
	keyFile := filepath.Join(dir, "cursor.key")
	os.WriteFile(keyFile, []byte(strings.Repeat("ab", 32)+"\n"), 0o644)
	r := folio(t, "", "read", "--cursor-key-file", keyFile, "--max-tokens", "200", path)
	if r.code == 0 || !strings.Contains(r.stderr, "chmod 600") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	os.Chmod(keyFile, 0o600)
	if r := folio(t, "", "read", "--cursor-key-file", keyFile, "--max-tokens", "200", path); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// TestCommandLineEdges: --version, serve without --root, hash of a missing
// file, token add into a new directory, token list, and a refused token
// over --server, each as a user meets them.
func TestCommandLineEdges(t *testing.T) {
	t.Parallel()
	if r := folio(t, "", "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "folio version ") {
		t.Errorf("--version: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if r := folio(t, "", "serve"); r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "--root") || strings.Contains(r.stderr, "USAGE") {
		t.Errorf("serve without --root: exit %d, %q", r.code, r.stderr)
	}
	missing := filepath.Join(t.TempDir(), "missing.md")
	if r := folio(t, "", "hash", missing); r.code == 0 || !strings.Contains(r.stderr, missing+": no such file") {
		t.Errorf("hash of a missing file: %q", r.stderr)
	}
	path := filepath.Join(t.TempDir(), "new", "dir", "tokens.json")
	if r := folio(t, "", "token", "add", "--tokens", path, "--subject", "alice", "--allow", "docs/**", "--tool", "read"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the tokens file's directory: %v %v", info.Mode(), err)
	}
	if r := folio(t, "", "token", "add", "--tokens", path, "--subject", "bad name"); r.code == 0 || !strings.Contains(r.stderr, "see folio token add --help") {
		t.Errorf("a bad subject: %q", r.stderr)
	}
	r := folio(t, "", "token", "list", "--tokens", path, "--json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != `[{"subject":"alice","allow":["docs/**"],"tools":["read"]}]` {
		t.Errorf("token list: %q %q", r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(path); strings.Contains(r.stdout, "token_sha256") || !strings.Contains(string(b), "token_sha256") {
		t.Error("token list shows the hashes")
	}

	dir := t.TempDir()
	write(t, dir, "a.md", "text\n")
	srv := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--tokens", path)
	res, err := http.Post(srv.endpoint, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("401 without a challenge: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	r = folio(t, "", "read", "--server", srv.endpoint, "--token", "folio_wrong", "--max-tokens", "100", "a.md")
	if r.code == 0 || !strings.Contains(r.stderr, "unauthorized") || !strings.Contains(r.stderr, "unknown or revoked token") {
		t.Errorf("a refused token: exit %d, %q", r.code, r.stderr)
	}
}
