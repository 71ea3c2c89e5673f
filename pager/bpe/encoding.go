package bpe

import (
	"fmt"
	"sync"
)

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
	// idle are the mergers not in use, kept across garbage collections
	// (unlike a sync.Pool's) so that their join caches stay warm: at most
	// maxIdleMergers.
	mu   sync.Mutex
	idle []*merger
}

// Load returns the encoding with the given name. Its vocabulary is
// compiled in and indexed ahead of time, so loading costs next to nothing.
func Load(name string) (*Encoding, error) {
	var tokens, index string
	var split func(string, int) int
	switch name {
	case O200kBase:
		tokens, index, split = o200kTokens, o200kIndex, nextO200k
	case Cl100kBase:
		tokens, index, split = cl100kTokens, cl100kIndex, nextCl100k
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnknownEncoding, name)
	}
	v, err := newVocab(tokens, index)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	e := &Encoding{name: name, vocab: v, split: split}
	return e, nil
}

// Name is the encoding's name, as tiktoken gives it.
func (e *Encoding) Name() string { return e.name }

// MaxTokenBytes is the length of the encoding's longest token: no token
// stands for more bytes of text.
func (e *Encoding) MaxTokenBytes() int { return e.vocab.maxLen }

// Count returns the number of tokens of s: len(Encode(s)), without keeping
// the tokens.
func (e *Encoding) Count(s string) int {
	n, _ := e.encode(s, false)
	return n
}

// Encode returns the tokens of s, as tiktoken's encode_ordinary does: text
// that looks like a special token is encoded as ordinary text. Bytes that
// are not valid UTF-8 are encoded as they are.
func (e *Encoding) Encode(s string) []uint32 {
	_, ids := e.encode(s, true)
	return ids
}

// encode counts the tokens of s, piece by piece, and returns them too when
// keep is set.
func (e *Encoding) encode(s string, keep bool) (int, []uint32) {
	n := 0
	var ids []uint32
	var m *merger
	for i := 0; i < len(s); {
		j := e.split(s, i)
		r, ok := e.vocab.bytes[s[i]], j-i == 1
		if !ok {
			r, ok = e.vocab.rank(s[i:j])
		}
		switch {
		case ok:
			n++
			if keep {
				ids = append(ids, r)
			}
		default:
			if m == nil {
				m = e.merger()
				defer e.release(m)
			}
			if !keep {
				ids = ids[:0]
			}
			before := len(ids)
			ids = e.vocab.merge(s[i:j], m, ids)
			n += len(ids) - before
		}
		i = j
	}
	return n, ids
}

// keptPieceBytes bounds the pieces whose nodes a merger keeps (see
// release), so that one huge piece does not keep its memory alive: 1 MiB
// of nodes.
const keptPieceBytes = 64 << 10

// maxIdleMergers bounds the mergers an encoding keeps: 256 KiB of join
// cache each, and at most 1 MiB of nodes.
const maxIdleMergers = 8

// merger takes an idle merger, or makes one.
func (e *Encoding) merger() *merger {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := len(e.idle); n > 0 {
		m := e.idle[n-1]
		e.idle = e.idle[:n-1]
		return m
	}
	return new(merger)
}

// release gives m back, to be kept if there is room.
func (e *Encoding) release(m *merger) {
	if cap(m.nodes) > keptPieceBytes {
		m.nodes, m.queue = nil, rankQueue{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.idle) < maxIdleMergers {
		e.idle = append(e.idle, m)
	}
}
