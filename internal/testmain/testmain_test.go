package testmain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m, nil) }

// TestRunLeavesNothing runs this test binary again, its test TestChild
// doing what a package's tests do, with TMPDIR and HOME of its own: a
// program built and run, a file written to the test's own home, or to
// the home of the whole binary. Afterwards TMPDIR is empty and HOME
// untouched; a file in the shared home fails the run, and names the file.
func TestRunLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		does string
		fail bool
	}{
		{"build", false},
		{"own home", false},
		{"shared home", true},
	} {
		t.Run(tc.does, func(t *testing.T) {
			tmp, home := t.TempDir(), t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTMAIN_CHILD="+tc.does, "TMPDIR="+tmp, "HOME="+home,
				"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tc.fail {
				t.Fatalf("the run failed: %v, want %v\n%s", failed, tc.fail, out)
			}
			if tc.fail && !strings.Contains(string(out), filepath.Join("home", ".local", "state", "folio", "cursor.key")) {
				t.Errorf("the failure does not name the file:\n%s", out)
			}
			for dir, what := range map[string]string{tmp: "TMPDIR", home: "HOME"} {
				if left := filesUnder(dir); len(left) > 0 {
					t.Errorf("the run left %v in %s\n%s", left, what, out)
				}
			}
		})
	}
}

// TestChild is what TestRunLeavesNothing runs.
func TestChild(t *testing.T) {
	switch os.Getenv("TESTMAIN_CHILD") {
	case "":
		t.Skip("run by TestRunLeavesNothing")
	case "build":
		bin, err := Build("hello", filepath.Join("testdata", "hello"), nil)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Build("hello", "elsewhere", nil)
		if err != nil || again != bin {
			t.Fatalf("built again: %q %v", again, err)
		}
		if out, err := exec.Command(bin).Output(); err != nil || string(out) != "hello\n" {
			t.Fatalf("%s: %v %q", bin, err, out)
		}
	case "own home":
		keyFile(t, StateHome(t))
		cmd := exec.Command("sh", "-c", `mkdir -p "$XDG_STATE_HOME/folio" && echo k > "$XDG_STATE_HOME/folio/fold.key"`)
		cmd.Env = Env(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	case "shared home":
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		keyFile(t, filepath.Join(home, ".local", "state"))
	}
}

// keyFile writes folio/cursor.key in the state directory dir.
func keyFile(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "folio"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "folio", "cursor.key"), []byte("k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
