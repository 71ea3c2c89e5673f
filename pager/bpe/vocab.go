package bpe

import (
	_ "embed"
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

// The vocabularies, compiled in as they are, so that loading one costs
// nothing: the tokens (written by testdata/tokref/generate.mjs from
// tiktoken's own files) and their index (written by buildIndex; the test
// TestIndexIsCurrent keeps it in step with the tokens).
var (
	//go:embed data/o200k_base.tokens
	o200kTokens string
	//go:embed data/o200k_base.index
	o200kIndex string
	//go:embed data/cl100k_base.tokens
	cl100kTokens string
	//go:embed data/cl100k_base.index
	cl100kIndex string
)

// ErrUnknownEncoding is returned by Load for a name it does not know.
var ErrUnknownEncoding = errors.New("unknown encoding")

// errBadIndex says that an index does not fit its tokens.
var errBadIndex = errors.New("vocabulary index does not match its tokens")

// An index is a header, the rank of every two-byte string (noRank when it
// is no token), and an open-addressing table with linear probing, sized to
// at most half full, of entries that pack what a lookup needs into one word,
// so that a probe that does not match rarely touches the token bytes: the
// token's rank, its length, its offset in the tokens, and some bits of its
// hash. All numbers are little-endian.
const (
	headerSize = 16 // "bpe1", tokens, longest token, log2 of the table size
	pairsSize  = 4 << 16
	indexMagic = "bpe1"

	rankBits   = 20
	lenBits    = 8
	offsetBits = 24
	tagBits    = 64 - rankBits - lenBits - offsetBits

	lenShift    = rankBits
	offsetShift = rankBits + lenBits
	tagShift    = 64 - tagBits
	rankMask    = 1<<rankBits - 1
)

// vocab maps token bytes to ranks.
type vocab struct {
	tokens string      // each token in rank order: a length byte, then its bytes
	pairs  string      // the ranks of the two-byte strings
	table  string      // the entries
	mask   uint64      // table entries - 1
	size   int         // number of tokens
	maxLen int         // length of the longest token
	bytes  [256]uint32 // the rank of each one-byte token
	// starts is where each token starts in tokens, made once by
	// tokenStarts.
	starts     []uint32
	startsOnce sync.Once
}

// newVocab opens a vocabulary from its tokens and its index.
func newVocab(tokens, index string) (*vocab, error) {
	if len(index) < headerSize+pairsSize || index[:4] != indexMagic {
		return nil, errBadIndex
	}
	v := &vocab{
		tokens: tokens,
		pairs:  index[headerSize : headerSize+pairsSize],
		table:  index[headerSize+pairsSize:],
		size:   int(le32(index, 4)),
		maxLen: int(le32(index, 8)),
	}
	if v.size >= rankMask {
		return nil, errBadIndex
	}
	entries := uint64(1) << le32(index, 12)
	if uint64(len(v.table)) != 8*entries {
		return nil, errBadIndex
	}
	v.mask = entries - 1
	for b := range v.bytes {
		r, ok := v.rank(string([]byte{byte(b)}))
		if !ok {
			return nil, errBadIndex
		}
		v.bytes[b] = r
	}
	return v, nil
}

// rank returns the rank of the token whose bytes are s.
func (v *vocab) rank(s string) (uint32, bool) {
	if len(s) == 2 {
		r := le32(v.pairs, 4*(int(s[0])<<8|int(s[1])))
		return r, r != noRank
	}
	if len(s) > v.maxLen || len(s) == 0 {
		return 0, false
	}
	h := hashString(s)
	tag := h >> tagShift
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := le64(v.table, int(i)*8)
		if e == 0 {
			return 0, false
		}
		if e>>tagShift != tag || int(e>>lenShift&(1<<lenBits-1)) != len(s) {
			continue
		}
		off := int(e >> offsetShift & (1<<offsetBits - 1))
		if v.tokens[off:off+len(s)] == s {
			return uint32(e & rankMask), true
		}
	}
}

// tokenList splits a tokens file into its tokens, in rank order.
func tokenList(tokens string) ([]string, error) {
	var list []string
	for off := 0; off < len(tokens); {
		n := int(tokens[off])
		if n == 0 || off+1+n > len(tokens) {
			return nil, fmt.Errorf("tokens: bad token at byte %d", off)
		}
		list = append(list, tokens[off+1:off+1+n])
		off += 1 + n
	}
	return list, nil
}

// buildIndex makes the index of a tokens file. Every byte must be a token
// of its own, and no token may repeat.
func buildIndex(tokens string) ([]byte, error) {
	list, err := tokenList(tokens)
	if err != nil {
		return nil, err
	}
	if len(list) >= 1<<rankBits || len(tokens) >= 1<<offsetBits {
		return nil, fmt.Errorf("tokens: %d tokens in %d bytes is too many", len(list), len(tokens))
	}
	logSize := bits.Len(uint(2*len(list) - 1))
	table := make([]uint64, 1<<logSize)
	mask := uint64(len(table) - 1)
	pairs := make([]uint32, 1<<16)
	for i := range pairs {
		pairs[i] = noRank
	}
	maxLen, singles, off := 0, 0, 1
	for r, tok := range list {
		maxLen = max(maxLen, len(tok))
		switch len(tok) {
		case 1:
			singles++
		case 2:
			pairs[int(tok[0])<<8|int(tok[1])] = uint32(r)
		}
		h := hashString(tok)
		i := h & mask
		for ; table[i] != 0; i = (i + 1) & mask {
			if e := table[i]; int(e>>lenShift&(1<<lenBits-1)) == len(tok) && tokens[e>>offsetShift&(1<<offsetBits-1):][:len(tok)] == tok {
				return nil, fmt.Errorf("tokens: token %d repeats token %d", r, e&rankMask)
			}
		}
		table[i] = h>>tagShift<<tagShift | uint64(off)<<offsetShift | uint64(len(tok))<<lenShift | uint64(r)
		off += 1 + len(tok)
	}
	if singles != 256 {
		return nil, fmt.Errorf("tokens: %d one-byte tokens, want 256", singles)
	}
	b := make([]byte, 0, headerSize+pairsSize+8*len(table))
	b = append(b, indexMagic...)
	b = appendLE(b, uint64(len(list)), 4)
	b = appendLE(b, uint64(maxLen), 4)
	b = appendLE(b, uint64(logSize), 4)
	for _, r := range pairs {
		b = appendLE(b, uint64(r), 4)
	}
	for _, e := range table {
		b = appendLE(b, e, 8)
	}
	return b, nil
}

func appendLE(b []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func le32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func le64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hashString is a fixed hash of s, with no seed, so that the index can be
// built once. A hostile text cannot lengthen the probes: the table is fixed,
// and a lookup stops at the end of the run of entries its hash lands in.
func hashString(s string) uint64 {
	const p0, p1, p2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3
	n := len(s)
	var a, b uint64
	switch {
	case n > 16:
		h := uint64(n) * p0
		for i := 0; i+16 < n; i += 16 {
			h = mix(le64(s, i)^p1, le64(s, i+8)^h)
		}
		a, b = le64(s, n-16)^h, le64(s, n-8)
	case n >= 8:
		a, b = le64(s, 0), le64(s, n-8)
	case n >= 4:
		a, b = uint64(le32(s, 0)), uint64(le32(s, n-4))
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(a^p1, b^p2^uint64(n))
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
