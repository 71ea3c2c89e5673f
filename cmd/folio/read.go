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

// readOptions are read's argument and flags, read and checked in one
// place.
type readOptions struct {
	args  wire.ReadArgs
	paged bool
	all   bool
	// server, when set, is the MCP endpoint to read through.
	server, token string
	// Local reads: the counter, the size cap, and the cursors' key file
	// and lifetime.
	counter       pager.Counter
	maxFileBytes  int64
	cursorKeyFile string
	cursorTTL     time.Duration
}

// readReadOptions reads and checks read's flags; paged says whether an
// error goes out as a page's (the JSON body on stdout too).
func readReadOptions(c *cli.Context) (o readOptions, paged bool, err error) {
	if c.NArg() != 1 {
		return o, false, usageError(c, "read takes one PATH")
	}
	o = readOptions{all: c.Bool("all"), server: c.String("server"), token: c.String("token"),
		maxFileBytes: c.Int64("max-file-bytes"), cursorKeyFile: c.String("cursor-key-file"), cursorTTL: c.Duration("cursor-ttl")}
	name := c.Args().First()
	if o.server == "" {
		name = localName(name)
	}
	o.args = wire.ReadArgs{URI: name, Cursor: c.String("cursor"), Format: c.String("format")}
	for flag, arg := range map[string]**int{"max-tokens": &o.args.MaxTokens, "offset": &o.args.Offset, "limit": &o.args.Limit, "line": &o.args.Line} {
		if c.IsSet(flag) {
			n := c.Int(flag)
			*arg = &n
		}
	}
	if !c.IsSet("format") {
		o.args.Format = ""
	}
	pagedAsked := o.args.MaxTokens != nil || o.args.Cursor != ""
	if o.paged, err = o.args.Paged(); err != nil {
		return o, pagedAsked, err
	}
	if err := checkServerFlags(c); err != nil {
		return o, pagedAsked, err
	}
	if o.all && !o.paged {
		return o, false, usageError(c, "--all pages the file: give --max-tokens")
	}
	if o.counter, err = pagerCounter(c); err != nil {
		return o, o.paged, err
	}
	return o, o.paged, nil
}

func readAction(c *cli.Context) error {
	o, paged, err := readReadOptions(c)
	if err != nil {
		return fail(c, paged, err)
	}
	if o.server != "" {
		return remoteRead(c, o)
	}
	rd, closeFS, err := localReader(o)
	if err != nil {
		return fail(c, o.paged, err)
	}
	defer closeFS()
	out := c.App.Writer
	if !o.paged {
		req := reader.LineRequest{Name: o.args.URI}
		if o.args.Offset != nil {
			req.Offset = *o.args.Offset
		}
		if o.args.Limit != nil {
			req.Limit = *o.args.Limit
		}
		l, err := rd.ReadLines(c.Context, req)
		if err != nil {
			return fail(c, false, err)
		}
		_, err = out.Write(l.Text)
		return err
	}
	format := pager.JSON
	if o.args.Format != "" {
		format, _ = pager.ParseFormat(o.args.Format) // checked by Paged
	}
	req := reader.PageRequest{Name: o.args.URI, Subject: reader.LocalSubject, MaxTokens: *o.args.MaxTokens, Cursor: o.args.Cursor, Format: format}
	if o.args.Line != nil {
		req.Line = *o.args.Line
	}
	if !o.all {
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

// remoteRead does the read through the read tool of the server.
func remoteRead(c *cli.Context, o readOptions) error {
	cl, err := remote.Dial(c.Context, o.server, o.token, version())
	if err != nil {
		return fail(c, o.paged, err)
	}
	defer cl.Close()
	out := c.App.Writer
	args := o.args
	if !o.paged {
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
		if !d.HasMore || !o.all {
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
		if !o.all {
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
