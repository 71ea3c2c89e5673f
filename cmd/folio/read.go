package main

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func tokenizerFlag() cli.Flag {
	return &cli.StringFlag{Name: "tokenizer", Value: pager.DefaultCounter, EnvVars: []string{"FOLIO_TOKENIZER"},
		Usage: "token counter: " + strings.Join(pager.CounterNames(), ", ")}
}

func maxFileBytesFlag() cli.Flag {
	return &cli.Int64Flag{Name: "max-file-bytes", Value: fsview.DefaultMaxFileBytes, EnvVars: []string{"FOLIO_MAX_FILE_BYTES"},
		Usage: "refuse files larger than this (0: no cap)"}
}

func noIgnoreFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-ignore", EnvVars: []string{"FOLIO_NO_IGNORE"},
		Usage: "also walk what .gitignore, .ignore and .git/info/exclude exclude (the deny list still applies)"}
}

func formatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "json", EnvVars: []string{"FOLIO_FORMAT"},
		Usage: "page format: json (the page contract's object) or text (the content as it is, then a [folio] footer line)"}
}

func cursorFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cursor-key-file", EnvVars: []string{"FOLIO_CURSOR_KEY_FILE"},
			Usage: "cursor signing keys, one hex key per line, newest last; created when missing (default $XDG_STATE_HOME/folio/cursor.key, else ~/.local/state/folio/cursor.key)"},
		&cli.DurationFlag{Name: "cursor-ttl", Value: 24 * time.Hour, EnvVars: []string{"FOLIO_CURSOR_TTL"},
			Usage: "how long a read's cursors stay valid, from its first page"},
	}
}

func readCommand() *cli.Command {
	return &cli.Command{
		Name:      "read",
		Usage:     "print one token-budgeted JSON page of a file, or its lines",
		ArgsUsage: "PATH",
		Description: `With --max-tokens, prints exactly one page, the same bytes the MCP read tool
returns, and a newline; pass its next_cursor with --cursor for the next page.
--all prints every page as JSON Lines from one read of the file. --line starts
the first page at a line; --format text writes pages as the content itself and
a [folio] footer line, each page followed by a newline.

Without --max-tokens, prints the file's lines: all of them, or --limit lines
from --offset (lines count from 1; a negative offset counts from the end, so
--offset -100 is the last 100 lines).

With --server, the same read goes through the read tool of that MCP server, and
PATH is sent as it is (a file:// URI, or a path the server resolves). In line
mode the server's bounds apply, and its footer line goes to stderr.

Exit codes: 2 invalid argument, 3 not found, 4 not text or too large,
5 invalid or expired cursor, 6 version conflict, 7 budget too small, 1 other.`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "max-tokens", EnvVars: []string{"FOLIO_MAX_TOKENS"}, Usage: "page mode: the token budget of the whole JSON page"},
			&cli.StringFlag{Name: "cursor", EnvVars: []string{"FOLIO_CURSOR"}, Usage: "page mode: next_cursor of the previous page"},
			&cli.BoolFlag{Name: "all", EnvVars: []string{"FOLIO_ALL"}, Usage: "page mode: print every page, as JSON Lines"},
			&cli.IntFlag{Name: "line", EnvVars: []string{"FOLIO_LINE"}, Usage: "page mode: start the first page at this line (from 1)"},
			formatFlag(),
			&cli.IntFlag{Name: "offset", EnvVars: []string{"FOLIO_OFFSET"}, Usage: "line mode: first line, from 1; negative: from the end"},
			&cli.IntFlag{Name: "limit", EnvVars: []string{"FOLIO_LIMIT"}, Usage: "line mode: how many lines (default: to the end)"},
			tokenizerFlag(),
			maxFileBytesFlag(),
		}, append(serverFlags(), cursorFlags()...)...),
		Action: readAction,
	}
}

func readAction(c *cli.Context) error {
	out := c.App.Writer
	if c.NArg() != 1 {
		return usageError(c, "read takes one PATH")
	}
	name := c.Args().First()
	if !c.IsSet("server") {
		name = localName(name)
	}
	args := wire.ReadArgs{URI: name, Cursor: c.String("cursor")}
	if c.IsSet("max-tokens") {
		n := c.Int("max-tokens")
		args.MaxTokens = &n
	}
	if c.IsSet("offset") {
		n := c.Int("offset")
		args.Offset = &n
	}
	if c.IsSet("limit") {
		n := c.Int("limit")
		args.Limit = &n
	}
	if c.IsSet("line") {
		n := c.Int("line")
		args.Line = &n
	}
	if c.IsSet("format") {
		args.Format = c.String("format")
	}
	paged, err := args.Paged()
	if err == nil {
		err = checkServerFlags(c)
	}
	if err == nil && c.Bool("all") && !paged {
		err = usageError(c, "--all pages the file: give --max-tokens")
	}
	if err != nil {
		return fail(c, paged || args.MaxTokens != nil || args.Cursor != "", err)
	}
	if c.IsSet("server") {
		return remoteRead(c, args, paged)
	}
	rd, closeFS, err := localReader(c, paged)
	if err != nil {
		return fail(c, paged, err)
	}
	defer closeFS()
	if !paged {
		l, err := rd.ReadLines(c.Context, reader.LineRequest{Name: args.URI, Offset: c.Int("offset"), Limit: c.Int("limit")})
		if err != nil {
			return fail(c, false, err)
		}
		_, err = out.Write(l.Text)
		return err
	}
	format, _ := pager.ParseFormat(c.String("format")) // checked by Paged
	req := reader.PageRequest{Name: args.URI, Subject: reader.LocalSubject, MaxTokens: *args.MaxTokens, Cursor: args.Cursor, Line: c.Int("line"), Format: format}
	if !c.Bool("all") {
		p, err := rd.Page(c.Context, req)
		if err != nil {
			return fail(c, true, err)
		}
		_, err = fmt.Fprintf(out, "%s\n", p.JSON)
		return err
	}
	w := bufio.NewWriter(out)
	err = rd.Pages(c.Context, req, func(p pager.Page) error {
		w.Write(p.JSON)
		return w.WriteByte('\n')
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fail(c, true, err)
	}
	return nil
}

// remoteRead does the read through the read tool of --server.
func remoteRead(c *cli.Context, args wire.ReadArgs, paged bool) error {
	cl, err := dialServer(c)
	if err != nil {
		return fail(c, paged, err)
	}
	defer cl.Close()
	out := c.App.Writer
	if !paged {
		lines, footer, err := cl.Lines(c.Context, wire.ReadArgs{URI: args.URI, Offset: args.Offset, Limit: args.Limit})
		if err != nil {
			return fail(c, false, err)
		}
		// The lines to stdout, the footer that follows them to stderr.
		if _, err := out.Write(lines); err != nil {
			return err
		}
		fmt.Fprintln(c.App.ErrWriter, footer)
		return nil
	}
	if args.Line != nil && args.Cursor == "" {
		// The first page starts at the line; Pages follows from there.
		p, err := cl.PageAt(c.Context, args.URI, *args.MaxTokens, args.Format, *args.Line)
		if err != nil {
			return fail(c, true, err)
		}
		if _, err := fmt.Fprintf(out, "%s\n", p.JSON); err != nil {
			return err
		}
		d, err := p.Decode()
		if err != nil {
			return fail(c, true, fmt.Errorf("%w: %v", remote.ErrNotAPage, err))
		}
		if !d.HasMore || !c.Bool("all") {
			return nil
		}
		args.Cursor = *d.NextCursor
	}
	for page, err := range cl.Pages(c.Context, args.URI, *args.MaxTokens, args.Format, args.Cursor) {
		if err != nil {
			return fail(c, true, err)
		}
		if _, err := fmt.Fprintf(out, "%s\n", page.JSON); err != nil {
			return err
		}
		if !c.Bool("all") {
			return nil
		}
	}
	return nil
}

// fail reports a read error: a line on stderr, the JSON error body on
// stdout in page mode, and the exit code for its code.
func fail(c *cli.Context, paged bool, err error) error {
	e := toolerr.From(err)
	fmt.Fprintf(c.App.ErrWriter, "folio: %s: %s\n", e.Code, e.Message)
	if paged {
		fmt.Fprintf(c.App.Writer, "%s\n", e.JSON())
	}
	return exitError{exitCode(e.Code)}
}

// usageError is an invalid_argument read error.
func usageError(c *cli.Context, msg string) error {
	return toolerr.Invalid("%s (see %s --help)", msg, c.Command.HelpName)
}
