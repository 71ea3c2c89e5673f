package reader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

// ChunkRequest asks for the raw chunks of a text as it streams in.
type ChunkRequest struct {
	Counter   pager.Counter
	MaxTokens int
	// Tight cuts each chunk as late as its budget allows; otherwise it is
	// cut where a person would (pager.NaturalCut).
	Tight bool
	// MaxBytes caps the text (0: no cap).
	MaxBytes int64
	// Name names the text in errors.
	Name string
}

// Chunks cuts the text src gives into chunks of at most MaxTokens tokens
// (pager.Raw: the content alone is counted), in order, as it reads: what
// it holds is a window of pager.WindowBytes and what the last chunk left
// of it, never the whole text. The chunks concatenated are the text, byte
// for byte; empty text has none. Text that is not UTF-8, holds a NUL byte
// or passes MaxBytes is an error (not_text, too_large) when it is found:
// the chunks before it have been given.
func Chunks(ctx context.Context, src io.Reader, req ChunkRequest, yield func(chunk []byte) error) error {
	if req.MaxTokens <= 0 || req.MaxTokens > MaxTokensLimit {
		return toolerr.Invalid("max_tokens must be between 1 and %d", MaxTokensLimit)
	}
	window := int(pager.WindowBytes(req.Counter, req.MaxTokens))
	buf := make([]byte, 0, window+64<<10)
	var total int64
	eof := false
	for {
		for !eof && len(buf) < window {
			if err := ctx.Err(); err != nil {
				return toolerr.From(err)
			}
			n, err := src.Read(buf[len(buf):cap(buf)])
			if bytes.IndexByte(buf[len(buf):len(buf)+n], 0) >= 0 {
				return fmt.Errorf("%w: %s holds a NUL byte (at byte %d)", fsview.ErrNotText, req.Name, total+int64(bytes.IndexByte(buf[len(buf):len(buf)+n], 0)))
			}
			buf, total = buf[:len(buf)+n], total+int64(n)
			if req.MaxBytes > 0 && total > req.MaxBytes {
				return fmt.Errorf("%w: %s is over the %d-byte cap", fsview.ErrTooLarge, req.Name, req.MaxBytes)
			}
			switch {
			case errors.Is(err, io.EOF):
				eof = true
			case err != nil:
				return fmt.Errorf("reading %s: %w", req.Name, err)
			}
		}
		if len(buf) == 0 {
			return nil
		}
		p, err := pager.Fit(pager.Request{Counter: req.Counter, MaxTokens: req.MaxTokens, Format: pager.Raw, Window: buf, EOF: eof, Natural: !req.Tight})
		if errors.Is(err, pager.ErrInvalidRequest) {
			return fmt.Errorf("%w: %s is not valid UTF-8 (near byte %d)", fsview.ErrNotText, req.Name, total-int64(len(buf)))
		}
		if err != nil {
			return toolerr.From(err)
		}
		if err := yield(buf[:p.End]); err != nil {
			return err
		}
		if !p.HasMore {
			return nil
		}
		buf = buf[:copy(buf, buf[p.End:])]
	}
}
