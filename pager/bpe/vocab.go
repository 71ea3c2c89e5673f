package bpe

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
)

//go:embed data/*.gz
var vocabFiles embed.FS

// ErrUnknownEncoding is returned by Load for a name it does not know.
var ErrUnknownEncoding = errors.New("unknown encoding")

// A vocabulary entry packs what a lookup needs into one word, so that a
// probe that does not match rarely touches the token bytes: the token's
// rank, its length, its offset in vocab.tokens, and some bits of its hash.
const (
	rankBits   = 20
	lenBits    = 8
	offsetBits = 24
	tagBits    = 64 - rankBits - lenBits - offsetBits

	lenShift    = rankBits
	offsetShift = rankBits + lenBits
	tagShift    = rankBits + lenBits + offsetBits
)

// vocab maps token bytes to ranks: an open-addressing table with linear
// probing, sized to at most 3/8 full.
type vocab struct {
	tokens string   // the vocabulary file: a length byte, then the token, for each rank
	starts []uint32 // starts[r] is the offset of token r's bytes in tokens
	table  []uint64 // packed entries, 0 for an empty slot
	mask   uint64
	seed   maphash.Seed
	maxLen int
}

// loadVocab reads an embedded vocabulary file: every token of the encoding
// in rank order, each as one length byte and its bytes.
func loadVocab(name string) (*vocab, error) {
	gz, err := vocabFiles.ReadFile("data/" + name + ".gz")
	if err != nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEncoding, name)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("vocabulary %s: %w", name, err)
	}
	var buf bytes.Buffer
	buf.Grow(len(gz) * 2)
	if _, err := io.Copy(&buf, zr); err != nil {
		return nil, fmt.Errorf("vocabulary %s: %w", name, err)
	}
	return newVocab(buf.String())
}

// newVocab indexes a vocabulary in the embedded files' format.
func newVocab(data string) (*vocab, error) {
	v := &vocab{tokens: data, seed: maphash.MakeSeed()}
	for off := 0; off < len(data); {
		n := int(data[off])
		if n == 0 || off+1+n > len(data) {
			return nil, fmt.Errorf("vocabulary: bad token at byte %d", off)
		}
		v.starts = append(v.starts, uint32(off+1))
		v.maxLen = max(v.maxLen, n)
		off += 1 + n
	}
	if len(v.starts) >= 1<<rankBits || len(data) >= 1<<offsetBits {
		return nil, fmt.Errorf("vocabulary: %d tokens in %d bytes is too large", len(v.starts), len(data))
	}
	size := uint64(1) << bits.Len(uint(len(v.starts)*8/3))
	v.table, v.mask = make([]uint64, size), size-1
	for r, start := range v.starts {
		tok := v.token(r)
		if _, ok := v.rank(tok); ok {
			return nil, fmt.Errorf("vocabulary: token %d repeats an earlier one", r)
		}
		h := maphash.String(v.seed, tok)
		i := h & v.mask
		for v.table[i] != 0 {
			i = (i + 1) & v.mask
		}
		v.table[i] = h>>(64-tagBits)<<tagShift | uint64(start-1)<<offsetShift | uint64(len(tok))<<lenShift | uint64(r)
	}
	for b := 0; b < 256; b++ {
		if _, ok := v.rank(string([]byte{byte(b)})); !ok {
			return nil, fmt.Errorf("vocabulary: no token for byte %#02x", b)
		}
	}
	return v, nil
}

// token returns the bytes of the token of rank r.
func (v *vocab) token(r int) string {
	start := v.starts[r]
	return v.tokens[start : start+uint32(v.tokens[start-1])]
}

// size is the number of tokens.
func (v *vocab) size() int { return len(v.starts) }

// rank returns the rank of the token whose bytes are s.
func (v *vocab) rank(s string) (uint32, bool) {
	if len(s) > v.maxLen {
		return 0, false
	}
	h := maphash.String(v.seed, s)
	tag := h >> (64 - tagBits)
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := v.table[i]
		if e == 0 {
			return 0, false
		}
		if e>>tagShift != tag || int(e>>lenShift&(1<<lenBits-1)) != len(s) {
			continue
		}
		// The entry's offset is that of the length byte.
		off := e>>offsetShift&(1<<offsetBits-1) + 1
		if v.tokens[off:off+uint64(len(s))] == s {
			return uint32(e & (1<<rankBits - 1)), true
		}
	}
}
