package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/testmain"
)

// distTree copies what packaging/dist.sh runs on (packaging/, server.json,
// LICENSE) into a git repository of the test's (the image takes its
// revision and time from git), with dist/ laid out as goreleaser release
// leaves it for version: metadata.json, each target's binary in its
// folder, an archive and the checksums file. The linux binaries are a
// small static Go program (the image's builder checks that they are static
// and for their machine), the darwin ones stand-ins. It returns the copy's
// root.
func distTree(t *testing.T, version string) string {
	t.Helper()
	root := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cp := exec.Command("cp", "-R", filepath.Join(src, "packaging"), filepath.Join(src, "server.json"), filepath.Join(src, "LICENSE"), root)
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copying the packaging: %v\n%s", err, out)
	}
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "packaging")

	dist := filepath.Join(root, "dist")
	write(t, dist, "metadata.json", fmt.Sprintf(`{"project_name":"folio","tag":"v%s","version":"%s","commit":"c"}`, version, version))
	prog := t.TempDir()
	write(t, prog, "go.mod", "module standin\n\ngo 1.26\n")
	write(t, prog, "main.go", "package main\n\nfunc main() { println(\"stand-in\") }\n")
	for _, target := range [][3]string{{"linux", "amd64", "v1"}, {"linux", "arm64", "v8.0"}, {"darwin", "amd64", "v1"}, {"darwin", "arm64", "v8.0"}} {
		dir := filepath.Join(dist, fmt.Sprintf("folio_%s_%s_%s", target[0], target[1], target[2]))
		if target[0] == "darwin" {
			write(t, dir, "folio", "#!/bin/sh\necho darwin\n")
			continue
		}
		build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "folio"), ".")
		build.Dir = prog
		build.Env = append(os.Environ(), "GOOS="+target[0], "GOARCH="+target[1], "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building the stand-in for %s/%s: %v\n%s", target[0], target[1], err, out)
		}
	}
	archive := fmt.Sprintf("folio_%s_linux_amd64.tar.gz", version)
	write(t, dist, archive, "an archive")
	sum := sha256.Sum256([]byte("an archive"))
	write(t, dist, fmt.Sprintf("folio_%s_checksums.txt", version), hex.EncodeToString(sum[:])+"  "+archive+"\n")
	return root
}

// git runs git with args in dir; it must succeed.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = testmain.Env(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runDist runs root's packaging/dist.sh with args and returns what it
// printed, its standard error and its error.
func runDist(t *testing.T, root string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "packaging", "dist.sh"), args...)
	cmd.Env = testmain.Env(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return string(out), stderr.String(), err
}

// TestDist: packaging/dist.sh, the one command that makes every artifact
// after goreleaser, run on a dist/ as goreleaser leaves it, makes the npm
// packages, the four bundles, the image's archive and server.json at
// goreleaser's version; server.json's sha256s are the bundles'; the
// checksums file lists the archive, the bundles and the image, and
// sha256sum -c agrees with every line, also when it runs again on a
// changed binary. A dist/ with no metadata or a missing binary makes
// nothing. (Each artifact's own test uses it as its user would:
// CONTRIBUTING.md, Releasing.)
func TestDist(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"node", "npm", "zip", "git", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("FOLIO_REQUIRE_MCPB") == "" {
				t.Skipf("packaging/dist.sh needs %s (or set FOLIO_REQUIRE_MCPB to fail): %v", tool, err)
			}
			t.Fatalf("packaging/dist.sh needs %s: %v", tool, err)
		}
	}
	const version = "0.4.2-snapshot-abc1234"
	root := distTree(t, version)
	dist := filepath.Join(root, "dist")
	out, stderr, err := runDist(t, root)
	if err != nil {
		t.Fatalf("packaging/dist.sh: %v\n%s", err, stderr)
	}
	checksums := filepath.Join(dist, "folio_"+version+"_checksums.txt")
	if !strings.HasSuffix(out, "dist/folio_"+version+"_checksums.txt\n") {
		t.Errorf("packaging/dist.sh printed %q, not the checksums file last", out)
	}
	var bundles []string
	for _, target := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"} {
		bundles = append(bundles, "folio_"+version+"_"+target+".mcpb")
	}
	want := append(slices.Clone(bundles), "folio_"+version+"_linux_amd64.tar.gz", "folio_"+version+"_oci.tar")
	slices.Sort(want)
	listed := checksumNames(t, checksums)
	if !slices.Equal(listed, want) {
		t.Errorf("the checksums file lists %v, want %v", listed, want)
	}
	check := func() *exec.Cmd {
		cmd := exec.Command("sha256sum", "-c", filepath.Base(checksums))
		cmd.Dir = dist
		return cmd
	}
	if out, err := check().CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
	npm, _ := filepath.Glob(filepath.Join(dist, "npm", "*-"+version+".tgz"))
	if len(npm) != 5 {
		t.Errorf("dist/npm holds %d packages of %s, want the wrapper and 4: %v", len(npm), version, npm)
	}
	entry := readEntry(t, filepath.Join(dist, "server.json"))
	if entry.Version != version {
		t.Errorf("dist/server.json is of version %q, want %q", entry.Version, version)
	}
	for _, p := range entry.Packages {
		if p.RegistryType != "mcpb" {
			continue
		}
		sum := sha256.Sum256(fileBytes(t, filepath.Join(dist, filepath.Base(p.Identifier))))
		if p.FileSha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("server.json gives %s the sha256 %s, not its file's", p.Identifier, p.FileSha256)
		}
	}

	// Run again on a changed binary: each bundle and the image are listed
	// once, with their new sums.
	write(t, filepath.Join(dist, "folio_darwin_amd64_v1"), "folio", "#!/bin/sh\necho darwin, rebuilt\n")
	if _, stderr, err := runDist(t, root); err != nil {
		t.Fatalf("packaging/dist.sh, again: %v\n%s", err, stderr)
	}
	if listed := checksumNames(t, checksums); !slices.Equal(listed, want) {
		t.Errorf("run again, the checksums file lists %v, want %v", listed, want)
	}
	if out, err := check().CombinedOutput(); err != nil {
		t.Errorf("run again, sha256sum -c: %v\n%s", err, out)
	}

	os.Remove(filepath.Join(dist, "folio_darwin_arm64_v8.0", "folio"))
	if _, stderr, err := runDist(t, root); err == nil || !strings.Contains(stderr, "goreleaser built no folio for darwin/arm64") {
		t.Errorf("a missing binary: %v, %q", err, stderr)
	}
	os.Remove(filepath.Join(dist, "metadata.json"))
	if _, stderr, err := runDist(t, root); err == nil || !strings.Contains(stderr, "no dist/metadata.json") {
		t.Errorf("no metadata: %v, %q", err, stderr)
	}
	if _, stderr, err := runDist(t, root, "0.4.2"); err == nil || !strings.Contains(stderr, "usage: packaging/dist.sh [--snapshot]") {
		t.Errorf("a version given: %v, %q", err, stderr)
	}
}

// checksumNames is the file names a checksums file lists, sorted.
func checksumNames(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(fileBytes(t, path))), "\n") {
		_, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("%s: %q is no checksum line", path, line)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
