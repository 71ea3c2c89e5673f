package bpe

import "fmt"

// Names of the encodings Load knows.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// Encoding is one of tiktoken's byte-pair encodings, ready to count and
// encode text. It is safe for concurrent use.
type Encoding struct {
	name  string
	vocab *vocab
	split func(s string, i int) int // the end of the piece at s[i]
}

// Load returns the encoding with the given name. It decompresses and indexes
// the encoding's vocabulary (a few milliseconds, a few MiB): load one per
// process and share it.
func Load(name string) (*Encoding, error) {
	var split func(string, int) int
	switch name {
	case O200kBase:
		split = nextO200k
	case Cl100kBase:
		split = nextCl100k
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnknownEncoding, name)
	}
	v, err := loadVocab(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Encoding{name: name, vocab: v, split: split}, nil
}

// Name is the encoding's name, as tiktoken gives it.
func (e *Encoding) Name() string { return e.name }

// MaxTokenBytes is the length of the encoding's longest token: no token
// stands for more bytes of text.
func (e *Encoding) MaxTokenBytes() int { return e.vocab.maxLen }

// Count returns the number of tokens of s: len(Encode(s)), without building
// the tokens.
func (e *Encoding) Count(s string) int {
	n := 0
	var bounds []int
	for i := 0; i < len(s); {
		j := e.split(s, i)
		if j-i == 1 {
			n++
		} else if _, ok := e.vocab.rank(s[i:j]); ok {
			n++
		} else {
			bounds = e.vocab.merge(s[i:j], bounds[:0])
			n += len(bounds) - 1
		}
		i = j
	}
	return n
}

// Encode returns the tokens of s, as tiktoken's encode_ordinary does: text
// that looks like a special token is encoded as ordinary text. Bytes that
// are not valid UTF-8 are encoded as they are.
func (e *Encoding) Encode(s string) []uint32 {
	var ids []uint32
	var bounds []int
	for i := 0; i < len(s); {
		j := e.split(s, i)
		if r, ok := e.vocab.rank(s[i:j]); ok {
			ids = append(ids, r)
		} else {
			bounds = e.vocab.merge(s[i:j], bounds[:0])
			for k := 0; k+1 < len(bounds); k++ {
				r, _ := e.vocab.rank(s[i+bounds[k] : i+bounds[k+1]])
				ids = append(ids, r)
			}
		}
		i = j
	}
	return ids
}
