package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/atomicfile"
	"github.com/folio-mcp/folio/llmstxt"
	"github.com/folio-mcp/folio/toolerr"
)

func llmsTxtCommand() *cli.Command {
	return &cli.Command{
		Name:      "llms-txt",
		Usage:     "write a docs tree's llms.txt and llms-full.txt",
		ArgsUsage: "DIR",
		Description: `Writes DIR/llms.txt and DIR/llms-full.txt (or into --out), each atomically.

llms.txt follows the llms.txt proposal (llmstxt.org): an H1 with the title (the
first heading of DIR's README or index, else DIR's name), the README's first
paragraph as a blockquote, then an H2 section per directory (DIR's own documents
first, as "Docs") with a line per document: "- [TITLE](PATH): its first
sentence". Links are relative to where llms.txt is written. Past --max-index-bytes
documents are counted, not listed, and a last line says how many.

llms-full.txt starts with the same H1 and summary; then every document is a line
"=== PATH (N bytes) ===", its N bytes exactly, and a newline. It is written as DIR
is walked, one document held at a time.

Documents are the text files with the extension of Markdown, MDX, HTML,
reStructuredText, AsciiDoc or plain text, walked as serve's list walks them: the
default deny list and --deny, the ignore files (unless --no-ignore), the size cap
and the text check apply. DIR's own llms.txt and llms-full.txt, and those in
--out, are never part of the new ones.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", EnvVars: []string{"FOLIO_OUT"}, Usage: "write the two files into this directory (created when missing) instead of DIR"},
			&cli.StringSliceFlag{Name: "deny", EnvVars: []string{"FOLIO_DENY"}, Usage: "leave out files matching this glob at any depth, in any case, besides the default deny list; /GLOB from DIR only (repeatable)"},
			noIgnoreFlag(),
			maxFileBytesFlag("leave out documents larger than this (0: no cap)"),
			&cli.IntFlag{Name: "max-index-bytes", Value: llmstxt.DefaultMaxIndexBytes, EnvVars: []string{"FOLIO_MAX_INDEX_BYTES"}, Usage: "bound of llms.txt"},
		},
		Action: llmsTxtAction,
	}
}

// llmsTxtOptions are llms-txt's argument and flags, read and checked in
// one place.
type llmsTxtOptions struct {
	dir, out      string // absolute, symlinks resolved
	deny          []string
	noIgnore      bool
	maxFileBytes  int64
	maxIndexBytes int
}

func readLLMsTxtOptions(c *cli.Context) (llmsTxtOptions, error) {
	o := llmsTxtOptions{deny: c.StringSlice("deny"), noIgnore: c.Bool("no-ignore"),
		maxFileBytes: c.Int64("max-file-bytes"), maxIndexBytes: c.Int("max-index-bytes")}
	if c.NArg() != 1 {
		return o, usageError(c, "llms-txt takes one DIR")
	}
	if o.maxIndexBytes < 1024 {
		return o, usageError(c, "--max-index-bytes must be at least 1024")
	}
	dir, err := realDir(c.Args().First())
	if err != nil {
		return o, err
	}
	o.dir, o.out = dir, dir
	if out := c.String("out"); out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return o, toolerr.Invalid("--out %s: %v", out, err)
		}
		if o.out, err = realDir(out); err != nil {
			return o, err
		}
	}
	return o, nil
}

// realDir is the directory arg, absolute with its symlinks resolved (as
// fsview names its root).
func realDir(arg string) (string, error) {
	p, err := filepath.Abs(arg)
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return "", toolerr.New(toolerr.CodeNotFound, "%s: no such directory (%v)", arg, errors.Unwrap(err))
	}
	if info, err := os.Stat(p); err != nil || !info.IsDir() {
		return "", toolerr.Invalid("%s is not a directory: llms-txt takes the directory of a docs tree", arg)
	}
	return p, nil
}

func llmsTxtAction(c *cli.Context) error {
	o, err := readLLMsTxtOptions(c)
	if err != nil {
		return fail(c, false, err)
	}
	fs, err := fsview.Open([]string{o.dir}, fsview.Options{Deny: append(fsview.DefaultDeny(), o.deny...), MaxFileBytes: o.maxFileBytes, NoIgnore: o.noIgnore})
	if err != nil {
		return fail(c, false, err)
	}
	defer fs.Close()
	opt := o.llmstxtOptions()
	indexPath, fullPath := filepath.Join(o.out, llmstxt.IndexName), filepath.Join(o.out, llmstxt.FullName)
	var index []byte
	var fullBytes int64
	err = atomicfile.WriteStream(fullPath, 0o644, func(w io.Writer) error {
		cw := &countingWriter{w: w}
		var werr error
		index, werr = llmstxt.Write(c.Context, fs, o.dir, opt, cw)
		fullBytes = cw.n
		return werr
	})
	if err == nil {
		err = atomicfile.WriteStream(indexPath, 0o644, func(w io.Writer) error {
			_, err := w.Write(index)
			return err
		})
	}
	if err != nil {
		return fail(c, false, err)
	}
	fmt.Fprintf(c.App.Writer, "%s\t%d bytes\n%s\t%d bytes\n", indexPath, len(index), fullPath, fullBytes)
	return nil
}

// llmstxtOptions are what the making of the two files takes from o: the
// links' way from the output directory to DIR, and the outputs left out
// when --out lies inside DIR.
func (o llmsTxtOptions) llmstxtOptions() llmstxt.Options {
	opt := llmstxt.Options{MaxIndexBytes: o.maxIndexBytes}
	if back, err := filepath.Rel(o.out, o.dir); err == nil && back != "." {
		opt.LinkPrefix = filepath.ToSlash(back) + "/"
	}
	if in, err := filepath.Rel(o.dir, o.out); err == nil && in != "." && in != ".." && !strings.HasPrefix(in, "../") {
		in = filepath.ToSlash(in)
		opt.Skip = func(rel string) bool {
			return rel == path.Join(in, llmstxt.IndexName) || rel == path.Join(in, llmstxt.FullName)
		}
	}
	return opt
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	return n, err
}
