package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func outlineCommand() *cli.Command {
	return &cli.Command{
		Name:      "outline",
		Usage:     "print a file's headings, or a directory's text files, with their tokens",
		ArgsUsage: "PATH",
		Description: `Prints what the MCP outline tool answers. Of a file: "NAME: N lines, T tokens",
then a line per heading, "FIRST-LAST TOKENS ## TITLE": the section's lines and
the exact tokens of its bytes. Of a directory: "TOKENS PATH # TITLE" for each
text file under it, paths relative to it, as a listing sees them (ignore files
apply). At most --max-tokens tokens in all; when more is left, the last line is
"[folio] more: folio outline --cursor C PATH".

Exit codes: 2 invalid argument, 3 not found, 4 not text or too large,
5 invalid or expired cursor, 6 version conflict, 7 budget too small, 1 other.`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "max-tokens", Value: reader.DefaultLineMaxTokens, EnvVars: []string{"FOLIO_MAX_TOKENS"}, Usage: "the token budget of the whole answer"},
			&cli.StringFlag{Name: "cursor", EnvVars: []string{"FOLIO_CURSOR"}, Usage: "the cursor of the last answer's [folio] more: line"},
			tokenizerFlag(),
			noIgnoreFlag(),
			maxFileBytesFlag("leave out (under a directory) or refuse (named) files larger than this (0: no cap)"),
		}, cursorFlags()...),
		Action: outlineAction,
	}
}

// outlineAction outlines PATH, served from itself (a directory) or from
// its directory (a file), so that names are relative to it.
func outlineAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fail(c, false, usageError(c, "outline takes one PATH"))
	}
	arg := c.Args().First()
	path := localName(arg)
	counter, err := pagerCounter(c)
	if err != nil {
		return fail(c, false, err)
	}
	info, err := os.Stat(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return fail(c, false, toolerr.Wrap(toolerr.CodeNotFound, err, "no such file or directory: %s", arg))
	} else if err != nil {
		return fail(c, false, err)
	}
	root := path
	if !info.IsDir() {
		root = filepath.Dir(path)
	}
	fs, err := fsview.Open([]string{root}, fsview.Options{MaxFileBytes: c.Int64("max-file-bytes"), NoIgnore: c.Bool("no-ignore")})
	if err != nil {
		return fail(c, false, localError(arg, err))
	}
	defer fs.Close()
	keys, err := keyFilePath(c.String("cursor-key-file"))
	if err != nil {
		return fail(c, false, err)
	}
	ring, err := cursor.LoadKeyFile(keys)
	if err != nil {
		return fail(c, false, err)
	}
	rd := reader.New(fs, cursor.NewCodec(ring, c.Duration("cursor-ttl"), nil), counter)
	o, err := rd.Outline(c.Context, reader.OutlineRequest{Name: path, Subject: reader.LocalSubject, MaxTokens: c.Int("max-tokens"), Cursor: c.String("cursor"),
		More: func(_, next string) string {
			return wire.NotePrefix + "more: folio outline --cursor " + shellWord(next) + " " + shellWord(arg)
		}})
	if err != nil {
		return fail(c, false, localError(arg, err))
	}
	_, err = fmt.Fprint(c.App.Writer, o.Text)
	return err
}

// shellWord is s as one word of a POSIX shell: as it is when it holds
// only characters no shell reads specially, else in single quotes.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
