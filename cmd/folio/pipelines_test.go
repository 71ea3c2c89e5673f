package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
)

// o200k is the reference table's tokenizer path (pager/bpe, held to
// tiktoken by testdata/tokref): what every chunk and page is recounted
// with.
func o200k(t *testing.T) tokencount.Tokenizer {
	t.Helper()
	c, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c.(tokencount.Tokenizer)
}

// pipelineText is prose, code and CJK with CRLF line ends and emoji: what
// a pipeline may send.
func pipelineText(t *testing.T) string {
	t.Helper()
	return string(corpus.For(t, "markdown", 40<<10)) + "\r\nA line with CRLF.\r\nEmoji 😀👍🏽 and quotes \"\\\".\n" +
		string(corpus.For(t, "go", 30<<10)) + string(corpus.For(t, "cjk", 20<<10))
}

// TestStdin: standard input is a file to read, hash, verify and count,
// through a pipe to the binary: text pages as a file does (named - or
// --name, its version b3sum's), binary is not text, empty is one empty
// page, and past the cap is too large.
func TestStdin(t *testing.T) {
	t.Parallel()
	text := pipelineText(t)
	tk := o200k(t)
	r := folio(t, text, "read", "--max-tokens", "300", "--all", "-")
	if r.code != 0 {
		t.Fatalf("read -: exit %d: %s", r.code, r.stderr)
	}
	var got strings.Builder
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	hash := folio(t, text, "hash", "-")
	version := strings.Fields(hash.stdout)[0]
	for i, line := range lines {
		p, err := pager.Decode([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if n := tk.Count(line); n > 300 || p.URI != "-" || p.Version != version || p.HasMore != (i < len(lines)-1) {
			t.Fatalf("page %d: %d tokens, uri %q, version %s (hash - says %s), has_more %v", i+1, n, p.URI, p.Version, version, p.HasMore)
		}
		got.WriteString(p.Content)
	}
	if got.String() != text {
		t.Fatal("the pages of standard input are not its bytes")
	}
	if r := folio(t, text, "read", "--max-tokens", "300", "--name", "notes.md", "-"); r.code != 0 || !strings.HasPrefix(r.stdout, `{"uri":"notes.md",`) || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("read --name notes.md -: exit %d, %.80s", r.code, r.stdout)
	}
	if r := folio(t, text, "read", "--offset", "-3", "-"); r.code != 0 || !strings.HasSuffix(text, r.stdout) || strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("read --offset -3 -: exit %d: %q", r.code, r.stdout)
	}
	if r := folio(t, text, "read", "-"); r.code != 0 || r.stdout != text {
		t.Errorf("read -: exit %d, %d bytes of %d", r.code, len(r.stdout), len(text))
	}
	for _, args := range [][]string{{"read", "--max-tokens", "300", "--cursor", "x", "-"}, {"read", "--name", "x", "README.md"}} {
		if r := folio(t, text, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, r.code, r.stderr)
		}
	}
	if r := folio(t, text, "verify", "--max-tokens", "100,2000", "--name", "notes.md", "-"); r.code != 0 || !strings.Contains(r.stdout, "files 1,") {
		t.Errorf("verify -: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if r := folio(t, text, "count", "-"); r.code != 0 || r.stdout != strconv.Itoa(tk.Count(text))+"\t-\n" {
		t.Errorf("count -: %q", r.stdout)
	}

	// Binary: not text, but it has a hash.
	binary := "\x00\xffPNG"
	for _, args := range [][]string{{"read", "--max-tokens", "100", "--all", "-"}, {"read", "--format", "raw", "--max-tokens", "100", "--all", "-0", "-"}, {"verify", "-"}, {"count", "-"}} {
		if r := folio(t, binary, args...); r.code != 4 || !strings.Contains(r.stderr, "not") {
			t.Errorf("%v of binary input: exit %d: %s", args, r.code, r.stderr)
		}
	}
	if r := folio(t, binary, "hash", "-"); r.code != 0 || len(strings.Fields(r.stdout)[0]) != 32 {
		t.Errorf("hash - of binary input: exit %d: %s", r.code, r.stdout)
	}
	if b3sum, err := exec.LookPath("b3sum"); err == nil {
		cmd := exec.Command(b3sum)
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.Output()
		if err != nil || !strings.HasPrefix(string(out), version) {
			t.Errorf("b3sum says %q, hash - %s", out, version)
		}
	}

	// Empty: one empty page, no chunks.
	if r := folio(t, "", "read", "--max-tokens", "100", "--all", "-"); r.code != 0 || r.stdout != `{"uri":"-","content":"","version":"af1349b9f5f9a1a6a0404dea36dcc949","has_more":false,"next_cursor":null}`+"\n" {
		t.Errorf("read - of nothing: exit %d: %s", r.code, r.stdout)
	}
	if r := folio(t, "", "read", "--format", "raw", "--max-tokens", "100", "--all", "-0", "-"); r.code != 0 || r.stdout != "" {
		t.Errorf("chunks of nothing: exit %d: %q", r.code, r.stdout)
	}

	// Over the cap: too large, whichever way it is read.
	for _, args := range [][]string{{"read", "--max-tokens", "100", "--all", "-"}, {"read", "-"}, {"verify", "-"}, {"count", "-"}, {"read", "--format", "raw", "--max-tokens", "100", "--all", "-0", "-"}} {
		if r := folio(t, text, append([]string{args[0], "--max-file-bytes", "10000"}, args[1:]...)...); r.code != 4 || !strings.Contains(r.stderr, "cap") {
			t.Errorf("%v over the cap: exit %d: %s", args, r.code, r.stderr)
		}
	}
}

// TestChunkFormats: every way chunks are written gives them back: NUL
// after each, JSON Lines with their counts, files named as split(1)
// names them; from standard input and from a file; each within its
// budget, recounted; natural chunks end where a person would and are no
// fewer than tight ones.
func TestChunkFormats(t *testing.T) {
	t.Parallel()
	text := pipelineText(t)
	tk := o200k(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "input.md")
	os.WriteFile(path, []byte(text), 0o600)
	check := func(what string, chunks []string, budget int) {
		t.Helper()
		if strings.Join(chunks, "") != text {
			t.Fatalf("%s: the chunks are not the input", what)
		}
		for i, c := range chunks {
			if n := tk.Count(c); n > budget || n == 0 {
				t.Fatalf("%s: chunk %d counts %d tokens (budget %d)", what, i+1, n, budget)
			}
		}
	}
	counts := map[string]int{}
	for _, tight := range []string{"", "--tight"} {
		args := []string{"read", "--format", "raw", "--max-tokens", "200", "--all"}
		if tight != "" {
			args = append(args, tight)
		}
		r := folio(t, text, append(args, "-0", "-")...)
		if r.code != 0 || !strings.HasSuffix(r.stdout, "\x00") {
			t.Fatalf("-0: exit %d: %s", r.code, r.stderr)
		}
		nul := strings.Split(strings.TrimSuffix(r.stdout, "\x00"), "\x00")
		check("-0 "+tight, nul, 200)
		counts[tight] = len(nul)
		if tight == "" {
			natural := 0
			for _, c := range nul[:len(nul)-1] {
				if pager.EndsNaturally([]byte(c)) {
					natural++
				}
			}
			if natural*10 < (len(nul)-1)*9 {
				t.Errorf("%d of %d chunks end where a person would", natural, len(nul)-1)
			}
		}
		r = folio(t, "", append(args, "--jsonl", path)...)
		var jsonl []string
		for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			var c struct {
				Content string `json:"content"`
				Tokens  int    `json:"tokens"`
			}
			if err := json.Unmarshal([]byte(line), &c); err != nil || c.Tokens != tk.Count(c.Content) {
				t.Fatalf("--jsonl line %q: %v, tokens %d", line, err, c.Tokens)
			}
			jsonl = append(jsonl, c.Content)
		}
		check("--jsonl "+tight, jsonl, 200)
		if !slices.Equal(jsonl, nul) {
			t.Error("a file and standard input were cut differently")
		}
	}
	if counts["--tight"] > counts[""] {
		t.Errorf("%d tight chunks, %d natural", counts["--tight"], counts[""])
	}

	// --split: files named as split(1) names them, past the first width.
	out := t.TempDir()
	r := folio(t, text, "read", "--format", "raw", "--max-tokens", "40", "--all", "--split", filepath.Join(out, "part-"), "-")
	if r.code != 0 {
		t.Fatalf("--split: exit %d: %s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(out)
	var names, chunks []string
	for _, e := range entries {
		names = append(names, e.Name())
		b, _ := os.ReadFile(filepath.Join(out, e.Name()))
		chunks = append(chunks, string(b))
	}
	check("--split", chunks, 40)
	if len(names) <= 650 {
		t.Fatalf("%d files: too few to pass split's first width", len(names))
	}
	ref := t.TempDir()
	cmd := exec.Command("split", "-l", "1", "-", filepath.Join(ref, "part-"))
	cmd.Stdin = strings.NewReader(strings.Repeat("x\n", len(names)))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("split: %v: %s", err, out)
	}
	refEntries, _ := os.ReadDir(ref)
	var refNames []string
	for _, e := range refEntries {
		refNames = append(refNames, e.Name())
	}
	if !slices.Equal(names, refNames) {
		t.Errorf("folio named %d files %v…%v, split %d %v…%v", len(names), names[:2], names[len(names)-2:], len(refNames), refNames[:2], refNames[len(refNames)-2:])
	}

	for _, args := range [][]string{
		{"read", "--format", "raw", "--all", "-0", "-"},
		{"read", "--format", "raw", "--max-tokens", "9", "--all", "-"},
		{"read", "--format", "raw", "--max-tokens", "9", "-0", "-"},
		{"read", "--format", "raw", "--max-tokens", "9", "--all", "-0", "--jsonl", "-"},
		{"read", "--max-tokens", "90", "--all", "-0", "-"},
		{"read", "--format", "raw", "--max-tokens", "9", "--cursor", "x", "-"},
	} {
		if r := folio(t, "text", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, r.code, r.stderr)
		}
	}
	if r := folio(t, "text", "read", "--format", "raw", "--max-tokens", "9", "--all", "--split", filepath.Join(dir, "no", "such", "dir", "x"), "-"); r.code != 2 || !strings.Contains(r.stderr, "--split") {
		t.Errorf("--split into a missing directory: exit %d: %s", r.code, r.stderr)
	}
}

// TestCountLikeTtok: count gives token ids and takes them back, and
// truncates to a budget, natural or tight.
func TestCountLikeTtok(t *testing.T) {
	t.Parallel()
	text := pipelineText(t)[:6000]
	tk := o200k(t)
	r := folio(t, text, "count", "--tokens", "-")
	var ids []uint32
	for _, f := range strings.Fields(r.stdout) {
		var id uint32
		json.Unmarshal([]byte(f), &id)
		ids = append(ids, id)
	}
	if r.code != 0 || !slices.Equal(ids, tk.Encode(text)) {
		t.Fatalf("--tokens: exit %d, %d ids, want %d", r.code, len(ids), len(tk.Encode(text)))
	}
	if back := folio(t, r.stdout, "count", "--decode", "-"); back.code != 0 || back.stdout != text {
		t.Fatalf("--decode: exit %d: %.80q", back.code, back.stdout)
	}
	if r := folio(t, "1 2 x", "count", "--decode", "-"); r.code != 2 {
		t.Errorf("--decode of a word: exit %d", r.code)
	}
	if r := folio(t, "999999999", "count", "--decode", "-"); r.code != 2 || !strings.Contains(r.stderr, "not a token") {
		t.Errorf("--decode of no token: exit %d: %s", r.code, r.stderr)
	}
	if r := folio(t, text, "count", "--tokenizer", "estimate", "--tokens", "-"); r.code != 2 {
		t.Errorf("--tokens with the estimate: exit %d", r.code)
	}
	for _, tight := range []bool{false, true} {
		args := []string{"count", "--truncate", "100", "-"}
		if tight {
			args = []string{"count", "--truncate", "100", "--tight", "-"}
		}
		r := folio(t, text, args...)
		if r.code != 0 || !strings.HasPrefix(text, r.stdout) || tk.Count(r.stdout) > 100 || len(r.stdout) == 0 {
			t.Fatalf("%v: exit %d, %d tokens, a prefix: %v", args, r.code, tk.Count(r.stdout), strings.HasPrefix(text, r.stdout))
		}
		next := text[:len(r.stdout)+len(string([]rune(text[len(r.stdout):])[:1]))]
		if tight && tk.Count(next) <= 100 {
			t.Errorf("--tight stopped short: one more code point still counts %d", tk.Count(next))
		}
		if !tight && !pager.EndsNaturally([]byte(r.stdout)) {
			t.Errorf("--truncate ends mid-word: %q", r.stdout[max(0, len(r.stdout)-30):])
		}
	}
}

// TestVerifyForCI: --junit writes JUnit XML that a JUnit consumer reads
// as one test per file and budget, failures with their reasons; under
// GitHub Actions each failure is also a workflow annotation on its file,
// relative to the workspace.
func TestVerifyForCI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nSome text.\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "b.md"), bytes.Repeat([]byte("Words, words, words. "), 200), 0o600)
	os.WriteFile(filepath.Join(dir, "c.bin"), []byte{0, 1, 2}, 0o600)
	report := filepath.Join(dir, "junit.xml")
	cmd := exec.Command(folioBin, "verify", "--max-tokens", "5,300", "--junit", report, dir)
	cmd.Env = testmain.Env(t, "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+dir)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("verify with failures: %v\n%s", err, out)
	}
	suites, err := junit.IngestFile(report)
	if err != nil || len(suites) != 1 {
		t.Fatalf("the JUnit report: %v, %d suites", err, len(suites))
	}
	s := suites[0]
	if s.Totals.Tests != 4 || s.Totals.Failed != 2 || s.Totals.Passed != 2 {
		t.Errorf("totals %+v", s.Totals)
	}
	var failed []string
	for _, tc := range s.Tests {
		if tc.Status == junit.StatusFailed {
			failed = append(failed, filepath.Base(tc.Classname)+" "+tc.Name)
			if tc.Error == nil || !strings.Contains(tc.Error.Error(), "budget_too_small") {
				t.Errorf("%s %s failed without its reason: %v", tc.Classname, tc.Name, tc.Error)
			}
		}
	}
	slices.Sort(failed)
	if !slices.Equal(failed, []string{"a.md max_tokens=5", "b.md max_tokens=5"}) {
		t.Errorf("failed cases %v", failed)
	}
	var annotations []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "::error ") {
			annotations = append(annotations, line)
		}
	}
	slices.Sort(annotations)
	if len(annotations) != 2 || !strings.HasPrefix(annotations[0], "::error file=a.md,line=1,title=folio verify at max_tokens 5::budget_too_small") || !strings.HasPrefix(annotations[1], "::error file=b.md,") {
		t.Errorf("annotations %q", annotations)
	}
	// Outside GitHub Actions, none.
	if r := folio(t, "", "verify", "--max-tokens", "5", dir); strings.Contains(r.stdout, "::error") {
		t.Errorf("annotations outside GitHub Actions: %s", r.stdout)
	}
	if r := folio(t, "", "verify", "--junit", filepath.Join(dir, "no", "dir", "j.xml"), dir); r.code != 2 {
		t.Errorf("--junit into a missing directory: exit %d: %s", r.code, r.stderr)
	}
}

// TestVerifyNamedPathMissing: a path named to verify that is not there
// fails the run, locally and through a server (exit 3), in the command
// line's terms; the JUnit report has a failed case for it (not a skip),
// and the other paths are verified still. A file found by walking a
// directory that is not text is still skipped, and passes.
func TestVerifyNamedPathMissing(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "# A\n\nSome text.\n")
	write(t, dir, "bin.dat", "\x00\x01")
	srv := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0")
	missing := filepath.Join(dir, "missing.md")
	for _, tc := range []struct {
		name        string
		args        []string
		missing     string // as the FAIL line and the report name it
		failMessage string
	}{
		{"local", []string{filepath.Join(dir, "a.md"), missing}, missing, "not_found: no such file or directory"},
		{"remote", []string{"--server", srv.endpoint, "a.md", "missing.md"}, "missing.md", "not_found: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "junit.xml")
			r := folio(t, "", append([]string{"verify", "--max-tokens", "300", "--junit", report}, tc.args...)...)
			if r.code != exitNotFound || !strings.Contains(r.stdout, "FAIL "+tc.missing+": "+tc.failMessage) || !strings.Contains(r.stdout, "files 1,") {
				t.Fatalf("exit %d (want %d): %s %s", r.code, exitNotFound, r.stdout, r.stderr)
			}
			suites, err := junit.IngestFile(report)
			if err != nil || len(suites) != 1 {
				t.Fatalf("the JUnit report: %v, %d suites", err, len(suites))
			}
			if s := suites[0]; s.Totals.Tests != 2 || s.Totals.Failed != 1 || s.Totals.Passed != 1 || s.Totals.Skipped != 0 {
				t.Errorf("totals %+v", s.Totals)
			}
			for _, c := range suites[0].Tests {
				if c.Status == junit.StatusFailed && (c.Classname != tc.missing || c.Name != "exists" || !strings.Contains(c.Error.Error(), "not_found")) {
					t.Errorf("failed case %s %s: %v", c.Classname, c.Name, c.Error)
				}
			}
			r = folio(t, "", append([]string{"verify", "--json"}, tc.args...)...)
			var rep struct {
				Files   int
				Missing []string
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitNotFound || rep.Files != 1 || !slices.Equal(rep.Missing, []string{tc.missing}) {
				t.Errorf("--json: exit %d, %v: %s", r.code, err, r.stdout)
			}
		})
	}
	// Found by walking, not text: skipped, and the run passes.
	for _, args := range [][]string{{dir}, {"--server", srv.endpoint, "."}} {
		if r := folio(t, "", append([]string{"verify", "--json"}, args...)...); r.code != 0 || !strings.Contains(r.stdout, `"not_text": 1`) {
			t.Errorf("verify %v: exit %d: %s", args, r.code, r.stdout)
		}
	}
	// The path given, in the command line's terms: no served roots.
	r := folio(t, "", "verify", "/nonexistent-folio-path")
	if r.code != exitNotFound || !strings.Contains(r.stdout, "FAIL /nonexistent-folio-path: not_found: no such file or directory") ||
		strings.Contains(r.stdout+r.stderr, "served roots") {
		t.Errorf("verify /nonexistent-folio-path: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}

// actionlintVersion is the actionlint the docs' workflow is held to.
const actionlintVersion = "v1.7.12"

// actionlint builds actionlint at actionlintVersion from its Go module and
// returns its path; without the module proxy the test is skipped, unless
// FOLIO_REQUIRE_ACTIONLINT is set.
func actionlint(t *testing.T) string {
	t.Helper()
	gobin := t.TempDir()
	install := exec.Command("go", "install", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion)
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		if os.Getenv("FOLIO_REQUIRE_ACTIONLINT") == "" {
			t.Skipf("actionlint could not be built (FOLIO_REQUIRE_ACTIONLINT makes this fail): %v\n%s", err, out)
		}
		t.Fatalf("building actionlint: %v\n%s", err, out)
	}
	return filepath.Join(gobin, "actionlint")
}

// TestRepositoryWorkflows: the repository's own GitHub Actions workflows
// (.github/workflows, the release's among them) pass actionlint.
func TestRepositoryWorkflows(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows in .github/workflows: %v", err)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel(root, f)
	}
	lint := exec.Command(actionlint(t), append([]string{"-no-color"}, files...)...)
	lint.Dir = root
	if out, err := lint.CombinedOutput(); err != nil {
		t.Fatalf("actionlint %v: %v\n%s", files, err, out)
	}
}

// TestWorkflowStep: the GitHub Actions workflow in docs/pipelines.md passes
// actionlint (built from its Go module; without the module proxy the test
// is skipped, unless FOLIO_REQUIRE_ACTIONLINT is set), its install step
// installs a release's folio (workflowInstall), and that folio runs the
// workflow's verify.
func TestWorkflowStep(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "pipelines.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "<!-- workflow -->\n```yaml\n")
	workflow, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal("no workflow in docs/pipelines.md")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, ".github", "workflows", "docs.yml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(workflow), 0o644)
	lint := exec.Command(actionlint(t), "-no-color", path)
	lint.Dir = dir
	if out, err := lint.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s\n%s", err, out, workflow)
	}
	installed := workflowInstall(t, workflow)
	for _, line := range strings.Split(workflow, "\n") {
		if run, ok := strings.CutPrefix(strings.TrimSpace(line), "run: folio verify "); ok {
			docs := filepath.Join(dir, "docs")
			os.MkdirAll(docs, 0o755)
			os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nText.\n"), 0o644)
			cmd := exec.Command(installed, append([]string{"verify"}, strings.Fields(run)...)...)
			cmd.Dir = dir
			cmd.Env = testmain.Env(t)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the workflow's verify: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "folio-junit.xml")); err != nil {
				t.Fatal("the workflow's verify wrote no report")
			}
			return
		}
	}
	t.Fatal("the workflow runs no folio verify")
}

// workflowInstall runs the install step of the workflow in docs/pipelines.md
// as a runner does (bash -e -o pipefail, with RUNNER_TEMP, GITHUB_PATH and
// the step's env), its two downloads from github.com answered on loopback:
// a release's archive holding this test's folio, and a checksums file
// listing it among others. It returns the folio the step put on the PATH
// it added. A checksums file that does not match the archive must fail the
// step.
func workflowInstall(t *testing.T, workflow string) string {
	t.Helper()
	_, step, ok := strings.Cut(workflow, "- name: Install folio")
	_, version, okVersion := strings.Cut(step, "FOLIO_VERSION: ")
	_, script, okRun := strings.Cut(step, "run: |\n")
	if !ok || !okVersion || !okRun {
		t.Fatal("the workflow has no install step with FOLIO_VERSION and a run block")
	}
	version, _, _ = strings.Cut(version, "\n")
	var lines []string
	for _, line := range strings.Split(script, "\n") {
		body, indented := strings.CutPrefix(line, "          ")
		if !indented {
			break
		}
		lines = append(lines, body)
	}
	archiveName := "folio_" + version + "_linux_amd64.tar.gz"
	bin, err := os.ReadFile(folioBin)
	if err != nil {
		t.Fatal(err)
	}
	archive := tarGz(t, map[string][]byte{"folio": bin, "LICENSE": []byte("MIT\n")})
	sum := sha256.Sum256(archive)
	files := map[string][]byte{archiveName: archive}
	release := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/folio-mcp/folio/releases/download/v"+version+"/")
		body, found := files[name]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(release.Close)
	run := strings.ReplaceAll(strings.Join(lines, "\n"), "https://github.com", release.URL)
	install := func(checksums string) (string, error) {
		files["folio_"+version+"_checksums.txt"] = []byte(checksums)
		temp, pathFile := t.TempDir(), filepath.Join(t.TempDir(), "github_path")
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", run)
		cmd.Env = append(testmain.Env(t), "RUNNER_TEMP="+temp, "GITHUB_PATH="+pathFile, "FOLIO_VERSION="+version)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%w\n%s", err, out)
		}
		added, err := os.ReadFile(pathFile)
		return filepath.Join(strings.TrimSpace(string(added)), "folio"), err
	}
	other := fmt.Sprintf("%x  folio_%s_darwin_arm64.tar.gz\n", sha256.Sum256([]byte("other")), version)
	if _, err := install(fmt.Sprintf("%x  %s\n%s", sha256.Sum256([]byte("not it")), archiveName, other)); err == nil {
		t.Error("the install step took an archive its checksums file does not match")
	}
	installed, err := install(fmt.Sprintf("%s%x  %s\n", other, sum, archiveName))
	if err != nil {
		t.Fatalf("the workflow's install step: %v", err)
	}
	if got, err := os.ReadFile(installed); err != nil || !bytes.Equal(got, bin) {
		t.Fatalf("the install step put no folio at %s (%v)", installed, err)
	}
	return installed
}

// tarGz is a gzipped tar of files (name → content), each mode 0755.
func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}
