// Package testmain runs a test binary inside a temporary directory of its
// own, removed when the tests end: the programs its tests build (folio,
// fakemcp, rawmcp, the collector), each built once per test binary, and a
// home (HOME and the XDG directories) for whatever the tests run, so that
// nothing is left in the temporary directory or written to the real home.
//
// A package whose tests build programs or start folio calls Main from its
// TestMain:
//
//	func TestMain(m *testing.M) { testmain.Main(m, nil) }
package testmain

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// run is the test binary's run, made by Main before any test and read
// only after: the temporary directory, where programs are built, the
// home the tests may not write to, and the builds. Package state, because
// a build is shared by every test of the binary.
var run struct {
	dir, bin, home string
	// ctx ends when the tests have ended: a build still going on in the
	// background is stopped.
	ctx    context.Context
	cancel context.CancelFunc
	// background are the builds started by Prebuild.
	background sync.WaitGroup
	builds     sync.Map // name → *build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// Main runs the tests of m inside a temporary directory and exits with
// their code; setup, when not nil, runs first (to build what every test
// needs), and its error ends the run. In that directory are the programs
// Build builds and a home: HOME, XDG_STATE_HOME, XDG_CACHE_HOME and
// XDG_DATA_HOME point there for the whole binary, so that in-process code
// and every program the tests start keep their state there, not in the
// real home (the go command keeps its caches and settings: GOCACHE,
// GOMODCACHE, GOPATH and XDG_CONFIG_HOME are pinned to the real ones
// first). A test gives the programs it starts a home of its own (Env);
// what was written to the shared one means a test did not, and fails the
// run, naming the files. Then the directory is removed.
func Main(m *testing.M, setup func() error) {
	os.Exit(runTests(m, setup))
}

func runTests(m *testing.M, setup func() error) int {
	flag.Parse() // for Prebuild, which looks at -test.run
	dir, err := os.MkdirTemp("", "folio-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testmain:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	run.dir, run.bin, run.home = dir, filepath.Join(dir, "bin"), filepath.Join(dir, "home")
	run.ctx, run.cancel = context.WithCancel(context.Background())
	if err := os.Mkdir(run.bin, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "testmain:", err)
		return 1
	}
	if err := isolate(run.home); err != nil {
		fmt.Fprintln(os.Stderr, "testmain:", err)
		return 1
	}
	if setup != nil {
		if err := setup(); err != nil {
			fmt.Fprintln(os.Stderr, "testmain:", err)
			stop()
			return 1
		}
	}
	code := m.Run()
	stop()
	if written := filesUnder(run.home); len(written) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "testmain: the tests wrote to the shared HOME, not to a test's own (start programs with testmain.Env):\n\t%s\n",
			strings.Join(written, "\n\t"))
		return 1
	}
	return code
}

// stop ends the builds still going on in the background, and waits for
// them.
func stop() {
	run.cancel()
	run.background.Wait()
}

// isolate points HOME and the XDG directories of state, cache and data at
// home, having pinned the go command's own directories to where they are
// now.
func isolate(home string) error {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return fmt.Errorf("go env: %w", err)
	}
	goDirs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(goDirs) != 3 {
		return fmt.Errorf("go env said %q", out)
	}
	config, err := os.UserConfigDir()
	if err != nil {
		return err
	}
	for i, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		os.Setenv(name, goDirs[i])
	}
	os.Setenv("XDG_CONFIG_HOME", config)
	for name, dir := range homeDirs(home) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		os.Setenv(name, dir)
	}
	return nil
}

// homeDirs are HOME and the XDG directories of state, cache and data
// in home.
func homeDirs(home string) map[string]string {
	return map[string]string{
		"HOME":           home,
		"XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"),
		"XDG_DATA_HOME":  filepath.Join(home, ".local", "share"),
	}
}

// filesUnder are the files in dir and below it.
func filesUnder(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// Env is the environment for a program test t starts: the binary's own,
// with HOME and the XDG directories of state, cache and data in a home of
// t's own (the same for every call in one test, another in each test, in
// the directory Main removes), then extra (a later name wins).
func Env(t testing.TB, extra ...string) []string {
	t.Helper()
	env := os.Environ()
	for name, dir := range homeDirs(testHome(t)) {
		env = append(env, name+"="+dir)
	}
	return append(env, extra...)
}

// StateHome is the XDG_STATE_HOME of the programs test t starts (Env).
func StateHome(t testing.TB) string {
	t.Helper()
	return homeDirs(testHome(t))["XDG_STATE_HOME"]
}

// testHome makes the home of test t, named for it.
func testHome(t testing.TB) string {
	t.Helper()
	if run.dir == "" {
		t.Fatal("testmain: the package's TestMain does not call testmain.Main")
	}
	name := strings.ReplaceAll(t.Name(), "/", "_")
	if len(name) > 200 {
		h := fnv.New64a()
		h.Write([]byte(name))
		name = fmt.Sprintf("%s-%x", name[:180], h.Sum64())
	}
	home := filepath.Join(run.dir, "tests", name)
	for _, dir := range homeDirs(home) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// Build builds the Go main package in the directory pkg as the program
// name, once per test binary, and returns its path: in the directory
// Main removes. env is added to the go command's environment, flags go
// after "go build". A test that needs the program calls it (it waits for
// a build Prebuild started); the first call's pkg, env and flags are the
// ones built.
func Build(name, pkg string, env []string, flags ...string) (string, error) {
	if run.dir == "" {
		return "", errors.New("testmain.Build " + name + ": the package's TestMain does not call testmain.Main")
	}
	v, _ := run.builds.LoadOrStore(name, &build{})
	b := v.(*build)
	b.once.Do(func() { b.path, b.err = goBuild(run.ctx, name, pkg, env, flags) })
	return b.path, b.err
}

// Prebuild starts Build in the background when the whole package runs (no
// -test.run), so that the program is ready, or nearly, when the first
// test asks for it; with -test.run, a program is built when a test first
// asks for it, and only then. A build still going on when the tests end
// is stopped.
func Prebuild(name, pkg string, env []string, flags ...string) {
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" {
		return
	}
	run.background.Go(func() { Build(name, pkg, env, flags...) })
}

// goBuild runs go build in a process group of its own, killed when ctx
// ends (with the compilers it started).
func goBuild(ctx context.Context, name, pkg string, env, flags []string) (string, error) {
	path := filepath.Join(run.bin, name)
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build", "-o", path}, flags...), ".")...)
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s in %s: %w\n%s", name, pkg, err, out)
	}
	return path, nil
}
