package reader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/pager/bpe"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
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
	if e := wire.CheckMaxTokens(req.MaxTokens, MaxTokensLimit); e != nil {
		return e
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

// countWindow is how much of a text Count hands a counter at once: the
// windows are counted on every core, a few of them held at a time.
const countWindow = 256 << 10

// Count counts the tokens of the text src gives as it reads, holding a few
// windows of it, never the whole: it cuts each at the last place in it
// where both byte-pair pre-tokenizers always end a piece (see pieceEnd),
// so that the parts' counts add up to the whole's, and counts the windows
// on every core at once. Text that is not UTF-8, holds a NUL byte or
// passes maxBytes (0: no cap) is an error (not_text, too_large) naming
// name.
func Count(ctx context.Context, src io.Reader, counter pager.Counter, maxBytes int64, name string) (int, error) {
	return count(ctx, src, counter, maxBytes, name, countWindow)
}

// CountText is Count of text already read and checked (UTF-8, no NUL).
func CountText(ctx context.Context, text []byte, counter pager.Counter) (int, error) {
	return countText(ctx, text, counter, countWindow)
}

// countText is CountText with a window of the size given.
func countText(ctx context.Context, text []byte, counter pager.Counter, window int) (int, error) {
	return countParts(ctx, counter, func(yield func(string) bool) error {
		for len(text) > 0 {
			cut := len(text)
			if cut > window {
				// The last place to cut in the window, else the first
				// after it.
				if cut = pieceEnd(text[:window]); cut == 0 {
					cut = window + pieceStart(text[window:])
				}
			}
			if !yield(string(text[:cut])) {
				return nil
			}
			text = text[cut:]
		}
		return nil
	})
}

// count is Count with a window of the size given.
func count(ctx context.Context, src io.Reader, counter pager.Counter, maxBytes int64, name string, window int) (int, error) {
	return countParts(ctx, counter, func(yield func(string) bool) error {
		buf := make([]byte, 0, 2*window)
		var total int64
		for eof := false; !eof; {
			if err := ctx.Err(); err != nil {
				return toolerr.From(err)
			}
			if len(buf) == cap(buf) {
				// No place to cut in the whole window: hold more.
				buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
			}
			k, err := src.Read(buf[len(buf):cap(buf)])
			fresh := buf[len(buf) : len(buf)+k]
			if i := bytes.IndexByte(fresh, 0); i >= 0 {
				return fmt.Errorf("%w: %s holds a NUL byte (at byte %d)", fsview.ErrNotText, name, total+int64(i))
			}
			buf, total = buf[:len(buf)+k], total+int64(k)
			if maxBytes > 0 && total > maxBytes {
				return fmt.Errorf("%w: %s is over the %d-byte cap", fsview.ErrTooLarge, name, maxBytes)
			}
			switch {
			case errors.Is(err, io.EOF):
				eof = true
			case err != nil:
				return fmt.Errorf("reading %s: %w", name, err)
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
				return fmt.Errorf("%w: %s is not valid UTF-8 (near byte %d)", fsview.ErrNotText, name, total-int64(len(buf)))
			}
			if !yield(string(buf[:cut])) {
				return nil
			}
			buf = buf[:copy(buf, buf[cut:])]
		}
		return nil
	})
}

// countParts counts the parts that parts yields, on every core at once,
// and adds up their counts. parts stops when yield returns false (the
// count failed); its error ends the count.
func countParts(ctx context.Context, counter pager.Counter, parts func(yield func(string) bool) error) (int, error) {
	// A counter of units (the estimate) adds up its units, not its
	// tokens, which are rounded up.
	measure, per := counter.Count, 1
	if uc, ok := counter.(interface {
		Units(s string) int
		UnitsPerToken() int
	}); ok {
		measure, per = uc.Units, uc.UnitsPerToken()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var total atomic.Int64
	todo := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for s := range todo {
				total.Add(int64(measure(s)))
			}
		})
	}
	err := parts(func(s string) bool {
		select {
		case todo <- s:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(todo)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return 0, toolerr.From(err)
	}
	return int((total.Load() + int64(per) - 1) / int64(per)), nil
}

// pieceEnd is the last place in b where a piece of o200k_base's and
// cl100k_base's pre-tokenizers always ends, 0 when there is none: after
// "\n" and before a letter or a digit (\p{L}, \p{N}), which no piece
// that holds a line break runs into, nor a piece that starts with a letter
// or digit reaches back over.
func pieceEnd(b []byte) int {
	for p := len(b) - 1; p > 0; p-- {
		p = bytes.LastIndexByte(b[:p], '\n') + 1
		if p <= 0 {
			return 0
		}
		if startsWord(b[p:]) {
			return p
		}
	}
	return 0
}

// pieceStart is the first place in b where a piece always ends (see
// pieceEnd), else len(b).
func pieceStart(b []byte) int {
	for p := 0; p < len(b); {
		i := bytes.IndexByte(b[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
		if startsWord(b[p:]) {
			return p
		}
	}
	return len(b)
}

// startsWord reports whether b starts with a letter or a digit.
func startsWord(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if c := b[0]; c < utf8.RuneSelf {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	r, n := utf8.DecodeRune(b)
	return n > 1 && bpe.IsWordRune(r)
}
