package reader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

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
// the chunks before it have been given. Each chunk is given with its
// tokens, as the counter counts it.
func Chunks(ctx context.Context, src io.Reader, req ChunkRequest, yield func(chunk []byte, tokens int) error) error {
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
		if err := yield(buf[:p.End], p.Tokens); err != nil {
			return err
		}
		if !p.HasMore {
			return nil
		}
		buf = buf[:copy(buf, buf[p.End:])]
	}
}

// countWindow is how much of a stream Count holds at once.
const countWindow = 1 << 20

// Count counts the tokens of the text src gives as it reads, holding a
// window of it, never the whole: it counts up to the last place in the
// window where both byte-pair pre-tokenizers always end a piece (after a
// line break, before an ASCII letter or digit), so that the parts' counts
// add up to the whole's. Text that is not UTF-8, holds a NUL byte or
// passes maxBytes (0: no cap) is an error (not_text, too_large) naming
// name.
func Count(ctx context.Context, src io.Reader, counter pager.Counter, maxBytes int64, name string) (int, error) {
	return count(ctx, src, counter, maxBytes, name, countWindow)
}

// count is Count with a window of the size given.
func count(ctx context.Context, src io.Reader, counter pager.Counter, maxBytes int64, name string, window int) (int, error) {
	// A counter of units (the estimate) adds up its units, not its
	// tokens, which are rounded up.
	measure, per := counter.Count, 1
	if uc, ok := counter.(interface {
		Units(s string) int
		UnitsPerToken() int
	}); ok {
		measure, per = uc.Units, uc.UnitsPerToken()
	}
	buf := make([]byte, 0, 2*window)
	var total int64
	n := 0
	for eof := false; !eof; {
		if err := ctx.Err(); err != nil {
			return 0, toolerr.From(err)
		}
		if len(buf) == cap(buf) {
			// No place to cut in the whole window: hold more.
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		k, err := src.Read(buf[len(buf):cap(buf)])
		fresh := buf[len(buf) : len(buf)+k]
		if i := bytes.IndexByte(fresh, 0); i >= 0 {
			return 0, fmt.Errorf("%w: %s holds a NUL byte (at byte %d)", fsview.ErrNotText, name, total+int64(i))
		}
		buf, total = buf[:len(buf)+k], total+int64(k)
		if maxBytes > 0 && total > maxBytes {
			return 0, fmt.Errorf("%w: %s is over the %d-byte cap", fsview.ErrTooLarge, name, maxBytes)
		}
		switch {
		case errors.Is(err, io.EOF):
			eof = true
		case err != nil:
			return 0, fmt.Errorf("reading %s: %w", name, err)
		}
		cut := len(buf)
		if !eof {
			if len(buf) < window {
				continue
			}
			cut = pieceEnd(buf)
			if cut == 0 {
				continue
			}
		}
		if !utf8.Valid(buf[:cut]) {
			return 0, fmt.Errorf("%w: %s is not valid UTF-8 (near byte %d)", fsview.ErrNotText, name, total-int64(len(buf)))
		}
		n += measure(string(buf[:cut]))
		buf = buf[:copy(buf, buf[cut:])]
	}
	return (n + per - 1) / per, nil
}

// pieceEnd is the last place in b where a piece of o200k_base's and
// cl100k_base's pre-tokenizers always ends, 0 when there is none: after
// "\n" and before an ASCII letter or digit, which no piece that holds a
// line break runs into, nor a piece that starts with a letter or digit
// reaches back over.
func pieceEnd(b []byte) int {
	for p := len(b) - 1; p > 0; p-- {
		if b[p-1] == '\n' && (b[p] >= '0' && b[p] <= '9' || b[p] >= 'a' && b[p] <= 'z' || b[p] >= 'A' && b[p] <= 'Z') {
			return p
		}
	}
	return 0
}
