package main

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

// localName makes a command-line path absolute against the working
// directory; URIs pass as they are.
func localName(name string) string {
	if name == "" || name == "-" || strings.HasPrefix(strings.ToLower(name), "file:") || filepath.IsAbs(name) {
		return name
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// localReader opens the whole file system as the command line sees it:
// one root at /, no deny list, and the cursor key file when pages are
// asked for (else a throwaway key: no cursor outlives the command).
func localReader(o readOptions) (*reader.Reader, func(), error) {
	fs, err := fsview.Open([]string{"/"}, fsview.Options{MaxFileBytes: o.maxFileBytes})
	if err != nil {
		return nil, nil, err
	}
	var ring *cursor.Ring
	if o.paged {
		var path string
		if path, err = keyFilePath(o.cursorKeyFile); err == nil {
			ring, err = cursor.LoadKeyFile(path)
		}
	} else {
		ring, err = randomRing()
	}
	if err != nil {
		fs.Close()
		return nil, nil, err
	}
	return reader.New(fs, cursor.NewCodec(ring, o.cursorTTL, nil), o.counter), func() { fs.Close() }, nil
}

// keyFilePath is the cursor key file --cursor-key-file names (flag), or
// the default one.
func keyFilePath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return cursor.DefaultKeyFile()
}

// pagerCounter is the counter the --tokenizer flag names.
func pagerCounter(c *cli.Context) (pager.Counter, error) {
	counter, err := tokencount.New(c.String("tokenizer"))
	if err != nil {
		return nil, toolerr.From(err)
	}
	return counter, nil
}

// throwawayReader is a reader whose cursors die with the process: for work
// that pages in-process and hands no cursor out.
func throwawayReader(fs *fsview.FS, counter pager.Counter) (*reader.Reader, error) {
	ring, err := randomRing()
	if err != nil {
		return nil, err
	}
	return reader.New(fs, cursor.NewCodec(ring, 0, nil), counter), nil
}

// randomRing is a key ring of one fresh random key.
func randomRing() (*cursor.Ring, error) {
	key := make([]byte, cursor.KeyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return cursor.NewRing(key)
}

func serverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "server", EnvVars: []string{"FOLIO_SERVER"}, Usage: "work through this MCP server's Streamable HTTP endpoint (http://host:port/mcp) instead of local files"},
		&cli.StringFlag{Name: "token", EnvVars: []string{"FOLIO_TOKEN"}, Usage: "bearer token for --server"},
	}
}

// checkServerFlags refuses --token without --server.
func checkServerFlags(c *cli.Context) error {
	if c.IsSet("token") && !c.IsSet("server") {
		return usageError(c, "--token goes with --server")
	}
	return nil
}

// localError is the error of a command-line argument naming a local file:
// one that does not exist says so plainly (the served-roots wording of
// fsview is for servers).
func localError(arg string, err error) *toolerr.Error {
	if errors.Is(err, fsview.ErrNotFound) {
		if _, serr := os.Lstat(arg); errors.Is(serr, fs.ErrNotExist) {
			return toolerr.Wrap(toolerr.CodeNotFound, err, "no such file")
		}
	}
	return toolerr.From(err)
}
