package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func tokenizerFlag() cli.Flag {
	return &cli.StringFlag{Name: "tokenizer", Value: tokencount.Default, EnvVars: []string{"FOLIO_TOKENIZER"},
		Usage: "token counter: " + strings.Join(tokencount.Names(), ", ")}
}

// maxFileBytesFlag is the size cap of files, and of standard input, that
// a command holds whole; usage says what it caps.
func maxFileBytesFlag(usage string) cli.Flag {
	return &cli.Int64Flag{Name: "max-file-bytes", Value: fsview.DefaultMaxFileBytes, EnvVars: []string{"FOLIO_MAX_FILE_BYTES"},
		Usage: usage}
}

// streamCap is the size cap of input that streams, held a window at a
// time (count -, count --truncate, read --format raw): none, unless
// --max-file-bytes (or FOLIO_MAX_FILE_BYTES) is given.
func streamCap(c *cli.Context) int64 {
	if c.IsSet("max-file-bytes") {
		return c.Int64("max-file-bytes")
	}
	return 0
}

func noIgnoreFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-ignore", EnvVars: []string{"FOLIO_NO_IGNORE"},
		Usage: "also walk what .gitignore, .ignore and .git/info/exclude exclude (the deny list still applies)"}
}

func formatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "json", EnvVars: []string{"FOLIO_FORMAT"},
		Usage: "page format: " + pager.FormatsHelp()}
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
		ArgsUsage: "PATH (or - for standard input)",
		Description: `With --max-tokens, prints exactly one page, the same bytes the MCP read tool
returns, and a newline; pass its next_cursor with --cursor for the next page.
--all prints every page as JSON Lines from one read of the file. --line starts
the first page at a line; --format text writes pages as the content itself and
a [folio] footer line, each page followed by a newline.

Without --max-tokens, prints the file's lines: all of them, or --limit lines
from --offset (lines count from 1; a negative offset counts from the end, so
--offset -100 is the last 100 lines).

--format raw writes chunks: the content alone, each of at most --max-tokens
tokens, cut where a person would (the last paragraph break, else line break,
else sentence end, else space, in the chunk's second half; --tight cuts as late
as the budget allows). With --all, every chunk: NUL after each (-0), as JSON
Lines ({"content","tokens"}, --jsonl), or one file per chunk (--split PREFIX,
named PREFIXaa, PREFIXab… as split(1) names them). The chunks concatenated are
the input, byte for byte. Chunks stream: memory holds one window, whatever the
input's size, and no size cap applies unless --max-file-bytes is given.

PATH - reads standard input, once, under the same size cap and text check as a
file, named - (or --name) in pages: its lines, or its pages, whose cursors
cannot be followed once it is read, so page it with --all.

Flags go before or after PATH; -- ends them (folio read -- -notes.md).

With --server, the same read goes through the read tool of that MCP server, and
PATH is sent as it is (a file:// URI, or a path the server resolves). In line
mode the server's bounds apply, and its footer line goes to stderr.

Exit codes: 2 invalid argument, 3 not found, 4 not text or too large,
5 invalid or expired cursor, 6 version conflict, 7 budget too small, 1 other.`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "max-tokens", EnvVars: []string{"FOLIO_MAX_TOKENS"}, Usage: "page mode: the token budget of the whole JSON page"},
			&cli.StringFlag{Name: "cursor", EnvVars: []string{"FOLIO_CURSOR"}, Usage: "page mode: next_cursor of the previous page"},
			&cli.BoolFlag{Name: "all", EnvVars: []string{"FOLIO_ALL"}, Usage: "page mode: print every page, as JSON Lines (every chunk, with --format raw)"},
			&cli.BoolFlag{Name: "null", Aliases: []string{"0"}, Usage: "--format raw --all: a NUL byte after each chunk"},
			&cli.BoolFlag{Name: "jsonl", Usage: "--format raw --all: each chunk as a JSON Lines object {\"content\",\"tokens\"}"},
			&cli.StringFlag{Name: "split", Usage: "--format raw --all: each chunk to a file of its own, PREFIXaa, PREFIXab… (as split(1) names them)"},
			&cli.BoolFlag{Name: "tight", Usage: "--format raw: cut each chunk as late as its budget allows, not where a person would"},
			&cli.StringFlag{Name: "name", Usage: "PATH -: the name standard input goes by in pages (default -)"},
			&cli.IntFlag{Name: "line", EnvVars: []string{"FOLIO_LINE"}, Usage: "page mode: start the first page at this line (from 1)"},
			formatFlag(),
			&cli.IntFlag{Name: "offset", EnvVars: []string{"FOLIO_OFFSET"}, Usage: "line mode: first line, from 1; negative: from the end"},
			&cli.IntFlag{Name: "limit", EnvVars: []string{"FOLIO_LIMIT"}, Usage: "line mode: how many lines (default: to the end)"},
			tokenizerFlag(),
			maxFileBytesFlag("refuse a file, or standard input, larger than this in line and page mode, which hold it whole (0: no cap); --format raw streams, with no cap unless this is given"),
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
	// format is the pages' format (args.Format, or JSON when it is
	// empty).
	format pager.Format
	// server, when set, is the MCP endpoint to read through.
	server, token string
	// stdin: PATH is -, standard input, named name in pages.
	stdin bool
	name  string
	// raw: chunks (pager.Raw), tight or natural, each followed by
	// chunkSep (--all): "null", "jsonl" or "split" (into files named
	// from splitPrefix).
	raw, tight            bool
	chunkSep, splitPrefix string
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
	o = newReadOptions(c)
	pagedAsked := o.args.MaxTokens != nil || o.args.Cursor != ""
	if o.paged, err = o.args.Paged(); err != nil {
		return o, pagedAsked, err
	}
	if o.format, err = pager.FormatOr(o.args.Format, pager.JSON); err != nil {
		return o, pagedAsked, err
	}
	if err := checkServerFlags(c); err != nil {
		return o, pagedAsked, err
	}
	if o.all && !o.paged {
		return o, false, usageError(c, "--all pages the file: give --max-tokens")
	}
	if o.chunkSep, err = chunkSeparator(c); err != nil {
		return o, false, err
	}
	if err := checkChunkFlags(c, o); err != nil {
		return o, false, err
	}
	if paged, err := checkStdinFlags(c, o); err != nil {
		return o, paged, err
	}
	if o.counter, err = pagerCounter(c); err != nil {
		return o, o.paged, err
	}
	return o, o.paged, nil
}

// newReadOptions reads read's PATH and flags as they are given, before
// any check: a local PATH made absolute, - as standard input (local reads
// only), --format raw as chunks rather than a page format, and the
// numeric flags given.
func newReadOptions(c *cli.Context) readOptions {
	o := readOptions{all: c.Bool("all"), server: c.String("server"), token: c.String("token"),
		maxFileBytes: c.Int64("max-file-bytes"), cursorKeyFile: c.String("cursor-key-file"), cursorTTL: c.Duration("cursor-ttl"),
		name: c.String("name"), tight: c.Bool("tight"), splitPrefix: c.String("split")}
	name := c.Args().First()
	if o.server == "" {
		name = localName(name)
	}
	o.stdin = name == fsview.StdinName && o.server == ""
	if o.name == "" {
		o.name = fsview.StdinName
	}
	format := c.String("format")
	if format == "raw" {
		o.raw, format = true, ""
	}
	o.args = wire.ReadArgs{Path: name, Cursor: c.String("cursor"), Format: format}
	readIntFlags(c, &o.args)
	if !c.IsSet("format") {
		o.args.Format = ""
	}
	return o
}

// readIntFlags sets the numeric arguments of a read (--max-tokens,
// --offset, --limit, --line) that are given; those not given stay nil.
func readIntFlags(c *cli.Context, args *wire.ReadArgs) {
	for flag, arg := range map[string]**int{"max-tokens": &args.MaxTokens, "offset": &args.Offset, "limit": &args.Limit, "line": &args.Line} {
		if c.IsSet(flag) {
			n := c.Int(flag)
			*arg = &n
		}
	}
}

// chunkSeparator is how --format raw --all tells its chunks apart: "null"
// (-0), "jsonl" or "split", whichever of them is given, or "" for none;
// more than one is a usage error.
func chunkSeparator(c *cli.Context) (string, error) {
	chunkSep := ""
	for _, sep := range []string{"null", "jsonl", "split"} {
		if c.IsSet(sep) {
			if chunkSep != "" {
				return "", usageError(c, "-0, --jsonl and --split are three ways to tell chunks apart: give one")
			}
			chunkSep = sep
		}
	}
	return chunkSep, nil
}

// checkChunkFlags checks the flags of chunks: -0, --jsonl, --split and
// --tight only with --format raw, which needs --max-tokens, reads a local
// file or standard input from its start, and with --all needs one way to
// tell the chunks apart (and only with --all).
func checkChunkFlags(c *cli.Context, o readOptions) error {
	switch {
	case (o.chunkSep != "" || o.tight) && !o.raw:
		return usageError(c, "-0, --jsonl, --split and --tight are for chunks: give --format raw")
	case o.raw && o.args.MaxTokens == nil:
		return usageError(c, "--format raw cuts chunks of --max-tokens: give it")
	case o.raw && (o.args.Cursor != "" || o.args.Line != nil || o.server != ""):
		return usageError(c, "--format raw chunks a local file or standard input from its start: no --cursor, --line or --server")
	case o.raw && o.all && o.chunkSep == "":
		return usageError(c, "--all --format raw writes every chunk: give -0, --jsonl or --split PREFIX to tell them apart")
	case o.raw && !o.all && o.chunkSep != "":
		return usageError(c, "-0, --jsonl and --split tell the chunks of --all apart: give --all")
	}
	return nil
}

// checkStdinFlags checks the flags of PATH -: standard input is read once,
// so no --cursor follows it (an error that goes out as a page's, paged),
// and --name is for it alone.
func checkStdinFlags(c *cli.Context, o readOptions) (paged bool, err error) {
	switch {
	case o.stdin && o.args.Cursor != "":
		return true, usageError(c, "standard input is read once: its cursors cannot be followed (page it with --all)")
	case c.IsSet("name") && !o.stdin:
		return false, usageError(c, "--name names standard input: give PATH -")
	}
	return false, nil
}

// readAction is folio read: through --server, as chunks (--format raw),
// or from a local file or standard input, as lines or as pages.
func readAction(c *cli.Context) error {
	o, paged, err := readReadOptions(c)
	if err != nil {
		return fail(c, paged, err)
	}
	if o.server != "" {
		return remoteRead(c, o)
	}
	if o.raw {
		return readChunks(c, o)
	}
	return localRead(c, o)
}

// localRead reads a local file, or standard input (held whole, under
// the size cap), and prints its lines or its pages.
func localRead(c *cli.Context, o readOptions) error {
	rd, closeFS, err := localReader(o)
	if err != nil {
		return fail(c, o.paged, err)
	}
	defer closeFS()
	var stdin []byte
	if o.stdin {
		if stdin, err = fsview.ReadText(c.App.Reader, o.name, o.maxFileBytes); err != nil {
			return fail(c, o.paged, err)
		}
	}
	if !o.paged {
		return printLines(c, o, rd, stdin)
	}
	req := pageRequest(o)
	if o.stdin {
		return printStdinPages(c, o, rd, stdin, req)
	}
	if !o.all {
		return printPage(c, rd, req)
	}
	return printPages(c, rd, req)
}

// printLines prints the lines --offset and --limit choose, of the file or
// of stdin (standard input's text, when PATH is -).
func printLines(c *cli.Context, o readOptions, rd *reader.Reader, stdin []byte) error {
	req := reader.LineRequest{Name: o.args.Path}
	if o.args.Offset != nil {
		req.Offset = *o.args.Offset
	}
	if o.args.Limit != nil {
		req.Limit = *o.args.Limit
	}
	var l *reader.Lines
	var err error
	if o.stdin {
		l, err = rd.LinesOf(c.Context, stdin, o.name, req)
	} else {
		l, err = rd.ReadLines(c.Context, req)
	}
	if err != nil {
		return fail(c, false, err)
	}
	_, err = c.App.Writer.Write(l.Text)
	return err
}

// pageRequest is the request of a local read's first page (or of the one
// its --cursor continues to), in the format asked for (JSON by default).
func pageRequest(o readOptions) reader.PageRequest {
	req := reader.PageRequest{Name: o.args.Path, Subject: reader.LocalSubject, MaxTokens: *o.args.MaxTokens, Cursor: o.args.Cursor, Format: o.format}
	if o.args.Line != nil {
		req.Line = *o.args.Line
	}
	return req
}

// printStdinPages prints the first page of stdin (standard input's text),
// or with --all every page, each followed by a newline.
func printStdinPages(c *cli.Context, o readOptions, rd *reader.Reader, stdin []byte, req reader.PageRequest) error {
	w := bufio.NewWriter(c.App.Writer)
	err := rd.PagesOf(c.Context, stdin, o.name, req, func(p pager.Page) error {
		w.Write(p.JSON)
		if err := w.WriteByte('\n'); err != nil || !o.all {
			return errStop
		}
		return nil
	})
	if ferr := w.Flush(); err == nil || errors.Is(err, errStop) {
		err = ferr
	}
	if err != nil {
		return fail(c, true, err)
	}
	return nil
}

// printPage prints the one page of a local file req asks for, and a
// newline.
func printPage(c *cli.Context, rd *reader.Reader, req reader.PageRequest) error {
	p, err := rd.Page(c.Context, req)
	if err != nil {
		return fail(c, true, err)
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s\n", p.JSON)
	return err
}

// printPages prints every page of a local file from req's on (--all), as
// JSON Lines (or text pages, each followed by a newline), from one read
// of the file.
func printPages(c *cli.Context, rd *reader.Reader, req reader.PageRequest) error {
	w := bufio.NewWriter(c.App.Writer)
	err := rd.Pages(c.Context, req, func(p pager.Page) error {
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
	cl, err := remote.Dial(c.Context, o.server, o.token, folioVersion())
	if err != nil {
		return fail(c, o.paged, err)
	}
	defer cl.Close()
	out := c.App.Writer
	args := o.args
	if !o.paged {
		lines, footer, err := cl.Lines(c.Context, wire.ReadArgs{Path: args.Path, Offset: args.Offset, Limit: args.Limit})
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
		p, err := cl.PageAt(c.Context, args.Path, *args.MaxTokens, args.Format, *args.Line)
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
	for page, err := range cl.Pages(c.Context, args.Path, *args.MaxTokens, args.Format, args.Cursor) {
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
