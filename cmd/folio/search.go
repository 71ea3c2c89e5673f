package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

func searchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "answer a question from a docs tree: the passages that answer it best, within --max-tokens",
		ArgsUsage: `QUESTION [PATH…] (the question is one argument: quote it, "how do I…")`,
		Description: `Indexes the documents under the PATHs (files or directories; default the
working directory), as serve does for search_docs, and prints the answer
search_docs gives: the passages most likely to answer QUESTION, best first, each
under a line "path:first-last @version § headings", all within --max-tokens
counted whole. A [folio] line says when nothing matches well.

QUESTION is the first argument, and every argument after it is a PATH, as for
grep and rg: quote a question of several words. Directories are searched as
roots (names relative to the first); with a file among the PATHs, names are
relative to the directory that holds them all, and a file PATH must have one of
the --docs-ext extensions. --root DIR (repeatable; FOLIO_ROOT when neither is
given) is the older spelling of PATHs: give one or the other. --path keeps to a
file or directory under --root (or the working directory); with PATHs, name
that file or directory as a PATH instead.

Exit codes: 2 invalid argument (a PATH that is not there among them), 3 a --root
or --path that is not there, 7 budget too small, 1 other.`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "root", Usage: "a file or directory to search, as a PATH (repeatable; not with PATHs; FOLIO_ROOT when neither is given)"},
			&cli.StringFlag{Name: "path", Usage: "search under this file or directory of --root only (not with PATHs)"},
			&cli.IntFlag{Name: "max-tokens", Value: wire.DefaultAnswerTokens, EnvVars: []string{"FOLIO_MAX_TOKENS"}, Usage: "the answer's budget in tokens"},
			&cli.StringSliceFlag{Name: "deny", EnvVars: []string{"FOLIO_DENY"}, Usage: "hide files matching this glob at any depth, in any case (repeatable)"},
			noIgnoreFlag(),
			tokenizerFlag(),
			maxFileBytesFlag("leave out files larger than this (0: no cap)"),
		}, docsFlags()[1:]...),
		Action: searchAction,
	}
}

// searchOptions are search's arguments and flags, read and checked in one
// place.
type searchOptions struct {
	args    wire.SearchDocsArgs
	budget  int
	places  []searchPlace
	counter pager.Counter
}

// searchPlace is a file or directory to search: its absolute path, and
// whether it is a directory.
type searchPlace struct {
	path string
	dir  bool
}

// readSearchOptions reads search's question, places and flags.
func readSearchOptions(c *cli.Context) (searchOptions, error) {
	budget := c.Int("max-tokens")
	o := searchOptions{args: wire.SearchDocsArgs{Query: c.Args().First(), Path: c.String("path"), MaxTokens: &budget}, budget: budget}
	if e := o.args.Check(); e != nil {
		return o, usageError(c, e.Message)
	}
	var err error
	if o.places, err = searchPlaces(c); err != nil {
		return o, err
	}
	if err := checkDocFiles(c, o.places); err != nil {
		return o, err
	}
	if o.counter, err = pagerCounter(c); err != nil {
		return o, err
	}
	return o, nil
}

// searchPlaces is where search looks: the PATHs after the question, else
// --root's, else FOLIO_ROOT's, else the working directory; each must be
// there. PATHs and --root, or PATHs and --path, are refused together.
func searchPlaces(c *cli.Context) ([]searchPlace, error) {
	paths, roots := c.Args().Tail(), c.StringSlice("root")
	switch {
	case len(paths) > 0 && len(roots) > 0:
		return nil, usageError(c, "give the files or directories to search as PATHs after the question or with --root, not both")
	case len(paths) > 0 && c.String("path") != "":
		return nil, usageError(c, "--path keeps to a file or directory under --root: with PATHs, give that file or directory as a PATH")
	case len(paths) > 0:
		return checkPlaces(c, paths, "")
	case len(roots) > 0:
		return checkPlaces(c, roots, "--root")
	}
	if env := envList(os.Getenv("FOLIO_ROOT")); len(env) > 0 {
		return checkPlaces(c, env, "FOLIO_ROOT")
	}
	return checkPlaces(c, []string{"."}, "--root")
}

// envList is the comma-separated list an environment variable holds, as
// the flags read theirs.
func envList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkPlaces checks the places named, as root checks serve's roots, and
// that each is there. from is the flag (or variable) that named them, ""
// for PATHs: a PATH that is not there is more likely a word of a question
// that was not quoted, an invalid argument, than a place not found.
func checkPlaces(c *cli.Context, names []string, from string) ([]searchPlace, error) {
	out := make([]searchPlace, len(names))
	for i, name := range names {
		label := strings.TrimSpace(from + " " + name)
		if err := checkRoot(label, name); err != nil {
			return nil, usageError(c, err.Error())
		}
		p := localName(name)
		info, err := os.Stat(p)
		switch {
		case errors.Is(err, iofs.ErrNotExist) && from == "":
			return nil, notAPath(c, name)
		case errors.Is(err, iofs.ErrNotExist):
			return nil, toolerr.Wrap(toolerr.CodeNotFound, err, "%s: no such file or directory", label)
		case err != nil:
			return nil, toolerr.Invalid("%s: %v", label, err)
		}
		out[i] = searchPlace{path: p, dir: info.IsDir()}
	}
	return out, nil
}

// notAPath is the error of a PATH that is not there: a word of the
// question, most likely, unless it looks like a path.
func notAPath(c *cli.Context, word string) *toolerr.Error {
	if strings.ContainsRune(word, '/') {
		return toolerr.Invalid("%q is not a file or directory", word)
	}
	return toolerr.Invalid("%q is not a file or directory: quote the question (%q)", word, strings.Join(c.Args().Slice(), " "))
}

// checkDocFiles refuses a file among the places that the index would not
// read: one without a --docs-ext extension.
func checkDocFiles(c *cli.Context, places []searchPlace) error {
	exts := c.StringSlice("docs-ext")
	for _, p := range places {
		ext := strings.ToLower(filepath.Ext(p.path))
		if p.dir || slices.ContainsFunc(exts, func(e string) bool { return strings.ToLower("."+strings.TrimPrefix(e, ".")) == ext }) {
			continue
		}
		return usageError(c, fmt.Sprintf("%s is not a document search reads: its extension is not one of --docs-ext (%s)", p.path, strings.Join(exts, " ")))
	}
	return nil
}

// searchAction indexes the places and prints the answer to the question.
func searchAction(c *cli.Context) error {
	o, err := readSearchOptions(c)
	if err != nil {
		return fail(c, false, err)
	}
	fs, view, err := openSearchView(o.places, fsview.Options{Deny: append(fsview.DefaultDeny(), c.StringSlice("deny")...),
		MaxFileBytes: c.Int64("max-file-bytes"), NoIgnore: c.Bool("no-ignore")})
	if err != nil {
		return fail(c, false, err)
	}
	defer fs.Close()
	tree := readDocsOptions(c).tree(view)
	if err := tree.Build(c.Context); err != nil {
		return fail(c, false, err)
	}
	if err := tree.Save(); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "folio: the index was not saved: %v\n", err)
	}
	ans, err := tree.Ask(c.Context, view, o.args.Path, docsearch.Query{Text: o.args.Query, MaxTokens: o.budget}, o.counter.Count)
	if err != nil {
		return fail(c, false, askError(err, o, view))
	}
	_, err = fmt.Fprintln(c.App.Writer, ans.Text)
	return err
}

// askError is the error of a search in the command line's terms: a
// budget too small names --max-tokens, a --path not found names --path.
func askError(err error, o searchOptions, view *fsview.FS) error {
	if errors.Is(err, docsearch.ErrBudget) {
		return toolerr.New(toolerr.CodeBudgetTooSmall, "--max-tokens %d cannot hold an answer's note: give a larger budget", o.budget)
	}
	if e := toolerr.From(err); e.Code == toolerr.CodeNotFound && o.args.Path != "" {
		return toolerr.Wrap(toolerr.CodeNotFound, err, "--path %s: no such file or directory under %s", o.args.Path, strings.Join(view.Roots(), ", "))
	}
	return err
}

// openSearchView opens the view search indexes and asks through (and the
// view to close): directories are its roots, as serve's; with a file among
// the places, its one root is the directory that holds them all, kept to
// them by an allow list (so that only they are walked).
func openSearchView(places []searchPlace, opt fsview.Options) (fs, view *fsview.FS, err error) {
	paths := make([]string, len(places))
	for i, p := range places {
		paths[i] = p.path
	}
	if !slices.ContainsFunc(places, func(p searchPlace) bool { return !p.dir }) {
		fs, err := fsview.Open(paths, opt)
		return fs, fs, err
	}
	for i, p := range paths {
		if paths[i], err = filepath.EvalSymlinks(p); err != nil {
			return nil, nil, err
		}
	}
	base := commonDir(places, paths)
	allow := make([]string, len(places))
	for i, p := range paths {
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return nil, nil, err
		}
		allow[i] = escapeGlob(filepath.ToSlash(rel))
		if places[i].dir {
			allow[i] = path.Join(allow[i], "**")
		}
	}
	if fs, err = fsview.Open([]string{base}, opt); err != nil {
		return nil, nil, err
	}
	if view, err = fs.Restrict(allow); err != nil {
		fs.Close()
		return nil, nil, err
	}
	return fs, view, nil
}

// commonDir is the deepest directory that holds every one of the paths:
// a directory place itself, a file's directory.
func commonDir(places []searchPlace, paths []string) string {
	var common []string
	for i, p := range paths {
		if !places[i].dir {
			p = filepath.Dir(p)
		}
		parts := strings.Split(p, string(filepath.Separator))
		if i == 0 {
			common = parts
			continue
		}
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	if dir := strings.Join(common, string(filepath.Separator)); dir != "" {
		return dir
	}
	return string(filepath.Separator)
}

// escapeGlob is the doublestar glob that matches the path p alone.
func escapeGlob(p string) string {
	if p == "." {
		return "**"
	}
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
