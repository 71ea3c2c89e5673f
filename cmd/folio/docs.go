package main

import (
	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/outline"
)

// defaultDocsMaxBytes caps the text the docs index holds by default.
const defaultDocsMaxBytes = 256 << 20

// docsOptions are the flags of the docs index that serve and search share.
type docsOptions struct {
	off        bool
	extensions []string
	maxBytes   int64
	dir        string
}

// docsFlags are the flags of the docs index.
func docsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-docs", EnvVars: []string{"FOLIO_NO_DOCS"}, Usage: "do not index the roots' documents, nor offer search_docs"},
		&cli.StringSliceFlag{Name: "docs-ext", EnvVars: []string{"FOLIO_DOCS_EXT"}, Value: cli.NewStringSlice(outline.DocExtensions()...), Usage: "extensions of the files search_docs indexes (repeatable)"},
		&cli.StringFlag{Name: "index-dir", EnvVars: []string{"FOLIO_INDEX_DIR"}, Usage: "keep the docs index here between runs: a start reads the files again but indexes only those that changed"},
		&cli.Int64Flag{Name: "docs-max-bytes", Value: defaultDocsMaxBytes, EnvVars: []string{"FOLIO_DOCS_MAX_BYTES"}, Usage: "most bytes of documents the index holds; files past it are not searched (0: no cap)"},
	}
}

// readDocsOptions reads the docs index's flags.
func readDocsOptions(c *cli.Context) docsOptions {
	return docsOptions{off: c.Bool("no-docs"), extensions: c.StringSlice("docs-ext"), maxBytes: c.Int64("docs-max-bytes"), dir: c.String("index-dir")}
}

// tree is the docs index over fs the options ask for, nil when off.
func (o docsOptions) tree(fs *fsview.FS) *docsearch.Tree {
	if o.off {
		return nil
	}
	return docsearch.NewTree(fs, docsearch.TreeOptions{Extensions: o.extensions, MaxBytes: o.maxBytes, Dir: o.dir})
}
