package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/testmain"
)

// mcpbCLI is the mcpb CLI's script under testdata/mcpb's node_modules.
const mcpbCLI = "@anthropic-ai/mcpb/dist/cli/cli.js"

// mcpbDir is testdata/mcpb with its node and the mcpb CLI (see nodeTool;
// FOLIO_REQUIRE_MCPB makes a missing one fail).
func mcpbDir(t *testing.T) (dir, node string) {
	t.Helper()
	return nodeTool(t, "mcpb", mcpbCLI, "FOLIO_REQUIRE_MCPB")
}

// runMcpb runs testdata/mcpb's mcpb CLI with args and returns what it
// printed; it must succeed.
func runMcpb(t *testing.T, args ...string) string {
	t.Helper()
	dir, node := mcpbDir(t)
	cmd := exec.Command(node, append([]string{filepath.Join(dir, "node_modules", mcpbCLI)}, args...)...)
	cmd.Env = testmain.Env(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// packMcpb runs packaging/mcpb/pack.sh on the binaries in bindir and
// returns its output folder, what it printed, its error and its standard
// error.
func packMcpb(t *testing.T, version, bindir string, env ...string) (out, printed string, err error, stderr string) {
	t.Helper()
	out = t.TempDir()
	cmd := exec.Command("../../packaging/mcpb/pack.sh", version, bindir, out)
	cmd.Env = testmain.Env(t, env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	b, err := cmd.Output()
	return out, string(b), err, errb.String()
}

// fakeBinaries writes stand-in binaries (shell scripts naming their
// target) for targets into a new folder and returns it.
func fakeBinaries(t *testing.T, targets [][2]string) string {
	t.Helper()
	bindir := t.TempDir()
	for _, target := range targets {
		script := fmt.Sprintf("#!/bin/sh\necho %s-%s \"$@\"\n", target[0], target[1])
		os.WriteFile(filepath.Join(bindir, "folio-"+target[0]+"-"+target[1]), []byte(script), 0o644)
	}
	return bindir
}

// bundleManifest is what the tests read of a bundle's manifest.json.
type bundleManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name, Version   string
	Server          struct {
		Type       string
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string
			Args    []string
		} `json:"mcp_config"`
	}
	Compatibility struct{ Platforms []string }
	UserConfig    map[string]struct {
		Type               string
		Required, Multiple bool
	} `json:"user_config"`
}

// zipFiles is the files of a zip (a bundle): name → mode, time and
// content, and the names in their order.
func zipFiles(t *testing.T, path string) (map[string]tarFile, []string) {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files := map[string]tarFile{}
	var names []string
	for _, f := range r.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = tarFile{mode: f.Mode(), modTime: f.Modified, data: b}
		names = append(names, f.Name)
	}
	return files, names
}

// TestMcpbPack: packaging/mcpb/pack.sh makes one bundle per platform,
// named for it, each holding manifest.json at the version given less its
// v for that one platform, LICENSE and the platform's binary as
// server/folio, executable and byte for byte, every file stamped with
// SOURCE_DATE_EPOCH; the same inputs make the same bytes. A version that
// is not semantic, or a missing binary, packs nothing.
func TestMcpbPack(t *testing.T) {
	if _, err := exec.LookPath("zip"); err != nil {
		t.Skipf("zip: %v", err)
	}
	bindir := fakeBinaries(t, npmTargets)
	epoch := time.Date(2026, 3, 4, 5, 6, 8, 0, time.UTC)
	sde := fmt.Sprintf("SOURCE_DATE_EPOCH=%d", epoch.Unix())
	out, printed, err, stderr := packMcpb(t, "v1.2.3-rc.1", bindir, sde)
	if err != nil {
		t.Fatalf("packaging/mcpb/pack.sh: %v\n%s", err, stderr)
	}
	again, _, err, stderr := packMcpb(t, "v1.2.3-rc.1", bindir, sde)
	if err != nil {
		t.Fatalf("packaging/mcpb/pack.sh again: %v\n%s", err, stderr)
	}
	var want []string
	for _, target := range npmTargets {
		name := "folio_1.2.3-rc.1_" + target[0] + "_" + target[1] + ".mcpb"
		want = append(want, filepath.Join(out, name))
		path := filepath.Join(out, name)
		files, names := zipFiles(t, path)
		if !slices.Equal(names, []string{"manifest.json", "LICENSE", "server/folio"}) {
			t.Errorf("%s holds %v", name, names)
		}
		var m bundleManifest
		if err := json.Unmarshal(files["manifest.json"].data, &m); err != nil {
			t.Fatalf("%s: manifest.json: %v", name, err)
		}
		if m.Version != "1.2.3-rc.1" || !slices.Equal(m.Compatibility.Platforms, []string{target[0]}) || m.Server.Type != "binary" || m.Server.EntryPoint != "server/folio" {
			t.Errorf("%s: manifest %+v", name, m)
		}
		bin := files["server/folio"]
		if bin.mode != 0o755 || !strings.HasPrefix(string(bin.data), "#!/bin/sh\necho "+target[0]+"-"+target[1]+" ") {
			t.Errorf("%s: server/folio is %v %q", name, bin.mode, bin.data)
		}
		for file, f := range files {
			if !f.modTime.Equal(epoch) {
				t.Errorf("%s: %s is stamped %v, want %v", name, file, f.modTime, epoch)
			}
		}
		a, _ := os.ReadFile(path)
		b, _ := os.ReadFile(filepath.Join(again, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: packed twice from the same inputs, the bundles differ", name)
		}
	}
	if got := strings.Fields(printed); !slices.Equal(got, want) {
		t.Errorf("pack.sh printed %v, want %v", got, want)
	}

	for _, c := range []struct {
		name, version string
		targets       [][2]string
		stderr        string
	}{
		{"not a version", "latest", npmTargets, "latest is not a semantic version"},
		{"two parts", "1.2", npmTargets, "1.2 is not a semantic version"},
		{"a binary missing", "1.2.3", npmTargets[1:], "folio-linux-amd64 (build it with GOOS=linux GOARCH=amd64)"},
	} {
		out, _, err, stderr := packMcpb(t, c.version, fakeBinaries(t, c.targets))
		entries, _ := os.ReadDir(out)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 || !strings.Contains(stderr, c.stderr) || strings.Count(stderr, "\n") != 1 || len(entries) > 0 {
			t.Errorf("%s: %v, %d files, %q", c.name, err, len(entries), stderr)
		}
	}
}

// TestMcpbBundle: this machine's bundle, made by packaging/mcpb/pack.sh
// from the folio built here, is run as a desktop client runs it: its
// manifest passes mcpb validate, mcpb unpack keeps the binary executable,
// the manifest's command is resolved by the mcpb library's own
// getMcpConfigForManifest (${__dirname} the unpacked folder, two folders
// chosen for user_config.directories), and an MCP client starting that
// command from / reads a file of each folder in pages, byte for byte.
// Without a folder chosen there is no command to start.
func TestMcpbBundle(t *testing.T) {
	dir, node := mcpbDir(t)
	if _, err := exec.LookPath("zip"); err != nil {
		t.Fatalf("zip: %v", err)
	}
	here := [2]string{runtime.GOOS, runtime.GOARCH}
	if !slices.Contains(npmTargets, here) {
		t.Skipf("no bundle is made for %s/%s", here[0], here[1])
	}
	start := time.Now()
	// This machine's folio is the tests' own unless that was built with
	// the race detector; the other platforms' are stand-ins.
	bin := folioBin
	if raceEnabled {
		var err error
		bin, err = testmain.Build("folio-"+here[0]+"-"+here[1], ".", []string{"CGO_ENABLED=0"}, "-trimpath")
		if err != nil {
			t.Fatal(err)
		}
	}
	// Copied without its executable bit, as a download may leave it:
	// pack.sh sets it.
	bindir := fakeBinaries(t, slices.DeleteFunc(slices.Clone(npmTargets), func(x [2]string) bool { return x == here }))
	if err := os.WriteFile(filepath.Join(bindir, "folio-"+here[0]+"-"+here[1]), fileBytes(t, bin), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err, stderr := packMcpb(t, "v0.1.0", bindir)
	if err != nil {
		t.Fatalf("packaging/mcpb/pack.sh: %v\n%s", err, stderr)
	}
	bundle := filepath.Join(out, "folio_0.1.0_"+here[0]+"_"+here[1]+".mcpb")
	if fi, err := os.Stat(bundle); err == nil {
		t.Logf("packed in %v: %s, %d bytes", time.Since(start).Round(time.Millisecond), filepath.Base(bundle), fi.Size())
	}

	// Installed: unpacked where the client keeps its extensions.
	unpacked := filepath.Join(t.TempDir(), "Claude Extensions", "folio")
	runMcpb(t, "unpack", bundle, unpacked)
	manifest := filepath.Join(unpacked, "manifest.json")
	if got := runMcpb(t, "validate", manifest); !strings.Contains(got, "Manifest schema validation passes") {
		t.Errorf("mcpb validate: %s", got)
	}
	if got := runMcpb(t, "info", bundle); !strings.Contains(got, filepath.Base(bundle)) {
		t.Errorf("mcpb info: %s", got)
	}
	var m bundleManifest
	if b, err := os.ReadFile(manifest); err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest.json: %v %s", err, b)
	}
	if uc := m.UserConfig["directories"]; uc.Type != "directory" || !uc.Multiple || !uc.Required || m.ManifestVersion != "0.3" ||
		m.Name != "folio" || m.Version != "0.1.0" || !slices.Equal(m.Compatibility.Platforms, []string{here[0]}) {
		t.Errorf("manifest: %+v", m)
	}
	entry := filepath.Join(unpacked, filepath.FromSlash(m.Server.EntryPoint))
	if fi, err := os.Stat(entry); err != nil {
		t.Fatal(err)
	} else if fi.Mode().Perm()&0o111 != 0o111 {
		t.Fatalf("the entry point %s after mcpb unpack is %v, not executable", m.Server.EntryPoint, fi.Mode())
	}
	if a, b := fileBytes(t, entry), fileBytes(t, bin); !bytes.Equal(a, b) {
		t.Fatalf("the bundle's %s is not the folio packed (%d bytes, want %d)", m.Server.EntryPoint, len(a), len(b))
	}

	// The command the client starts, resolved by mcpb's library.
	resolve := func(userConfig string) (mcpConfig, string, error) {
		cmd := exec.Command(node, filepath.Join(dir, "resolve.mjs"), manifest, unpacked, userConfig, t.TempDir())
		cmd.Env = testmain.Env(t)
		var errb strings.Builder
		cmd.Stderr = &errb
		b, err := cmd.Output()
		var c mcpConfig
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		return c, errb.String(), err
	}
	first, second := t.TempDir(), filepath.Join(t.TempDir(), "with space, and comma")
	text := strings.Repeat("installed as a bundle, 中文 and 🙂, line by line\n", 200)
	write(t, first, "docs/a.md", text)
	write(t, second, "b.md", text[:1000])
	choice, _ := json.Marshal(map[string][]string{"directories": {first, second}})
	c, warnings, err := resolve(string(choice))
	if err != nil || warnings != "" {
		t.Fatalf("resolving mcp_config: %v\n%s", err, warnings)
	}
	// The folders come after "--": one whose name begins with a dash is a
	// folder still, not a flag.
	if c.Command != entry || !slices.Equal(c.Args, []string{"serve", "--", first, second}) {
		t.Fatalf("mcp_config resolves to %+v", c)
	}
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = "/"
	env := []string{}
	for k, v := range c.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = testmain.Env(t, env...)
	var serverErr strings.Builder
	cmd.Stderr = &serverErr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-desktop-like", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting %s %v: %v\n%s", c.Command, c.Args, err, serverErr.String())
	}
	if got := readAll(t, cs, "docs/a.md", 300); got != text {
		t.Errorf("docs/a.md of the first folder: %d bytes, want %d", len(got), len(text))
	}
	if got := readAll(t, cs, filepath.Join(second, "b.md"), 100); got != text[:1000] {
		t.Errorf("b.md of the second folder: %d bytes, want 1000", len(got))
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v\n%s", err, serverErr.String())
	}
	t.Logf("read through the bundle at %v", time.Since(start).Round(time.Millisecond))

	// No folder chosen: the client has nothing to start.
	var exit *exec.ExitError
	if _, warnings, err := resolve(`{"directories": []}`); !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(warnings, "missing required configuration") {
		t.Errorf("without folders: %v %s", err, warnings)
	}
}

// mcpConfig is a bundle's mcp_config once resolved: what the client runs.
type mcpConfig struct {
	Command string
	Args    []string
	Env     map[string]string
}

// fileBytes is the content of the file at path.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
