package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/tokens"
)

func tokenCommand() *cli.Command {
	return &cli.Command{
		Name:  "token",
		Usage: "manage the bearer tokens of folio serve --http",
		Subcommands: []*cli.Command{{
			Name:  "add",
			Usage: "create a token for a subject, print it once, and store only its SHA-256",
			Description: `Appends {"subject","token_sha256","allow","tools"} to the tokens file (created
0600 when missing). A running folio serve picks it up within a second. --allow
takes doublestar globs over paths relative to a root; without it the token sees
every served file. --tool takes globs over tool names; without it the token
sees every tool.`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "tokens", Required: true, EnvVars: []string{"FOLIO_TOKENS"}, Usage: "the tokens file"},
				&cli.StringFlag{Name: "subject", Required: true, Usage: "who the token is for; cursors are bound to it"},
				&cli.StringSliceFlag{Name: "allow", Usage: "a glob of files the token may read (repeatable)"},
				&cli.StringSliceFlag{Name: "tool", Usage: "a glob of tools the token may see and call, e.g. read or github__* (repeatable; default all)"},
			},
			Action: tokenAdd,
		}, {
			Name:  "list",
			Usage: "print the subject, allow list and tools list of each token (never the tokens)",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "tokens", Required: true, EnvVars: []string{"FOLIO_TOKENS"}, Usage: "the tokens file"},
				&cli.BoolFlag{Name: "json", Usage: "print a JSON array"},
			},
			Action: tokenList,
		}, {
			Name:        "revoke",
			Usage:       "remove every token of a subject from the tokens file",
			Description: `A running folio serve refuses them within a second.`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "tokens", Required: true, EnvVars: []string{"FOLIO_TOKENS"}, Usage: "the tokens file"},
				&cli.StringFlag{Name: "subject", Required: true, Usage: "whose tokens to remove"},
			},
			Action: tokenRevoke,
		}},
	}
}

// tokenAdd is folio token add: it creates a token for --subject, stores
// its SHA-256 in the tokens file, and prints the token, once.
func tokenAdd(c *cli.Context) error {
	tok, err := tokens.Add(c.String("tokens"), c.String("subject"), c.StringSlice("allow"), c.StringSlice("tool"))
	if err != nil {
		return fail(c, false, usageError(c, err.Error()))
	}
	_, err = fmt.Fprintln(c.App.Writer, tok)
	return err
}

// tokenList is folio token list: each token's subject, allow list and
// tools list (never the token), as a table or, with --json, a JSON array.
func tokenList(c *cli.Context) error {
	ids, err := tokens.List(c.String("tokens"))
	if err != nil {
		return fail(c, false, usageError(c, err.Error()))
	}
	if c.Bool("json") {
		return printTokensJSON(c, ids)
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SUBJECT\tALLOW\tTOOLS")
	for _, id := range ids {
		fmt.Fprintf(w, "%s\t%s\t%s\n", id.Subject, listOrAll(id.Allow), listOrAll(id.Tools))
	}
	return w.Flush()
}

// printTokensJSON prints ids as one JSON array of {"subject","allow","tools"},
// the lists [] rather than null when empty, and a newline.
func printTokensJSON(c *cli.Context, ids []tokens.Identity) error {
	type entry struct {
		Subject string   `json:"subject"`
		Allow   []string `json:"allow"`
		Tools   []string `json:"tools"`
	}
	out := []entry{}
	for _, id := range ids {
		out = append(out, entry{id.Subject, orEmpty(id.Allow), orEmpty(id.Tools)})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
	return err
}

// tokenRevoke is folio token revoke: it removes every token of --subject
// from the tokens file and says how many it removed.
func tokenRevoke(c *cli.Context) error {
	n, err := tokens.Revoke(c.String("tokens"), c.String("subject"))
	if err != nil {
		return fail(c, false, usageError(c, err.Error()))
	}
	_, err = fmt.Fprintf(c.App.Writer, "revoked %d token(s) of %s\n", n, c.String("subject"))
	return err
}

// orEmpty is list, or an empty list for nil (JSON [] rather than null).
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// listOrAll shows a list of globs; empty means everything.
func listOrAll(list []string) string {
	if len(list) == 0 {
		return "(all)"
	}
	return strings.Join(list, " ")
}
