package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
)

// folioIn is folio run in the directory dir, so that its PATHs can be
// relative names, such as ones that start with '-'.
func folioIn(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, folioBin, args...)
	cmd.Dir = dir
	cmd.Env = testmain.Env(t)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// cmdlineText is a small text (one page at the budgets below) whose count
// differs between the tokenizers.
const cmdlineText = "# Notes\n\n中文的句子，和一些 English words. Emoji 😀👍🏽.\n日本語の文も少しあります。\n"

// TestFlagsAfterPaths: every command takes its flags after its PATHs as
// it takes them before (as ripgrep and ttok do), each flag that takes a
// value with the argument after it, a boolean flag with none: the same
// output and exit code, and not what the command gives without the flags
// (so they were not left out).
func TestFlagsAfterPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notes := write(t, dir, "notes.md", cmdlineText)
	other := write(t, dir, "other.md", "other words\n")
	for _, tc := range []struct {
		name  string
		stdin string
		typed []string // as people type it
		flags []string // typed's flags, given first
		bare  []string // without the flags
	}{
		{"read a page", "", []string{"read", notes, "--max-tokens", "500"}, []string{"read", "--max-tokens", "500", notes}, []string{"read", notes}},
		{"read lines", "", []string{"read", notes, "--offset", "-2", "--limit", "1"}, []string{"read", "--offset", "-2", "--limit", "1", notes}, []string{"read", notes}},
		{"read a text page", "", []string{"read", notes, "--format", "text", "--max-tokens", "300"}, []string{"read", "--format", "text", "--max-tokens", "300", notes}, []string{"read", notes}},
		{"read chunks of stdin", cmdlineText, []string{"read", "-", "--format=raw", "--max-tokens", "12", "--all", "-0", "--tight"}, []string{"read", "--format=raw", "--max-tokens", "12", "--all", "-0", "--tight", "-"}, []string{"read", "-"}},
		{"read stdin named", cmdlineText, []string{"read", "-", "--name", "stdin.md", "--max-tokens", "500"}, []string{"read", "--name", "stdin.md", "--max-tokens", "500", "-"}, []string{"read", "-"}},
		{"count", "", []string{"count", notes, "--tokenizer", "cl100k_base"}, []string{"count", "--tokenizer", "cl100k_base", notes}, []string{"count", notes}},
		{"count, a flag between paths", "", []string{"count", notes, "--tokenizer", "cl100k_base", other}, []string{"count", "--tokenizer", "cl100k_base", notes, other}, []string{"count", notes, other}},
		{"count stdin", cmdlineText, []string{"count", "-", "--tokenizer", "cl100k_base"}, []string{"count", "--tokenizer", "cl100k_base", "-"}, []string{"count", "-"}},
		{"count --truncate", "", []string{"count", notes, "--truncate", "5", "--tight"}, []string{"count", "--truncate", "5", "--tight", notes}, []string{"count", notes}},
		{"count --tokens", cmdlineText, []string{"count", "-", "--tokens", "--tokenizer", "cl100k_base"}, []string{"count", "--tokens", "--tokenizer", "cl100k_base", "-"}, []string{"count", "-"}},
		{"hash --help", "", []string{"hash", notes, "--help"}, []string{"hash", "--help", notes}, []string{"hash", notes}},
		{"verify", "", []string{"verify", notes, "--max-tokens", "100,400", "--tokenizer", "cl100k_base"}, []string{"verify", "--max-tokens", "100,400", "--tokenizer", "cl100k_base", notes}, []string{"verify", notes}},
		{"verify --json", "", []string{"verify", notes, "--json", "--format", "text"}, []string{"verify", "--json", "--format", "text", notes}, []string{"verify", notes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typed, flags, bare := folio(t, tc.stdin, tc.typed...), folio(t, tc.stdin, tc.flags...), folio(t, tc.stdin, tc.bare...)
			if flags.code != 0 || bare.code != 0 {
				t.Fatalf("flags first: exit %d: %s; without them: exit %d: %s", flags.code, flags.stderr, bare.code, bare.stderr)
			}
			if typed.code != 0 || scrub(typed.stdout) != scrub(flags.stdout) {
				t.Errorf("%q: exit %d: %q %s\nwant %q", tc.typed, typed.code, typed.stdout, typed.stderr, flags.stdout)
			}
			if scrub(flags.stdout) == scrub(bare.stdout) {
				t.Errorf("%q gives what %q gives: %q", tc.flags, tc.bare, flags.stdout)
			}
		})
	}
	// A flag that takes a value, last and without one, is refused as
	// the flag parser refuses it, not taken as a PATH.
	if r := folio(t, "", "read", notes, "--max-tokens"); r.code != exitInvalidArgument || !strings.Contains(r.stderr, "flag needs an argument: -max-tokens") {
		t.Errorf("a value missing: exit %d: %s", r.code, r.stderr)
	}
	if r := folio(t, "", "count", notes, "--bogus"); r.code != exitInvalidArgument || !strings.Contains(r.stderr, "flag provided but not defined: -bogus") {
		t.Errorf("an unknown flag after a PATH: exit %d: %s", r.code, r.stderr)
	}
}

// scrub leaves out of verify's summary what changes from run to run: its
// timings, when there are any.
func scrub(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.Contains(line, `"elapsed`) && !strings.Contains(line, `"seconds`) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestDoubleDashEndsFlags: after "--" every argument is a PATH, even one
// named like a flag; before it flags still come before and after PATHs;
// "-" alone is standard input, wherever it is among the flags.
func TestDoubleDashEndsFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "-notes.md", cmdlineText)
	write(t, dir, "--tokenizer", "a file named like a flag\n")
	write(t, dir, "a.md", "a\n")
	tk, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := tokencount.New(tokencount.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	n := func(c pager.Counter, s string) string { return strconv.Itoa(c.Count(s)) }
	version := fsview.VersionOf([]byte(cmdlineText)).String()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"count", "--", "-notes.md"}, n(tk, cmdlineText) + "\t-notes.md\n"},
		{[]string{"count", "a.md", "--", "--tokenizer"}, n(tk, "a\n") + "\ta.md\n" + n(tk, "a file named like a flag\n") + "\t--tokenizer\n" + strconv.Itoa(tk.Count("a\n")+tk.Count("a file named like a flag\n")) + "\ttotal\n"},
		{[]string{"count", "a.md", "--tokenizer", "cl100k_base", "--", "-notes.md"}, n(cl, "a\n") + "\ta.md\n" + n(cl, cmdlineText) + "\t-notes.md\n" + strconv.Itoa(cl.Count("a\n")+cl.Count(cmdlineText)) + "\ttotal\n"},
		{[]string{"count", "--tokenizer", "cl100k_base", "-", "a.md"}, n(cl, cmdlineText) + "\t-\n" + n(cl, "a\n") + "\ta.md\n" + strconv.Itoa(cl.Count("a\n")+cl.Count(cmdlineText)) + "\ttotal\n"},
		{[]string{"read", "--", "-notes.md"}, cmdlineText},
		{[]string{"read", "--offset", "3", "--", "-notes.md"}, strings.SplitAfterN(cmdlineText, "\n", 3)[2]},
		{[]string{"read", "-", "--offset", "3"}, strings.SplitAfterN(cmdlineText, "\n", 3)[2]},
		{[]string{"hash", "--", "-notes.md", "--tokenizer"}, version + "  -notes.md\n" + fsview.VersionOf([]byte("a file named like a flag\n")).String() + "  --tokenizer\n"},
		{[]string{"hash", "a.md", "-"}, fsview.VersionOf([]byte("a\n")).String() + "  a.md\n" + version + "  -\n"},
	} {
		if r := folioIn(t, dir, cmdlineText, tc.args...); r.code != 0 || r.stdout != tc.want {
			t.Errorf("%q: exit %d: %q %s\nwant %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if r := folioIn(t, dir, "", "verify", "--max-tokens", "400", "--", "-notes.md", "--tokenizer"); r.code != 0 || !strings.HasPrefix(r.stdout, "files 2, ") {
		t.Errorf("verify of files named like flags: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	// After "--", what looks like a flag is a PATH too.
	if r := folioIn(t, dir, "", "read", "--", "-notes.md", "--max-tokens", "500"); r.code != exitInvalidArgument || !strings.Contains(r.stderr, "read takes one PATH") {
		t.Errorf("flags after --: exit %d: %s", r.code, r.stderr)
	}
}

// TestStdinStreamsPastTheCap: count - and read --format raw - stream
// standard input, a window at a time, so that no size cap applies unless
// --max-file-bytes is given: 65 MiB, past the 64 MiB cap of what is held
// whole, is counted and chunked without a flag. read - in line mode holds
// its input whole, and keeps the cap. (A cap given is held by streams
// too: TestStdin.)
func TestStdinStreamsPastTheCap(t *testing.T) {
	t.Parallel()
	if raceEnabled || testing.Short() {
		t.Skip("65 MiB through the binary: not under -race or -short")
	}
	// 64 KiB of whole lines: the count of the input is the count of one
	// block times the blocks, as the pieces end at every line break.
	line := "The quick brown fox jumps over the lazy dog.\n"
	block := strings.Repeat(line, (64<<10)/len(line))
	const blocks = 1040 // 65 MiB, a little
	size := int64(len(block)) * blocks
	if size <= fsview.DefaultMaxFileBytes {
		t.Fatalf("%d bytes are not past the cap", size)
	}
	tk, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Count(block+block) != 2*tk.Count(block) {
		t.Fatal("the block's count does not add up")
	}
	run := func(args ...string) (stdout int64, tail string, stderr string, code int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, folioBin, args...)
		cmd.Env = testmain.Env(t)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out := &tailWriter{}
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			defer in.Close()
			for range blocks {
				if _, err := io.WriteString(in, block); err != nil {
					return // folio stopped reading
				}
			}
		}()
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.n, string(out.tail), errb.String(), code
	}
	tokens := tk.Count(block) * blocks
	want := strconv.Itoa(tokens) + "\t-\n"
	if _, tail, stderr, code := run("count", "-"); code != 0 || tail != want {
		t.Errorf("count - of %d bytes: exit %d: %q %s, want %q", size, code, tail, stderr, want)
	}
	// The chunks, a NUL after each, are the input.
	n, _, stderr, code := run("read", "--format", "raw", "--max-tokens", "2000", "--all", "-0", "-")
	// Each chunk holds at least half of what fits.
	if chunks := int(n - size); code != 0 || chunks < tokens/2000 || chunks > 2*tokens/2000+1 {
		t.Errorf("read --format raw - of %d bytes: exit %d, %d bytes written: %s", size, code, n, stderr)
	}
	// Held whole: refused past the cap, without a flag as before.
	if _, _, stderr, code := run("read", "-"); code != 4 || !strings.Contains(stderr, "cap") {
		t.Errorf("read - in line mode of %d bytes: exit %d: %s", size, code, stderr)
	}
}

// tailWriter counts what is written to it and keeps its last 256 bytes.
type tailWriter struct {
	n    int64
	tail []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 256 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-256:]...)
	}
	return len(p), nil
}

// TestUnknownFlag: a flag a command does not define is refused in one line
// that names it and a line that says where the help is, exit 2, nothing on
// stdout; not the whole help. So for folio itself and every command and
// subcommand (taken from the app, so that a new one is held to it too), with
// the flag before or after a PATH.
func TestUnknownFlag(t *testing.T) {
	var names [][]string
	leaf := map[string]bool{} // commands that take PATHs, not subcommands
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := append(slices.Clone(prefix), c.Name)
			names = append(names, name)
			leaf[strings.Join(name, " ")] = len(c.Subcommands) == 0
			walk(name, c.Subcommands)
		}
	}
	names = append(names, nil)
	walk(nil, newApp(nil, io.Discard, io.Discard).Commands)
	if len(names) < 15 {
		t.Fatalf("only %d commands: %v", len(names), names)
	}
	for _, name := range names {
		tries := [][]string{append(slices.Clone(name), "-x")}
		if leaf[strings.Join(name, " ")] {
			tries = append(tries, append(slices.Clone(name), "README.md", "--no-such-flag"))
		}
		for _, args := range tries {
			r := folio(t, "", args...)
			flag := strings.TrimLeft(args[len(args)-1], "-")
			want := "folio: flag provided but not defined: -" + flag + "\nRun '" + strings.Join(append([]string{"folio"}, name...), " ") + " --help' for usage.\n"
			if r.code != exitInvalidArgument || r.stderr != want || r.stdout != "" {
				t.Errorf("folio %s: exit %d, stderr %q (want %q), stdout %.200q", strings.Join(args, " "), r.code, r.stderr, want, r.stdout)
			}
		}
	}
	// A value missing, or not of its type: the same two lines.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http"}, "folio: flag needs an argument: -http\nRun 'folio serve --help' for usage.\n"},
		{[]string{"count", "--max-file-bytes", "many", "-"}, "folio: invalid value \"many\" for flag -max-file-bytes: parse error\nRun 'folio count --help' for usage.\n"},
	} {
		if r := folio(t, "", tc.args...); r.code != exitInvalidArgument || r.stderr != tc.want {
			t.Errorf("folio %v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
