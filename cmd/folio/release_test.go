package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/testmain"
)

// releaseTools are goreleaser and syft (the SBOMs), from PATH. Without
// them the release test is skipped, unless FOLIO_REQUIRE_GORELEASER is set
// (as in CI, which installs both from their Go modules).
func releaseTools(t *testing.T) string {
	t.Helper()
	goreleaser, err := exec.LookPath("goreleaser")
	if err == nil {
		_, err = exec.LookPath("syft")
	}
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_GORELEASER") != "" {
			t.Fatalf("goreleaser and syft are required (FOLIO_REQUIRE_GORELEASER is set): %v", err)
		}
		t.Skipf("goreleaser or syft is not installed (CONTRIBUTING.md, Releasing): %v", err)
	}
	return goreleaser
}

// releaseArtifact is one entry of goreleaser's dist/artifacts.json.
type releaseArtifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
	Type   string `json:"type"`
}

// TestReleaseArchive: goreleaser builds this machine's archive from the
// repository's .goreleaser.yaml as a snapshot (this target only, as CI
// does; into a dist/ of the test's own), and the archive is what its
// user gets: the checksums file gives its sha256 (and every other file's);
// it holds folio, LICENSE and README.md as they are here, each with the
// commit's time; the binary was built with -trimpath, without cgo and
// stripped; an SBOM of it names folio's dependencies; and the binary
// prints the snapshot's version and commit ("folio version") and serves a file that a go-sdk client reads over
// stdio, in pages, byte for byte.
func TestReleaseArchive(t *testing.T) {
	t.Parallel()
	goreleaser := releaseTools(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dist := goreleaserSnapshot(t, goreleaser, root, dir)

	var meta struct{ Version, Commit string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	if !strings.Contains(meta.Version, "-snapshot-") || meta.Commit == "" {
		t.Fatalf("metadata.json: version %q, commit %q", meta.Version, meta.Commit)
	}
	var artifacts []releaseArtifact
	readJSON(t, filepath.Join(dist, "artifacts.json"), &artifacts)
	archive := theArtifact(t, artifacts, "Archive", root)
	checksums := theArtifact(t, artifacts, "Checksum", root)
	sbom := theArtifact(t, artifacts, "SBOM", root)
	if want := fmt.Sprintf("folio_%s_%s_%s.tar.gz", meta.Version, runtime.GOOS, runtime.GOARCH); filepath.Base(archive) != want {
		t.Errorf("the archive is %s, want %s", filepath.Base(archive), want)
	}
	checkChecksums(t, checksums, archive, sbom)

	commitTime := gitCommitTime(t, root, meta.Commit)
	bin := filepath.Join(dir, "folio")
	checkArchive(t, archive, root, bin, commitTime)
	checkBuildInfo(t, bin)
	checkSBOM(t, sbom)

	version := exec.Command(bin, "version")
	version.Env = testmain.Env(t)
	out, err := version.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "folio v"+meta.Version+" (commit "+meta.Commit) || !strings.Contains(string(out), runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("folio version: %v: %s", err, out)
	}
	docs := t.TempDir()
	text := strings.Repeat("from the release archive, 中文 and 🙂, tabs\tand CRLF\r\n", 400)
	write(t, docs, "a.md", text)
	cmd := exec.Command(bin, "serve", "--root", docs)
	cmd.Env = testmain.Env(t)
	cs := dial(t, &mcp.CommandTransport{Command: cmd})
	if got := readAll(t, cs, "a.md", 300); got != text {
		t.Errorf("the archive's folio gave back %d bytes, not the file's %d", len(got), len(text))
	}
}

// goreleaserSnapshot runs goreleaser release --snapshot --clean in the
// repository at root, with its .goreleaser.yaml narrowed to this machine's
// target (what goreleaser build --single-target would build) and dist/
// in dir, and returns that dist. goreleaser reads the commit from git, and
// takes none when the repository has no remote: the test names one for
// origin in git's environment, which changes no file.
func goreleaserSnapshot(t *testing.T, goreleaser, root, dir string) string {
	t.Helper()
	config, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	config = narrowTarget(t, config, "goos", runtime.GOOS)
	config = narrowTarget(t, config, "goarch", runtime.GOARCH)
	dist := filepath.Join(dir, "dist")
	configCopy := filepath.Join(dir, "goreleaser.yaml")
	if err := os.WriteFile(configCopy, fmt.Appendf(config, "\ndist: %s\n", strconv.Quote(dist)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goreleaser, "release", "--snapshot", "--clean", "--config", configCopy)
	cmd.Dir = root
	cmd.Env = append(testmain.Env(t), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=remote.origin.url",
		"GIT_CONFIG_VALUE_0=https://github.com/folio-mcp/folio")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser: %v\n%s", err, out)
	}
	t.Logf("goreleaser release --snapshot --clean, for %s/%s: %v", runtime.GOOS, runtime.GOARCH, time.Since(start).Round(100*time.Millisecond))
	return dist
}

// narrowTarget is config with the one line "key: [a, b, …]" made
// "key: [value]"; value must be among the line's.
func narrowTarget(t *testing.T, config []byte, key, value string) []byte {
	t.Helper()
	re := regexp.MustCompile(`(?m)^(\s+` + key + `: )\[(.*)\]$`)
	m := re.FindAllSubmatch(config, -1)
	if len(m) != 1 {
		t.Fatalf(".goreleaser.yaml has %d lines %q, want 1", len(m), key+": [...]")
	}
	if !slices.Contains(strings.Split(string(m[0][2]), ", "), value) {
		t.Fatalf(".goreleaser.yaml's %s is [%s], without this machine's %s", key, m[0][2], value)
	}
	return re.ReplaceAll(config, []byte("${1}["+value+"]"))
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// theArtifact is the path of the one artifact of its type goreleaser
// made.
func theArtifact(t *testing.T, artifacts []releaseArtifact, typ, root string) string {
	t.Helper()
	var paths []string
	for _, a := range artifacts {
		if a.Type == typ {
			p := a.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			paths = append(paths, p)
		}
	}
	if len(paths) != 1 {
		t.Fatalf("%d artifacts of type %s, want 1: %+v", len(paths), typ, artifacts)
	}
	return paths[0]
}

// checkChecksums: every line of the checksums file is the sha256 of a
// file beside it, and the archive and the SBOM are among them.
func checkChecksums(t *testing.T, checksums string, want ...string) {
	t.Helper()
	b, err := os.ReadFile(checksums)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		sum, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "  ")
		if !ok {
			t.Fatalf("checksums line %q", line)
		}
		file, err := os.ReadFile(filepath.Join(filepath.Dir(checksums), name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(file); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, the checksums file says %s", name, got, sum)
		}
		named[name] = true
	}
	for _, p := range want {
		if !named[filepath.Base(p)] {
			t.Errorf("the checksums file does not name %s:\n%s", filepath.Base(p), b)
		}
	}
}

// gitCommitTime is the commit's committer time, which goreleaser gives
// every file of the archive.
func gitCommitTime(t *testing.T, root, commit string) time.Time {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct", commit).Output()
	if err != nil {
		t.Fatal(err)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(sec, 0)
}

// checkArchive: the archive holds folio (written to bin), LICENSE and
// README.md as the repository has them, and nothing else, each file with
// the commit's time.
func checkArchive(t *testing.T, archive, root, bin string, commitTime time.Time) {
	t.Helper()
	files := tarball(t, archive)
	for name, f := range files {
		if !f.modTime.Equal(commitTime) {
			t.Errorf("%s: mtime %v, want the commit's %v", name, f.modTime, commitTime)
		}
		switch name {
		case "folio":
			if f.mode&0o111 == 0 {
				t.Errorf("folio is not executable: %v", f.mode)
			}
			if err := os.WriteFile(bin, f.data, 0o755); err != nil {
				t.Fatal(err)
			}
		case "LICENSE", "README.md":
			if want, _ := os.ReadFile(filepath.Join(root, name)); !bytes.Equal(f.data, want) {
				t.Errorf("the archive's %s is not the repository's", name)
			}
		default:
			t.Errorf("the archive holds %s", name)
		}
	}
	for _, name := range []string{"folio", "LICENSE", "README.md"} {
		if _, ok := files[name]; !ok {
			t.Fatalf("the archive holds no %s", name)
		}
	}
}

// checkBuildInfo: the binary was built as .goreleaser.yaml says: without
// cgo, with -trimpath (which keeps -ldflags out of the build info), and,
// on Linux, stripped of its symbol table and DWARF (-s -w).
func checkBuildInfo(t *testing.T, bin string) {
	t.Helper()
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if bi.Path != "github.com/folio-mcp/folio/cmd/folio" || settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" ||
		settings["GOOS"] != runtime.GOOS || settings["GOARCH"] != runtime.GOARCH {
		t.Errorf("built as %s with %v", bi.Path, settings)
	}
	if runtime.GOOS != "linux" {
		return
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{".symtab", ".debug_info"} {
		if f.Section(name) != nil {
			t.Errorf("the binary has a %s section: not built with -s -w", name)
		}
	}
}

// checkSBOM: the SBOM is an SPDX document that names the modules folio is
// built from.
func checkSBOM(t *testing.T, sbom string) {
	t.Helper()
	var doc struct {
		SPDXVersion string `json:"spdxVersion"`
		Packages    []struct {
			Name, VersionInfo string
		} `json:"packages"`
	}
	readJSON(t, sbom, &doc)
	found := map[string]string{}
	for _, p := range doc.Packages {
		found[p.Name] = p.VersionInfo
	}
	for _, want := range []string{"github.com/modelcontextprotocol/go-sdk", "github.com/urfave/cli/v2"} {
		if found[want] == "" {
			t.Errorf("the SBOM (%s) does not name %s among its %d packages", doc.SPDXVersion, want, len(doc.Packages))
		}
	}
	if !strings.HasPrefix(doc.SPDXVersion, "SPDX-") {
		t.Errorf("the SBOM is no SPDX document: %q", doc.SPDXVersion)
	}
}
