package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
)

// errStop ends a walk of pages or chunks early, as asked.
var errStop = errors.New("stop")

// readChunks writes the raw chunks of a file or of standard input (see
// read's --format raw).
func readChunks(c *cli.Context, o readOptions) error {
	src, name, err := chunkSource(c, o)
	if err != nil {
		return fail(c, false, err)
	}
	defer src.Close()
	out := bufio.NewWriterSize(c.App.Writer, 64<<10)
	n := 0
	write := func(chunk []byte, tokens int) error {
		n++
		switch o.chunkSep {
		case "":
			out.Write(chunk)
			return errStop // the first chunk only
		case "null":
			out.Write(chunk)
			return out.WriteByte(0)
		case "jsonl":
			b, err := chunkJSON(chunk, tokens)
			if err != nil {
				return err
			}
			_, err = out.Write(b)
			return err
		}
		path := o.splitPrefix + splitSuffix(n-1)
		file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return toolerr.Invalid("--split %s: %v", o.splitPrefix, err)
		}
		_, werr := file.Write(chunk)
		if err := file.Close(); werr == nil {
			werr = err
		}
		return werr
	}
	err = reader.Chunks(c.Context, src, reader.ChunkRequest{Counter: o.counter, MaxTokens: *o.args.MaxTokens, Tight: o.tight, MaxBytes: streamCap(c), Name: name}, write)
	if ferr := out.Flush(); err == nil || errors.Is(err, errStop) {
		err = ferr
	}
	if err != nil {
		if n > 1 {
			fmt.Fprintf(c.App.ErrWriter, "folio: the %d chunks before this error were written\n", n-1)
		}
		return fail(c, false, err)
	}
	return nil
}

// chunkSource is what read --format raw chunks: standard input, or the
// file (checked as the reader checks one, then streamed), and its name.
func chunkSource(c *cli.Context, o readOptions) (io.ReadCloser, string, error) {
	if o.stdin {
		return io.NopCloser(c.App.Reader), o.name, nil
	}
	fs, err := fsview.Open([]string{"/"}, fsview.Options{MaxFileBytes: o.maxFileBytes})
	if err != nil {
		return nil, "", err
	}
	defer fs.Close()
	f, err := fs.Regular(o.args.Path)
	if err != nil {
		return nil, "", err
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, "", err
	}
	return file, f.Path, nil
}

// chunkJSON is a chunk as a JSON Lines object: its content, raw UTF-8 and
// no HTML escaping, and its tokens.
func chunkJSON(chunk []byte, tokens int) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Content string `json:"content"`
		Tokens  int    `json:"tokens"`
	}{string(chunk), tokens})
	return []byte(b.String()), err
}

// splitSuffix is the suffix split(1) gives its i-th output file (from 0)
// by default: aa to yz, then zaaa to zyzz, then zzaaaa…: each width's
// names begin with a letter other than z, so none is another's prefix.
func splitSuffix(i int) string {
	zs, width := 0, 2
	for {
		block := 25
		for range width - 1 {
			block *= 26
		}
		if i < block {
			break
		}
		i -= block
		zs, width = zs+1, width+1
	}
	letters := make([]byte, width)
	for k := width - 1; k >= 0; k-- {
		letters[k] = byte('a' + i%26)
		i /= 26
	}
	return strings.Repeat("z", zs) + string(letters)
}
