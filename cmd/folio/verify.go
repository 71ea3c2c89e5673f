package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/verify"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "page every text file under PATHs and check budgets, reconstruction and versions",
		ArgsUsage: "PATH… (- for standard input)",
		Description: `Pages every text file at every budget, in parallel, and checks that each page
counts at most its budget (recounted from the page's bytes), that the pages give
back the file byte for byte, and that the version is the BLAKE3 of the bytes.
Non-text, denied and too-large files found under a directory are skipped and
counted; a PATH given that is not there is a failure (its case in --junit
failed, named "exists"), and the other PATHs are verified still. Exit codes:
3 when a PATH given is not there, else 1 on any failure; 2 invalid argument.

With --server, the PATHs are URIs (or paths the server resolves) paged through
that MCP server's read tool, directories listed with its list tool: each page
must count at most its budget with the local --tokenizer, and the BLAKE3 of the
bytes the pages give back must equal their version. No local copy is needed.

- verifies standard input, read once under the same cap and text check, named -
(or --name). --junit FILE writes JUnit XML: one test case per file and budget,
each failure with its reasons. Under GitHub Actions (GITHUB_ACTIONS=true) each
failure is also printed as an ::error workflow annotation on its file.

Flags go before or after the PATHs; -- ends them (folio verify -- -docs).`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "max-tokens", Value: "2000", EnvVars: []string{"FOLIO_MAX_TOKENS"}, Usage: "budgets, comma-separated"},
			&cli.BoolFlag{Name: "json", EnvVars: []string{"FOLIO_JSON"}, Usage: "write the report as JSON"},
			&cli.StringFlag{Name: "junit", EnvVars: []string{"FOLIO_JUNIT"}, Usage: "also write the report to this file as JUnit XML, for CI"},
			&cli.StringFlag{Name: "name", Usage: "PATH -: the name standard input goes by in pages and the report (default -)"},
			formatFlag(),
			noIgnoreFlag(),
			&cli.StringSliceFlag{Name: "deny", EnvVars: []string{"FOLIO_DENY"}, Usage: "skip files matching this glob, relative to each PATH (repeatable)"},
			tokenizerFlag(),
			maxFileBytesFlag("refuse files, and standard input, larger than this (0: no cap)"),
		}, serverFlags()...),
		Action: verifyAction,
	}
}

// verifyOptions are verify's arguments and flags, read and checked in one
// place.
type verifyOptions struct {
	paths        []string
	budgets      []int
	format       pager.Format
	counter      pager.Counter
	asJSON       bool
	noIgnore     bool
	deny         []string
	maxFileBytes int64
	// server, when set, is the MCP endpoint to verify through.
	server, token string
	// junit is where to write JUnit XML; name is standard input's.
	junit, name string
}

func readVerifyOptions(c *cli.Context) (verifyOptions, error) {
	o := verifyOptions{paths: c.Args().Slice(), asJSON: c.Bool("json"), noIgnore: c.Bool("no-ignore"), deny: c.StringSlice("deny"),
		maxFileBytes: c.Int64("max-file-bytes"), server: c.String("server"), token: c.String("token"),
		junit: c.String("junit"), name: c.String("name")}
	if o.name == "" {
		o.name = fsview.StdinName
	}
	if len(o.paths) == 0 {
		return o, usageError(c, "verify takes at least one PATH")
	}
	var err error
	if o.budgets, err = parseBudgets(c.String("max-tokens")); err != nil {
		return o, usageError(c, err.Error())
	}
	if o.format, err = pager.ParseFormat(c.String("format")); err != nil {
		return o, usageError(c, err.Error())
	}
	if err := checkServerFlags(c); err != nil {
		return o, err
	}
	if o.counter, err = pagerCounter(c); err != nil {
		return o, err
	}
	return o, nil
}

func verifyAction(c *cli.Context) error {
	o, err := readVerifyOptions(c)
	if err != nil {
		return fail(c, false, err)
	}
	started := time.Now()
	rep := verify.NewReport()
	opt := verify.Options{Budgets: o.budgets, Format: o.format, Progress: progressBar(c)}
	if o.server != "" {
		r, err := verifyRemote(c.Context, o, opt)
		if err != nil {
			return fail(c, false, err)
		}
		rep.Merge(r)
	} else {
		for _, arg := range o.paths {
			var r *verify.Report
			if arg == fsview.StdinName {
				r, err = verifyStdin(c, o, opt)
			} else {
				r, err = verifyPath(c.Context, o, localName(arg), opt)
			}
			if err != nil {
				return fail(c, false, err)
			}
			rep.Merge(r)
		}
	}
	if o.junit != "" {
		if err := writeJUnit(o.junit, rep, started); err != nil {
			return fail(c, false, err)
		}
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		verify.WriteAnnotations(c.App.Writer, rep, os.Getenv("GITHUB_WORKSPACE"))
	}
	if opt.Progress != nil {
		fmt.Fprintln(c.App.ErrWriter)
	}
	writeVerifyReport(c, rep, o.asJSON)
	switch {
	case len(rep.Missing) > 0:
		return exitError{exitNotFound}
	case !rep.OK():
		return exitError{exitFailure}
	}
	return nil
}

// writeVerifyReport writes the report to stdout: as JSON, or a FAIL line
// per failure and the summary.
func writeVerifyReport(c *cli.Context, rep *verify.Report, asJSON bool) {
	if asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(c.App.Writer, "%s\n", b)
		return
	}
	for _, f := range rep.Failures {
		if f.MaxTokens == 0 {
			fmt.Fprintf(c.App.Writer, "FAIL %s: %s\n", f.URI, f.Message)
			continue
		}
		fmt.Fprintf(c.App.Writer, "FAIL %s at %d tokens: %s\n", f.URI, f.MaxTokens, f.Message)
	}
	fmt.Fprintf(c.App.Writer, "files %d, pages %d, bytes %d, skipped %d, failures %d, largest page %d tokens, mean fill %.1f%%\n",
		rep.Files, rep.Pages, rep.Bytes, rep.Skipped, len(rep.Failures), rep.LargestPage, 100*rep.MeanFill)
}

// verifyPath verifies one argument: a directory is the root its deny globs
// are relative to and its symlinks may not leave; a file is read as it is.
func verifyPath(ctx context.Context, o verifyOptions, path string, opt verify.Options) (*verify.Report, error) {
	root, deny := "/", []string(nil)
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		root, deny = path, o.deny
	}
	fs, err := fsview.Open([]string{root}, fsview.Options{Deny: deny, MaxFileBytes: o.maxFileBytes, NoIgnore: o.noIgnore})
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	rd, err := throwawayReader(fs, o.counter)
	if err != nil {
		return nil, err
	}
	return verify.Run(ctx, fs, rd, []string{path}, opt)
}

// verifyStdin verifies standard input, read once.
func verifyStdin(c *cli.Context, o verifyOptions, opt verify.Options) (*verify.Report, error) {
	text, err := fsview.ReadText(c.App.Reader, o.name, o.maxFileBytes)
	if err != nil {
		return nil, err
	}
	rd, err := throwawayReader(nil, o.counter)
	if err != nil {
		return nil, err
	}
	return verify.RunText(c.Context, rd, o.name, text, opt)
}

// writeJUnit writes the report as JUnit XML to path, whole or not at all.
func writeJUnit(path string, rep *verify.Report, started time.Time) error {
	var b bytes.Buffer
	if err := verify.WriteJUnit(&b, rep, started); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return toolerr.Invalid("--junit %s: %v", path, err)
	}
	return nil
}

// verifyRemote verifies the arguments through the server.
func verifyRemote(ctx context.Context, o verifyOptions, opt verify.Options) (*verify.Report, error) {
	cl, err := remote.Dial(ctx, o.server, o.token, folioVersion())
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return verify.RunRemote(ctx, cl, o.counter, o.paths, opt)
}

func parseBudgets(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--max-tokens wants positive whole numbers, comma-separated: %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// progressBar draws progress on stderr when stderr is a terminal, and is
// nil otherwise.
func progressBar(c *cli.Context) func(done, total int) {
	f, ok := c.App.ErrWriter.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(done, total int) {
		const width = 30
		filled := width * done / max(total, 1)
		fmt.Fprintf(f, "\r[%s%s] %d/%d files", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total)
	}
}
