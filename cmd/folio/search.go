package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func searchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "answer a question from a docs tree: the passages that answer it best, within --max-tokens",
		ArgsUsage: "QUESTION (its words, quoted or not)",
		Description: `Indexes the documents under --root (default the working directory), as serve
does for search_docs, and prints the answer search_docs gives: the passages most
likely to answer QUESTION, best first, each under a line "path:first-last
@version § headings", all within --max-tokens counted whole. A [folio] line
says when nothing matches well. --path keeps to a file or directory.

Exit codes: 2 invalid argument, 3 --path not found, 7 budget too small, 1 other.`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "root", EnvVars: []string{"FOLIO_ROOT"}, Usage: "a directory to search (repeatable; default the working directory)"},
			&cli.StringFlag{Name: "path", Usage: "search under this file or directory only"},
			&cli.IntFlag{Name: "max-tokens", Value: wire.DefaultAnswerTokens, EnvVars: []string{"FOLIO_MAX_TOKENS"}, Usage: "the answer's budget in tokens"},
			&cli.StringSliceFlag{Name: "deny", EnvVars: []string{"FOLIO_DENY"}, Usage: "hide files matching this glob at any depth, in any case (repeatable)"},
			noIgnoreFlag(),
			tokenizerFlag(),
			maxFileBytesFlag("leave out files larger than this (0: no cap)"),
		}, docsFlags()[1:]...),
		Action: searchAction,
	}
}

// searchAction indexes the roots and prints the answer to the question.
func searchAction(c *cli.Context) error {
	budget := c.Int("max-tokens")
	args := wire.SearchDocsArgs{Query: strings.Join(c.Args().Slice(), " "), Path: c.String("path"), MaxTokens: &budget}
	if e := args.Check(); e != nil {
		return fail(c, false, usageError(c, e.Message))
	}
	counter, err := pagerCounter(c)
	if err != nil {
		return fail(c, false, err)
	}
	roots := c.StringSlice("root")
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for i, r := range roots {
		if err := checkRoot(r); err != nil {
			return fail(c, false, usageError(c, err.Error()))
		}
		roots[i] = localName(r)
	}
	fs, err := fsview.Open(roots, fsview.Options{Deny: append(fsview.DefaultDeny(), c.StringSlice("deny")...),
		MaxFileBytes: c.Int64("max-file-bytes"), NoIgnore: c.Bool("no-ignore")})
	if err != nil {
		return fail(c, false, err)
	}
	defer fs.Close()
	tree := readDocsOptions(c).tree(fs)
	if err := tree.Build(c.Context); err != nil {
		return fail(c, false, err)
	}
	if err := tree.Save(); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "folio: the index was not saved: %v\n", err)
	}
	ans, err := tree.Ask(c.Context, fs, args.Path, docsearch.Query{Text: args.Query, MaxTokens: budget}, counter.Count)
	if errors.Is(err, docsearch.ErrBudget) {
		err = toolerr.New(toolerr.CodeBudgetTooSmall, "--max-tokens %d cannot hold an answer's note: give a larger budget", budget)
	}
	if err != nil {
		return fail(c, false, err)
	}
	_, err = fmt.Fprintln(c.App.Writer, ans.Text)
	return err
}
