package bpe

import (
	"fmt"
)

// ErrUnknownToken is the error of Decode for an id that is not a token of
// the encoding (special tokens included: Encode never makes them).
var ErrUnknownToken = fmt.Errorf("not a token of the encoding")

// Decode returns the bytes tokens stand for, as tiktoken's decode_bytes
// does: Decode(Encode(s)) is s. The bytes of one token need not be
// whole UTF-8; those of all of Encode's are.
func (e *Encoding) Decode(ids []uint32) ([]byte, error) {
	starts := e.vocab.tokenStarts()
	var out []byte
	for _, id := range ids {
		if int(id) >= len(starts) {
			return nil, fmt.Errorf("%w: %d (%s has %d tokens)", ErrUnknownToken, id, e.name, len(starts))
		}
		at := starts[id]
		n := uint32(e.vocab.tokens[at])
		out = append(out, e.vocab.tokens[at+1:at+1+n]...)
	}
	return out, nil
}

// tokenStarts is where each token, by rank, starts in v.tokens: made on
// first use (a decode), so that a count never pays for it.
func (v *vocab) tokenStarts() []uint32 {
	v.startsOnce.Do(func() {
		v.starts = make([]uint32, 0, v.size)
		for at := 0; at < len(v.tokens) && len(v.starts) < v.size; at += 1 + int(v.tokens[at]) {
			v.starts = append(v.starts, uint32(at))
		}
	})
	return v.starts
}
