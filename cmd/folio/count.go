package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func countCommand() *cli.Command {
	return &cli.Command{
		Name:      "count",
		Usage:     "print the tokens of each file, of each text file under a directory, and the total",
		ArgsUsage: "PATH… (files or directories; - for standard input)",
		Description: `Prints "TOKENS	PATH" per file, and the total ("TOKENS	total") when there
are several PATHs or a directory among them. A directory's text files are each
counted, named by the directory as given and their path under it, as verify
walks them: the default deny list and --deny, the ignore files (--no-ignore to
count what they exclude) and --max-file-bytes apply; files that are not text or
that those rules hide are left out, and a file over --max-file-bytes is named on
stderr. Like ttok, one PATH (a file, or -) can also be:
--truncate N: printed up to its longest prefix of at most N tokens, cut where
a person would (as read --format raw cuts chunks; --tight as late as N allows);
--tokens: printed as its token ids, one per line; --decode: read as token ids
(whitespace between them) and printed as the text they stand for.

A file is held whole to be counted, under --max-file-bytes; - (standard input)
is counted as it is read, a few windows held at a time, and so is --truncate:
no size cap applies to them unless --max-file-bytes is given.

Exit codes: 2 invalid argument, 3 not found, 4 not text or too large (a file
named), 1 other.

Flags go before or after the PATHs; -- ends them (folio count -- -notes.md).`,
		Flags: []cli.Flag{tokenizerFlag(),
			maxFileBytesFlag("refuse a file larger than this (a count holds it whole; under a directory, leave it out), and standard input as large with --tokens or --decode (0: no cap); - counted, and --truncate, stream, with no cap unless this is given"),
			&cli.StringSliceFlag{Name: "deny", EnvVars: []string{"FOLIO_DENY"}, Usage: "under a directory, leave out files matching this glob, on top of the default deny list (repeatable)"},
			noIgnoreFlag(),
			&cli.IntFlag{Name: "truncate", Usage: "print the longest prefix of at most N tokens"},
			&cli.BoolFlag{Name: "tight", Usage: "--truncate: cut as late as N allows, not where a person would"},
			&cli.BoolFlag{Name: "tokens", Usage: "print the token ids, one per line"},
			&cli.BoolFlag{Name: "decode", Usage: "read token ids and print their text"},
		},
		Action: countAction,
	}
}

// countAction prints the tokens of each PATH (each file under a
// directory) and the total, or does what --truncate, --tokens or --decode
// ask.
func countAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return fail(c, false, usageError(c, "count takes at least one PATH, or -"))
	}
	counter, err := pagerCounter(c)
	if err != nil {
		return fail(c, false, err)
	}
	if mode := countMode(c); mode != "" {
		if err := countAs(c, mode, counter); err != nil {
			return fail(c, false, err)
		}
		return nil
	}
	if c.Bool("tight") {
		return fail(c, false, usageError(c, "--tight is for --truncate"))
	}
	fs, err := fsview.Open([]string{"/"}, fsview.Options{MaxFileBytes: c.Int64("max-file-bytes")})
	if err != nil {
		return fail(c, false, err)
	}
	defer fs.Close()
	total, code, tree := 0, 0, false
	for _, arg := range c.Args().Slice() {
		if info, err := os.Stat(localName(arg)); arg != fsview.StdinName && err == nil && info.IsDir() {
			n, treeCode := countTree(c, arg, counter)
			total, tree, code = total+n, true, max(code, treeCode)
			continue
		}
		n, err := countOf(c, fs, arg, counter)
		if err != nil {
			e := localError(arg, err)
			code = exitCode(e.Code)
			fmt.Fprintf(c.App.ErrWriter, "folio: %s: %v\n", arg, e.Message)
			continue
		}
		total += n
		fmt.Fprintf(c.App.Writer, "%d\t%s\n", n, arg)
	}
	if c.NArg() > 1 || tree {
		fmt.Fprintf(c.App.Writer, "%d\ttotal\n", total)
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// countTree prints the tokens of each text file under the directory arg,
// as verify walks it (the deny lists, the ignore files, the size cap),
// and returns their sum and the exit code of what failed (0 for none).
// Files that are not text, or that the deny lists hide, are left out; one
// over the size cap is left out and named on stderr.
func countTree(c *cli.Context, arg string, counter pager.Counter) (total, code int) {
	warn := func(name string, err error) int {
		e := toolerr.From(err)
		fmt.Fprintf(c.App.ErrWriter, "folio: %s: %s\n", name, e.Message)
		return exitCode(e.Code)
	}
	dir := localName(arg)
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: append(fsview.DefaultDeny(), c.StringSlice("deny")...),
		MaxFileBytes: c.Int64("max-file-bytes"), NoIgnore: c.Bool("no-ignore")})
	if err != nil {
		return 0, warn(arg, err)
	}
	defer fs.Close()
	var files []fsview.File
	err = fs.Walk(c.Context, dir, nil, func(f fsview.File, err error) error {
		if err == nil {
			files = append(files, f)
		}
		return nil // hidden: left out
	})
	if err != nil {
		return 0, warn(arg, err)
	}
	for _, f := range files {
		name := filepath.Join(arg, filepath.FromSlash(f.Rel))
		n, err := countFile(c, fs, f, counter)
		switch kind := toolerr.From(err); {
		case err == nil:
			total += n
			fmt.Fprintf(c.App.Writer, "%d\t%s\n", n, name)
		case kind.Code == toolerr.CodeTooLarge:
			fmt.Fprintf(c.App.ErrWriter, "folio: %s: left out: %s\n", name, kind.Message)
		case kind.Code != toolerr.CodeNotText && kind.Code != toolerr.CodeNotFound:
			code = warn(name, err)
		}
	}
	return total, code
}

// countFile counts the tokens of a file of fs.
func countFile(c *cli.Context, fs *fsview.FS, f fsview.File, counter pager.Counter) (int, error) {
	snap, err := fs.Content(c.Context, f) // counting needs no version
	if err != nil {
		return 0, err
	}
	snap.Release() // one file at a time: no other read waits
	return reader.CountText(c.Context, snap.Window, counter)
}

// countOf counts the tokens of a file, or of standard input for "-",
// streamed: memory holds a window of it, not all of it.
func countOf(c *cli.Context, fs *fsview.FS, arg string, counter pager.Counter) (int, error) {
	if arg == fsview.StdinName {
		return reader.Count(c.Context, c.App.Reader, counter, streamCap(c), "standard input")
	}
	text, err := countText(c.Context, c, fs, arg)
	if err != nil {
		return 0, err
	}
	return reader.CountText(c.Context, text, counter)
}

// countText reads the text to count: standard input for "-", else the file.
func countText(ctx context.Context, c *cli.Context, fs *fsview.FS, arg string) ([]byte, error) {
	if arg == fsview.StdinName {
		return fsview.ReadText(c.App.Reader, "standard input", c.Int64("max-file-bytes"))
	}
	f, err := fs.Regular(localName(arg))
	if err != nil {
		return nil, err
	}
	snap, err := fs.Content(ctx, f) // counting needs no version
	if err != nil {
		return nil, err
	}
	snap.Release() // one file at a time: no other read waits
	return snap.Window, nil
}

// countMode is the one of --truncate, --tokens and --decode given, or "".
func countMode(c *cli.Context) string {
	mode := ""
	for _, m := range []string{"truncate", "tokens", "decode"} {
		if c.IsSet(m) {
			if mode != "" {
				return "two"
			}
			mode = m
		}
	}
	return mode
}

// countAs does what --truncate, --tokens or --decode (mode) ask, on the
// one PATH.
func countAs(c *cli.Context, mode string, counter pager.Counter) error {
	switch {
	case mode == "two":
		return usageError(c, "--truncate, --tokens and --decode are three things to do: give one")
	case c.NArg() != 1:
		return usageError(c, fmt.Sprintf("--%s takes one PATH, or -", mode))
	case c.IsSet("tight") && mode != "truncate":
		return usageError(c, "--tight is for --truncate")
	}
	out := bufio.NewWriter(c.App.Writer)
	defer out.Flush()
	arg := c.Args().First()
	if mode == "truncate" {
		src, name, err := chunkSource(c, readOptions{stdin: arg == fsview.StdinName, name: arg, maxFileBytes: c.Int64("max-file-bytes"), args: wire.ReadArgs{Path: localName(arg)}})
		if err != nil {
			return err
		}
		defer src.Close()
		err = reader.Chunks(c.Context, src, reader.ChunkRequest{Counter: counter, MaxTokens: c.Int("truncate"), Tight: c.Bool("tight"), MaxBytes: streamCap(c), Name: name}, func(chunk []byte, _ int) error {
			out.Write(chunk)
			return errStop
		})
		if errors.Is(err, errStop) {
			return nil
		}
		return err
	}
	tk, ok := counter.(tokencount.Tokenizer)
	if !ok {
		return usageError(c, fmt.Sprintf("--%s needs a tokenizer with token ids: o200k_base or cl100k_base, not %s", mode, counter.Name()))
	}
	fs, err := fsview.Open([]string{"/"}, fsview.Options{MaxFileBytes: c.Int64("max-file-bytes")})
	if err != nil {
		return err
	}
	defer fs.Close()
	text, err := countText(c.Context, c, fs, arg)
	if err != nil {
		return localError(arg, err)
	}
	if mode == "tokens" {
		for _, id := range tk.Encode(string(text)) {
			out.WriteString(strconv.FormatUint(uint64(id), 10))
			out.WriteByte('\n')
		}
		return nil
	}
	var ids []uint32
	for _, f := range strings.Fields(string(text)) {
		id, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			return toolerr.Invalid("--decode reads token ids, whole numbers: %q is not one", f)
		}
		ids = append(ids, uint32(id))
	}
	b, err := tk.Decode(ids)
	if err != nil {
		return toolerr.Invalid("--decode: %v", err)
	}
	_, err = out.Write(b)
	return err
}
