package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
)

func countCommand() *cli.Command {
	return &cli.Command{
		Name:      "count",
		Usage:     "print the tokens of each file and the total",
		ArgsUsage: "PATH… (or - for standard input)",
		Flags:     []cli.Flag{tokenizerFlag(), maxFileBytesFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return fail(c, false, usageError(c, "count takes at least one PATH, or -"))
			}
			counter, err := pagerCounter(c)
			if err != nil {
				return fail(c, false, err)
			}
			fs, err := fsview.Open([]string{"/"}, fsview.Options{MaxFileBytes: c.Int64("max-file-bytes")})
			if err != nil {
				return fail(c, false, err)
			}
			defer fs.Close()
			total, code := 0, 0
			for _, arg := range c.Args().Slice() {
				text, err := countText(c.Context, c, fs, arg)
				if err != nil {
					e := localError(arg, err)
					code = exitCode(e.Code)
					fmt.Fprintf(c.App.ErrWriter, "folio: %s: %v\n", arg, e.Message)
					continue
				}
				n := counter.Count(string(text))
				total += n
				fmt.Fprintf(c.App.Writer, "%d\t%s\n", n, arg)
			}
			if c.NArg() > 1 {
				fmt.Fprintf(c.App.Writer, "%d\ttotal\n", total)
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

// countText reads the text to count: standard input for "-", else the file.
func countText(ctx context.Context, c *cli.Context, fs *fsview.FS, arg string) ([]byte, error) {
	if arg == "-" {
		b, err := io.ReadAll(c.App.Reader)
		if err != nil {
			return nil, err
		}
		if !fsview.IsText(b) {
			return nil, fmt.Errorf("%w: standard input is not valid UTF-8, or holds a NUL byte", fsview.ErrNotText)
		}
		return b, nil
	}
	f, err := fs.Regular(localName(arg))
	if err != nil {
		return nil, err
	}
	snap, err := fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, err
	}
	snap.Release() // one file at a time: no other read waits
	return snap.Window, nil
}
