package secret

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(file, []byte("  from-file\n"), 0o600)
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	t.Setenv("SECRET_TEST", "from-env")
	t.Setenv("SECRET_EMPTY", "")
	for _, c := range []struct{ env, path, want, err string }{
		{"SECRET_TEST", "", "from-env", ""},
		{"", file, "from-file", ""},
		{"SECRET_EMPTY", "", "", "env: $SECRET_EMPTY is empty"},
		{"", empty, "", "file: " + empty + " is empty"},
		{"", filepath.Join(t.TempDir(), "none"), "", "file: open"},
	} {
		got, err := Read(c.env, c.path, "env", "file")
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%+v: %q %v", c, got, err)
		}
	}
}
