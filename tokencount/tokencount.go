// Package tokencount counts the tokens of text as the models' tokenizers
// do: OpenAI's byte-pair encodings (o200k_base, cl100k_base), exactly as
// tiktoken counts (see package bpe), or the seed's estimate. Its counters
// are what package pager's Fit pages by; the client side of folio (package
// remote) never needs them, so they live apart from the page formats.
package tokencount

import (
	"fmt"
	"strings"

	"github.com/folio-mcp/folio/pager/bpe"
	"github.com/folio-mcp/folio/toolerr"
)

// Counter counts the tokens of a text. Implementations are safe for
// concurrent use.
type Counter interface {
	// Name is the counter's name as given on the command line.
	Name() string
	// Count returns the number of tokens in s. It keeps no reference to
	// s once it returns: the pager hands it memory it writes again.
	Count(s string) int
	// MaxBytesPerToken bounds how many bytes of text one token can stand
	// for, so that a window of budget*MaxBytesPerToken bytes always holds
	// more text than a page of that budget can carry.
	MaxBytesPerToken() int
}

// Tokenizer is a Counter that also gives the tokens themselves: the
// byte-pair encoders (not the estimate).
type Tokenizer interface {
	Counter
	// Encode returns the token ids of s; Decode the bytes of ids.
	Encode(s string) []uint32
	Decode(ids []uint32) ([]byte, error)
}

// ErrUnknown is returned by New for a name it does not know.
var ErrUnknown = toolerr.NewKind(toolerr.CodeInvalidArgument, "unknown tokenizer", "%v")

// Counter names accepted by New.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
	Estimate   = "estimate"
)

// Default is the counter used when none is named.
const Default = O200kBase

// Names lists the names New accepts.
func Names() []string { return []string{O200kBase, Cl100kBase, Estimate} }

// New returns the counter with the given name. The BPE counters count
// exactly as OpenAI's tiktoken does (see package bpe).
func New(name string) (Counter, error) {
	switch name {
	case O200kBase, Cl100kBase:
		enc, err := bpe.Load(name)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", name, err)
		}
		return bpeCounter{enc}, nil
	case Estimate:
		return estimateCounter{}, nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// bpeCounter counts with a byte-pair encoding: its Name and Count are the
// encoding's.
type bpeCounter struct{ *bpe.Encoding }

// MaxBytesPerToken is the length of the encoding's longest token.
func (c bpeCounter) MaxBytesPerToken() int { return c.MaxTokenBytes() }

// estimateCounter is the seed's upstream estimator, bit for bit: per code
// point 6 units for CJK and related ranges, 8 for any other code point above
// U+FFFF, 1 otherwise; tokens = ceil(units / 4). Its Units and
// UnitsPerToken let the pager add up the units of pieces exactly, where
// token counts of pieces would each round up.
type estimateCounter struct{}

func (estimateCounter) Name() string { return Estimate }

func (c estimateCounter) Count(s string) int {
	return (c.Units(s) + 3) / 4
}

// Units is the sum of the estimator's units over s's code points.
func (estimateCounter) Units(s string) int {
	units := 0
	for _, r := range s {
		units += estimateUnits(r)
	}
	return units
}

// UnitsPerToken is the estimator's divisor.
func (estimateCounter) UnitsPerToken() int { return 4 }

// MaxBytesPerToken: the cheapest code point is a three-byte one at one unit,
// so four units (one token) stand for at most twelve bytes.
func (estimateCounter) MaxBytesPerToken() int { return 12 }

func estimateUnits(r rune) int {
	switch {
	case r >= 0x3400 && r <= 0x4DBF,
		r >= 0x4E00 && r <= 0x9FFF,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0x20000 && r <= 0x2EBEF,
		r >= 0x3040 && r <= 0x30FF,
		r >= 0x31F0 && r <= 0x31FF,
		r >= 0xAC00 && r <= 0xD7AF,
		r >= 0x1100 && r <= 0x11FF,
		r >= 0x3130 && r <= 0x318F,
		r >= 0xFF00 && r <= 0xFFEF,
		r >= 0x3000 && r <= 0x303F:
		return 6
	case r > 0xFFFF:
		return 8
	}
	return 1
}
