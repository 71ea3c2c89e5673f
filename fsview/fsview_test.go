package fsview

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/zeebo/blake3"
)

// tree makes a root with files, and a sibling directory outside it.
func tree(t testing.TB) (rootDir, outside string) {
	t.Helper()
	base := t.TempDir()
	rootDir = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	files := map[string]string{
		"root/docs/a.md":          "# A\n",
		"root/docs/with space.md": "spaced\n",
		"root/.env":               "SECRET=1\n",
		"root/sub/.env.local":     "SECRET=2\n",
		"root/.git/config":        "[core]\n",
		"root/keys/server.pem":    "-----BEGIN-----\n",
		"outside/secret.txt":      "outside\n",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"root/out-rel":     "../outside/secret.txt",
		"root/out-abs":     filepath.Join(outside, "secret.txt"),
		"root/out-dir":     "../outside",
		"root/in-rel":      "docs/a.md",
		"root/in-abs":      filepath.Join(rootDir, "docs/a.md"),
		"root/to-env":      ".env",
		"root/loop-a":      "loop-b",
		"root/loop-b":      "loop-a",
		"root/docs/up":     "..",
		"root/docs/upfile": "../docs/a.md",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(rootDir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return rootDir, outside
}

func open(t testing.TB, opt Options, roots ...string) *FS {
	t.Helper()
	v, err := Open(roots, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func TestSpellingsGiveOneURI(t *testing.T) {
	rootDir, _ := tree(t)
	v := open(t, Options{Deny: DefaultDeny()}, rootDir)
	want := fileuri.Of(filepath.Join(rootDir, "docs/with space.md"))
	if !strings.HasSuffix(want, "/docs/with%20space.md") {
		t.Fatalf("canonical URI %s", want)
	}
	for _, name := range []string{
		"docs/with space.md",
		"./docs/../docs/with space.md",
		filepath.Join(rootDir, "docs/with space.md"),
		want,
		"file://localhost" + strings.TrimPrefix(want, "file://"),
		"file:" + strings.TrimPrefix(want, "file://"),
		strings.Replace(want, "with%20space", "with%20sp%61ce", 1),
		strings.Replace(want, "docs", "%64ocs", 1),
		"FILE://" + strings.TrimPrefix(want, "file://"),
	} {
		f, err := v.Regular(name)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if f.URI != want || f.Rel != "docs/with space.md" {
			t.Fatalf("%q gave %s (%s)", name, f.URI, f.Rel)
		}
	}
}

func TestRefusals(t *testing.T) {
	rootDir, outside := tree(t)
	v := open(t, Options{Deny: DefaultDeny(), MaxFileBytes: 1 << 20}, rootDir)
	for _, tc := range []struct {
		name string
		want error
	}{
		{"../outside/secret.txt", ErrNotFound},
		{"docs/../../outside/secret.txt", ErrNotFound},
		{filepath.Join(outside, "secret.txt"), ErrNotFound},
		{fileuri.Of(filepath.Join(outside, "secret.txt")), ErrNotFound},
		{"file:///etc/passwd", ErrNotFound},
		{"/etc/passwd", ErrNotFound},
		{"out-rel", ErrNotFound},
		{"out-abs", ErrNotFound},
		{"out-dir/secret.txt", ErrNotFound},
		{"docs/up/../outside/secret.txt", ErrNotFound},
		{"loop-a", ErrNotFound},
		{"missing.md", ErrNotFound},
		{"docs/a.md/x", ErrNotFound},
		{".env", ErrNotFound},
		{"sub/.env.local", ErrNotFound},
		{".git/config", ErrNotFound},
		{"keys/server.pem", ErrNotFound},
		{"to-env", ErrNotFound},
		{"docs/a.md\x00.txt", ErrInvalidPath},
		{"", ErrInvalidPath},
		{"file://otherhost/etc/passwd", ErrInvalidPath},
		{"file:relative", ErrInvalidPath},
		{fileuri.Of(filepath.Join(rootDir, "docs/a.md")) + "?q", ErrInvalidPath},
		{"docs", ErrIsDir},
		{".", ErrIsDir},
		{"fifo", ErrNotRegular},
	} {
		_, err := v.Regular(tc.name)
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	// A denied file and a missing one say the same thing.
	_, denied := v.Regular(".env")
	_, missing := v.Regular(".envx")
	if strings.Replace(denied.Error(), ".env", "X", 1) != strings.Replace(missing.Error(), ".envx", "X", 1) {
		t.Errorf("denied %q and missing %q differ", denied, missing)
	}
	// Symlinks inside the root are followed.
	for _, name := range []string{"in-rel", "in-abs", "docs/upfile"} {
		if _, err := v.Regular(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}

func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	content := []byte(strings.Repeat("héllo wörld 中文🙂\r\n", 20000)) // spans several reads
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, content, 0o644)
	v := open(t, Options{}, dir)
	f, err := v.Regular("f.txt")
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(content)
	for _, tc := range []struct{ off, win int64 }{{0, 10}, {0, -1}, {100, 1000}, {int64(len(content)) - 5, 100}, {int64(len(content)), 10}, {readBuf - 3, 7}} {
		s, err := v.Snapshot(context.Background(), f, tc.off, tc.win)
		if err != nil {
			t.Fatal(err)
		}
		end := int64(len(content))
		if tc.win >= 0 {
			end = min(tc.off+tc.win, end)
		}
		if !bytes.Equal(s.Window, content[tc.off:end]) || s.Size != int64(len(content)) || s.EOF() != (end == s.Size) {
			t.Fatalf("offset %d window %d: got %d bytes", tc.off, tc.win, len(s.Window))
		}
		if s.Version != sum || s.Version.String() != hex.EncodeToString(sum[:16]) {
			t.Fatalf("version %s", s.Version)
		}
	}
	if _, err := v.Snapshot(context.Background(), f, int64(len(content))+1, 1); !errors.Is(err, ErrOffset) {
		t.Fatalf("offset past EOF: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Snapshot(ctx, f, 0, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestNotText(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("a"), readBuf-1)
	for name, content := range map[string][]byte{
		"nul.txt":       []byte("abc\x00def"),
		"latin1.txt":    []byte("caf\xe9\n"),
		"truncated.txt": []byte("emoji \xf0\x9f\x99"),
		"split.txt":     append(append(bytes.Clone(big), 0xe4, 0xb8), 'x'),
		"surrogate.txt": []byte("\xed\xa0\x80"),
	} {
		os.WriteFile(filepath.Join(dir, name), content, 0o644)
		v := open(t, Options{}, dir)
		f, err := v.Regular(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Snapshot(context.Background(), f, 0, -1); !errors.Is(err, ErrNotText) {
			t.Errorf("%s: %v", name, err)
		}
		if _, _, err := v.Hash(context.Background(), f); err != nil {
			t.Errorf("%s: hash: %v", name, err)
		}
	}
	// A code point split across two reads is text.
	ok := append(bytes.Clone(big), "中"...)
	os.WriteFile(filepath.Join(dir, "ok.txt"), ok, 0o644)
	v := open(t, Options{}, dir)
	f, _ := v.Regular("ok.txt")
	if _, err := v.Snapshot(context.Background(), f, 0, -1); err != nil {
		t.Fatal(err)
	}
}

func TestSizeCap(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("x"), 2048), 0o644)
	v := open(t, Options{MaxFileBytes: 1024}, dir)
	f, err := v.Regular("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Snapshot(context.Background(), f, 0, 10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
}

func TestReplacedAfterResolve(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("one"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET"), 0o644)
	v := open(t, Options{Deny: DefaultDeny()}, dir)
	f, err := v.Regular("f.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Swap the file for a symlink to a denied one: the read refuses it.
	os.Remove(p)
	os.Symlink(".env", p)
	if _, err := v.Snapshot(context.Background(), f, 0, -1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("swapped for a symlink: %v", err)
	}
}

func TestMultipleRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "x.md"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(b, "y.md"), []byte("b"), 0o644)
	v := open(t, Options{}, a, b)
	if _, err := v.Regular("x.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Regular("y.md"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("relative names resolve against the first root only: %v", err)
	}
	if _, err := v.Regular(filepath.Join(b, "y.md")); err != nil {
		t.Fatal(err)
	}
}

// FuzzResolve: whatever the name, a resolved file lies inside the root.
func FuzzResolve(f *testing.F) {
	rootDir, _ := tree(f)
	v := open(f, Options{}, rootDir)
	for _, s := range []string{"docs/a.md", "../outside/secret.txt", "out-rel", "in-abs", "file:///etc/passwd",
		"docs/up/up/up", "%2e%2e/x", "file:///%2e%2e/etc", "a/./b/../../..", "/", "file://localhost/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		file, err := v.Resolve(name)
		if err != nil {
			return
		}
		if _, ok := within(v.roots[0].path, file.Path); !ok {
			t.Fatalf("%q resolved to %s, outside the root", name, file.Path)
		}
		if file.resolved != "." && (strings.HasPrefix(file.resolved, "../") || file.resolved == ".." || filepath.IsAbs(file.resolved)) {
			t.Fatalf("%q resolved to %q", name, file.resolved)
		}
		real := filepath.Join(rootDir, filepath.FromSlash(file.resolved))
		if _, ok := within(rootDir, real); !ok {
			t.Fatalf("%q leads to %s", name, real)
		}
	})
}

func TestWalk(t *testing.T) {
	rootDir, _ := tree(t)
	v := open(t, Options{Deny: DefaultDeny()}, rootDir)
	var files, hidden []string
	err := v.Walk(context.Background(), ".", nil, func(f File, err error) error {
		if err != nil {
			hidden = append(hidden, err.Error())
			return nil
		}
		files = append(files, f.Rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Denied names, links that lead out, loops and the FIFO are reported as
	// errors; the .git directory is not entered; in-root links to files are
	// files, and links to directories are not followed.
	want := []string{"docs/a.md", "docs/upfile", "docs/with space.md", "in-abs", "in-rel"}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Fatalf("files %q, want %q", files, want)
	}
	if len(hidden) != 11 {
		t.Fatalf("%d hidden: %q", len(hidden), hidden)
	}
	for _, h := range hidden {
		if strings.Contains(h, "SECRET") || strings.Contains(h, "secret.txt") {
			t.Fatalf("an error leaks: %s", h)
		}
	}
}

// TestSymlinkSwappedAfterResolve: a directory on a resolved path that is
// swapped for a symlink (to a denied directory) before the file is opened
// makes the open fail; it never reads where the symlink leads.
func TestSymlinkSwappedAfterResolve(t *testing.T) {
	root, _ := tree(t)
	v, err := Open([]string{root}, Options{Deny: DefaultDeny()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := os.WriteFile(filepath.Join(root, "docs", "config"), []byte("public\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := v.Regular("docs/config")
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Resolve("docs")
	if err != nil {
		t.Fatal(err)
	}
	// docs becomes a symlink to .git, whose config is another file.
	if err := os.Rename(filepath.Join(root, "docs"), filepath.Join(root, "docs-old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(root, "docs")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Snapshot(context.Background(), f, 0, -1); !errors.Is(err, ErrNotFound) {
		t.Errorf("snapshot through a swapped-in symlink: %v, want ErrNotFound", err)
	}
	if v.LooksText(f) {
		t.Error("LooksText read through a swapped-in symlink")
	}
	err = v.List(context.Background(), d, ListOptions{}, func(f File) error {
		t.Errorf("listed %s through a swapped-in symlink", f.Rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDenyList: the default deny list hides version-control internals and
// credential files at any depth and in any case, and nothing else.
func TestDenyList(t *testing.T) {
	d, err := compileDeny(DefaultDeny())
	if err != nil {
		t.Fatal(err)
	}
	denied := []string{
		".git", ".git/config", "vendor/lib/.git/config", ".GIT/config", ".hg/hgrc", "a/.svn/entries",
		".env", ".ENV", "docs/.Env", ".ENV.production", "app/.env.local", ".envrc",
		".ssh/id_rsa", "home/u/.ssh/config", ".ssh/known_hosts", ".gnupg/secring.gpg",
		".aws/credentials", "x/.aws/config", ".azure/accessTokens.json", ".kube/config",
		".docker/config.json", "home/.docker/config.json", ".config/gcloud/credentials.db",
		".netrc", "_netrc", ".git-credentials", ".npmrc", "pkg/.npmrc", ".pypirc", ".pgpass", ".htpasswd",
		"server.pem", "certs/SERVER.PEM", "tls.key", "a.p12", "b.pfx", "c.jks", "d.keystore", "vault.kdbx",
		"id_rsa", "id_rsa.pub", "keys/id_ed25519", "ID_ECDSA", "id_dsa",
		"terraform.tfstate", "infra/terraform.tfstate.backup",
	}
	visible := []string{
		".", "docs/env.md", "environment.go", "git/config", ".github/workflows/ci.yml", ".gitignore",
		".gitattributes", "keys.go", "keyboard.md", "docker/config.json", ".docker/daemon.json",
		".config/app.toml", "ssh.md", "netrc.go", "pem.go", "key", "tfstate.md", "aws/README",
	}
	for _, p := range denied {
		if !d.match(p) {
			t.Errorf("%s is visible", p)
		}
	}
	for _, p := range visible {
		if d.match(p) {
			t.Errorf("%s is denied", p)
		}
	}
	anchored, err := compileDeny([]string{"/build/**", "**/out/*.log"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"build": true, "build/a.o": true, "src/build/a.o": false, "out/x.log": true, "a/out/x.log": true, "a/out/x.txt": false} {
		if anchored.match(p) != want {
			t.Errorf("%s: denied %v, want %v", p, !want, want)
		}
	}
	for _, bad := range []string{"**", "/**", "[", "**/"} {
		if _, err := compileDeny([]string{bad}); err == nil {
			t.Errorf("deny glob %q accepted", bad)
		}
	}
}

// TestReadMemory: snapshots' windows share the read memory; one that finds
// no room waits until another is released or its context ends, and a
// window larger than the whole memory runs alone.
func TestReadMemory(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"a": 600, "b": 600, "big": 5000} {
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := open(t, Options{ReadMemory: 1000}, dir)
	view, _ := v.Restrict([]string{"**"})
	snap := func(fs *FS, ctx context.Context, name string) (*Snapshot, error) {
		f, err := fs.Regular(name)
		if err != nil {
			t.Fatal(err)
		}
		return fs.Snapshot(ctx, f, 0, -1)
	}
	a, err := snap(v, context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := snap(view, ctx, "b"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a view's snapshot with no room: %v, want it to wait until cancelled", err)
	}
	done := make(chan error)
	go func() {
		b, err := snap(view, context.Background(), "b")
		if err == nil {
			b.Release()
		}
		done <- err
	}()
	a.Release()
	a.Release() // twice is once
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	big, err := snap(v, context.Background(), "big")
	if err != nil || len(big.Window) != 5000 {
		t.Fatalf("a window over the whole memory: %v", err)
	}
	big.Release()
}

// FuzzDeny holds the deny matcher (literal names, prefixes, suffixes,
// component globs, runs of a fixed length) to the rule it keeps, checked
// the slow way: the lower-cased glob matches some run of the lower-cased
// path's components (from the first one when it starts with "/"); and so
// does the walk's matchLast, for a path whose directory is not denied.
func FuzzDeny(f *testing.F) {
	for _, g := range append(DefaultDeny(), "/build/**", "**/out/*.log", "a/b", "[A-C]x*", "{x,y}/z", "a/**/b", "*0*") {
		f.Add(g, "Vendor/lib/.git/config")
		f.Add(g, "a/b/c.PEM")
	}
	f.Fuzz(func(t *testing.T, glob, rel string) {
		d, err := compileDeny([]string{glob})
		if err != nil {
			return
		}
		rel = strings.Trim(path.Clean("/"+rel), "/")
		if rel == "" || strings.ContainsRune(rel, 0) {
			return
		}
		g := strings.ToLower(glob)
		anchored := strings.HasPrefix(g, "/")
		g = strings.TrimPrefix(g, "/")
		for !anchored && strings.HasPrefix(g, "**/") {
			g = g[3:]
		}
		for strings.HasSuffix(g, "/**") {
			g = g[:len(g)-3]
		}
		parts := strings.Split(strings.ToLower(rel), "/")
		want := false
		for i := range parts {
			for j := i + 1; j <= len(parts) && !want; j++ {
				want, _ = doublestar.Match(g, strings.Join(parts[i:j], "/"))
			}
			if anchored {
				break
			}
		}
		if got := d.match(rel); got != want {
			t.Fatalf("glob %q, path %q: denied %v, want %v", glob, rel, got, want)
		}
		// As a walk judges an entry: its directory was let through.
		if dir := path.Dir(rel); dir == "." || !d.match(dir) {
			if got := d.matchLast(rel); got != want {
				t.Fatalf("glob %q, path %q in a directory not denied: denied %v, want %v", glob, rel, got, want)
			}
		}
	})
}

// TestReadSizeZeroFile: a file that reports size 0 but holds more (a /proc
// file) is read whole, its buffer growing, not one byte per read.
func TestReadSizeZeroFile(t *testing.T) {
	want, err := os.ReadFile("/proc/version")
	if err != nil || len(want) == 0 {
		t.Skip("no /proc/version")
	}
	if info, err := os.Stat("/proc/version"); err != nil || info.Size() != 0 {
		t.Skip("/proc/version reports its size")
	}
	v := open(t, Options{}, "/proc")
	f, err := v.Regular("version")
	if err != nil {
		t.Fatal(err)
	}
	var reads int
	s := &Snapshot{}
	err = v.read(context.Background(), f, true, nil, func(pos int64, b []byte) {
		reads++
		s.Window = append(s.Window, b...)
	}, &s.Size, &s.Version)
	if err != nil || string(s.Window) != string(want) {
		t.Fatalf("%v: read %q", err, s.Window)
	}
	if reads > 12 {
		t.Errorf("%d reads for %d bytes", reads, len(want))
	}
}

// TestWalkFiles: a walk gives every visible regular file, keep passes
// over what it rejects, and each entry reads its file's bytes; a file
// replaced after the walk found it (by a symlink out of the root, or by
// another file) is not read; and every directory descriptor the walk
// held is closed once its entries are read or dropped.
func TestWalkFiles(t *testing.T) {
	root, outside := tree(t)
	v, err := Open([]string{root}, Options{Deny: DefaultDeny()})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	for _, name := range []string{"docs/b.md", "docs/c.md", "docs/d.md", "docs/e.md"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip(err)
		}
		return len(ents)
	}
	before := fds()

	var entries []*Entry
	var kept []string
	err = v.WalkFiles(ctx, ".", nil, func(f File) bool {
		kept = append(kept, f.Rel)
		return f.Rel != "docs/with space.md"
	}, func(e *Entry, err error) error {
		if err == nil {
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Rel)
	}
	want := []string{"docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md", "docs/e.md", "docs/upfile", "in-abs", "in-rel"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("entries %q, want %q (keep saw %q)", got, want, kept)
	}
	// a.md replaced by a new file of the same name (and so what the
	// symlinks upfile, in-abs and in-rel lead to); b.md now a symlink out
	// of the root; c.md the old a.md; d.md dropped; e.md read as it is.
	if err := os.Remove(filepath.Join(root, "docs/b.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "docs/b.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "docs/a.md"), filepath.Join(root, "docs/c.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs/a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if e.Rel == "docs/d.md" {
			e.Drop()
			continue
		}
		s, err := v.ReadEntry(ctx, e, make([]byte, 0, i))
		if e.Rel == "docs/e.md" {
			if err != nil || string(s.Window) != "docs/e.md\n" || s.Size != 10 {
				t.Errorf("%s: %v, %q", e.Rel, err, s.Window)
			}
		} else if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s, replaced since the walk found it: %v, want ErrNotFound", e.Rel, err)
		}
		if s != nil {
			s.Release()
		}
	}
	if after := fds(); after != before {
		t.Errorf("%d descriptors open after the walk, %d before", after, before)
	}
}
