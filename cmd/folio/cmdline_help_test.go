package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpTexts: every command's --help (and -h, and "folio help
// COMMAND") prints the text in testdata/help, which is what
// urfave/cli's App.Run printed before runCommands took its place, byte for
// byte, but for the help's changes since (serve's DIRs) and where urfave
// printed less ("folio help token" stopped after USAGE) ("(devel)" there
// stands for the version this build prints).
func TestHelpTexts(t *testing.T) {
	version := strings.TrimPrefix(strings.TrimSuffix(folio(t, "", "--version").stdout, "\n"), "folio version ")
	golden, err := filepath.Glob(filepath.Join("testdata", "help", "*.txt"))
	if err != nil || len(golden) < 17 {
		t.Fatalf("testdata/help: %d files, %v", len(golden), err)
	}
	for _, path := range golden {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(string(b), "   (devel)\n", "   "+version+"\n", 1)
		name := strings.Fields(strings.ReplaceAll(strings.TrimSuffix(filepath.Base(path), ".txt"), "-", " "))
		if name[0] == "folio" {
			name = nil
		}
		if len(name) == 2 && name[0] == "llms" {
			name = []string{"llms-txt"}
		}
		runs := [][]string{append(name, "--help"), append(name, "-h")}
		if len(name) == 1 {
			runs = append(runs, []string{"help", name[0]})
		}
		if len(name) == 0 {
			runs = append(runs, []string{"help"}, nil)
		}
		for _, args := range runs {
			r := folio(t, "", args...)
			if r.code != 0 || r.stdout != want || r.stderr != "" {
				t.Errorf("folio %s: exit %d, stderr %q, stdout differs from %s:\n%s", strings.Join(args, " "), r.code, r.stderr, path, r.stdout)
			}
		}
	}
}

// TestHelpErrors: the help of a command folio does not have, and a
// required flag missing (the command's help on stdout, the error on
// stderr), as urfave/cli reported them.
func TestHelpErrors(t *testing.T) {
	tokenAdd, err := os.ReadFile(filepath.Join("testdata", "help", "token-add.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args           []string
		stdout, stderr string
	}{
		{[]string{"bogus"}, "", "folio: No help topic for 'bogus'\n"},
		{[]string{"help", "bogus"}, "", "folio: No help topic for 'bogus'\n"},
		{[]string{"token", "bogus"}, "", "folio: No help topic for 'bogus'\n"},
		{[]string{"token", "add", "--tokens", "x"}, string(tokenAdd), "folio: Required flag \"subject\" not set\n"},
		{[]string{"token", "add"}, string(tokenAdd), "folio: Required flags \"tokens, subject\" not set\n"},
		{[]string{"help", "--bogus"}, "", "folio: flag provided but not defined: -bogus\nRun 'folio help --help' for usage.\n"},
		{[]string{"h", "-x"}, "", "folio: flag provided but not defined: -x\nRun 'folio help --help' for usage.\n"},
		{[]string{"token", "help", "--bogus"}, "", "folio: flag provided but not defined: -bogus\nRun 'folio token help --help' for usage.\n"},
	} {
		r := folio(t, "", tc.args...)
		if r.code != exitInvalidArgument || r.stdout != tc.stdout || r.stderr != tc.stderr {
			t.Errorf("folio %s: exit %d, stderr %q (want %q), stdout %q (want %q)", strings.Join(tc.args, " "), r.code, r.stderr, tc.stderr, r.stdout, tc.stdout)
		}
	}
}

// TestTemplatesLeftOut: the binary links no text/template execution,
// whose reflective method lookup (reflect.Value.MethodByName) makes the
// linker keep every exported method of every type: about 10 MB of the
// release binary. urfave/cli's App.Run (its help) and golang.org/x/net/trace
// (linked by grpc unless built with -tags grpcnotrace) bring it in.
func TestTemplatesLeftOut(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", folioBin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !bytes.Contains(out, []byte(" main.flagsFirst")) {
		t.Fatalf("go tool nm lists no main.flagsFirst: is the binary stripped?")
	}
	for _, sym := range []string{"text/template.(*state).evalField", "golang.org/x/net/trace.", "github.com/urfave/cli/v2.printHelpCustom"} {
		if bytes.Contains(out, []byte(sym)) {
			t.Errorf("the binary links %s", sym)
		}
	}
}
