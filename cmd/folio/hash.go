package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/fsview"
)

func hashCommand() *cli.Command {
	return &cli.Command{
		Name:      "hash",
		Usage:     "print each file's content version, as pages carry it",
		ArgsUsage: "PATH… (- for standard input)",
		Description: `Prints "VERSION  PATH" per file. VERSION is the first 32 hex digits of the
file's BLAKE3 hash: check it with b3sum PATH | cut -c1-32. - hashes standard
input, streamed, whatever it holds. -- ends the flags (folio hash -- -notes.md).`,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return fail(c, false, usageError(c, "hash takes at least one PATH"))
			}
			fs, err := fsview.Open([]string{"/"}, fsview.Options{})
			if err != nil {
				return fail(c, false, err)
			}
			defer fs.Close()
			code := 0
			for _, arg := range c.Args().Slice() {
				if arg == fsview.StdinName {
					h := blake3.New()
					if _, err := io.Copy(h, c.App.Reader); err != nil {
						return fail(c, false, fmt.Errorf("reading standard input: %w", err))
					}
					fmt.Fprintf(c.App.Writer, "%s  %s\n", fsview.Version(h.Sum(nil)), arg)
					continue
				}
				f, err := fs.Regular(localName(arg))
				if err == nil {
					var v fsview.Version
					if v, _, err = fs.Hash(c.Context, f); err == nil {
						fmt.Fprintf(c.App.Writer, "%s  %s\n", v, arg)
						continue
					}
				}
				e := localError(arg, err)
				fmt.Fprintf(c.App.ErrWriter, "folio: %s: %s\n", arg, e.Message)
				code = exitCode(e.Code)
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print folio's version, commit, build date, Go version and platform",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "folio %s %s %s/%s\n", versionLine(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

// The release build stamps these in with
// -ldflags "-X main.version=V -X main.commit=C -X main.date=D"; a build
// without them reads what Go recorded (folioVersion, buildStamp).
var (
	version string // the release, e.g. v0.1.0
	commit  string // the commit it was built from
	date    string // when it was built (RFC 3339)
)

// folioVersion is the release stamped in, else the module version Go
// recorded ("go install …@v0.1.0"), else "(devel)" for a build from a
// work tree.
func folioVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionLine is folioVersion followed by the commit and the build time
// when they are known: those stamped in, else the revision and commit
// time Go recorded from the work tree ("+dirty" for uncommitted changes).
func versionLine() string {
	c, d := buildStamp()
	v := folioVersion()
	switch {
	case c != "" && d != "":
		return fmt.Sprintf("%s (commit %s, built %s)", v, c, d)
	case c != "":
		return fmt.Sprintf("%s (commit %s)", v, c)
	}
	return v
}

// buildStamp is the commit and date stamped in, else the vcs.revision and
// vcs.time Go's build info holds (empty for a module built by go install).
func buildStamp() (rev, when string) {
	if commit != "" || date != "" {
		return commit, date
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev, when
}
