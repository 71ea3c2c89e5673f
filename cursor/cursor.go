package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/folio-mcp/folio/toolerr"
)

// Errors returned by Codec.Decode.
var (
	// ErrInvalid: the cursor is malformed, was changed, was signed by no
	// key of the ring, or was issued for another URI or subject.
	ErrInvalid = toolerr.NewKind(toolerr.CodeInvalidCursor, "invalid cursor", "the cursor is not valid for this file and caller (%v); pass next_cursor from the previous page unchanged, with the same uri, or restart without a cursor")
	// ErrExpired: the cursor is genuine but older than the TTL.
	ErrExpired = toolerr.NewKind(toolerr.CodeCursorExpired, "cursor expired", "the cursor has expired; restart the read without a cursor")
)

// format is the first byte of every cursor of this layout.
const format = 1

// Layout of the raw cursor.
const (
	offFormat  = 0
	offKeyID   = 1
	offOffset  = 2  // 5 bytes, big endian: offsets below 1 TiB
	offVersion = 7  // 16 bytes
	offIssued  = 23 // 4 bytes, Unix seconds, big endian
	offMAC     = 27 // 16 bytes
	rawLen     = 43

	// MaxOffset is the largest offset a cursor can carry.
	MaxOffset = 1<<40 - 1
	// VersionLen is the length of the version a cursor binds. It must equal
	// fsview.VersionLen: reader puts fsview's Short version into a cursor,
	// so the build fails when they differ.
	VersionLen = 16
)

// EncodedLen is the length of every cursor string: rawLen bytes in
// unpadded base64.
const EncodedLen = (rawLen*8 + 5) / 6

// State is what a cursor carries.
type State struct {
	// Offset is the byte offset the next page starts at.
	Offset int64
	// Version is the content version the offset belongs to.
	Version [VersionLen]byte
	// Issued is when the chain of cursors began (whole seconds).
	Issued time.Time
}

// Codec signs and verifies cursors with a key ring.
type Codec struct {
	ring *Ring
	ttl  time.Duration
	now  func() time.Time
}

// NewCodec returns a codec that signs with the ring's newest key and
// refuses cursors older than ttl (ttl <= 0: never). now is the clock
// (time.Now when nil).
func NewCodec(ring *Ring, ttl time.Duration, now func() time.Time) *Codec {
	if now == nil {
		now = time.Now
	}
	return &Codec{ring: ring, ttl: ttl, now: now}
}

// Now is the codec's clock, for the issue time of a new chain.
func (c *Codec) Now() time.Time { return c.now() }

// Encode returns the cursor for st, bound to uri and subject.
func (c *Codec) Encode(st State, uri, subject string) (string, error) {
	if st.Offset < 0 || st.Offset > MaxOffset {
		return "", fmt.Errorf("cursor offset %d out of range", st.Offset)
	}
	secs := st.Issued.Unix()
	if secs < 0 || secs > 1<<32-1 {
		return "", fmt.Errorf("cursor issue time %v out of range", st.Issued)
	}
	k := c.ring.signer()
	var raw [rawLen]byte
	raw[offFormat] = format
	raw[offKeyID] = k.id
	putUint40(raw[offOffset:], uint64(st.Offset))
	copy(raw[offVersion:], st.Version[:])
	binary.BigEndian.PutUint32(raw[offIssued:], uint32(secs))
	copy(raw[offMAC:], k.mac(raw[:offMAC], uri, subject))
	return base64.RawURLEncoding.EncodeToString(raw[:]), nil
}

// Decode verifies s for uri and subject and returns its state. Any change
// to s, or another uri or subject, is ErrInvalid; a genuine cursor older
// than the TTL is ErrExpired.
func (c *Codec) Decode(s, uri, subject string) (State, error) {
	if len(s) != EncodedLen {
		return State{}, fmt.Errorf("%w: wrong length", ErrInvalid)
	}
	var raw [rawLen]byte
	n, err := base64.RawURLEncoding.Strict().Decode(raw[:], []byte(s))
	if err != nil || n != rawLen {
		return State{}, fmt.Errorf("%w: not base64url", ErrInvalid)
	}
	if raw[offFormat] != format {
		return State{}, fmt.Errorf("%w: unknown format", ErrInvalid)
	}
	ok := false
	for _, k := range c.ring.keys {
		if k.id == raw[offKeyID] && hmac.Equal(raw[offMAC:], k.mac(raw[:offMAC], uri, subject)) {
			ok = true
			break
		}
	}
	if !ok {
		return State{}, fmt.Errorf("%w: signature does not match", ErrInvalid)
	}
	st := State{
		Offset: int64(uint40(raw[offOffset:])),
		Issued: time.Unix(int64(binary.BigEndian.Uint32(raw[offIssued:])), 0),
	}
	copy(st.Version[:], raw[offVersion:])
	if c.ttl > 0 && c.now().Sub(st.Issued) > c.ttl {
		return State{}, ErrExpired
	}
	return st, nil
}

// mac is the truncated HMAC-SHA256 of the cursor's fields, the URI and the
// subject, each of the latter two prefixed with its length.
func (k key) mac(fields []byte, uri, subject string) []byte {
	h := hmac.New(sha256.New, k.secret[:])
	h.Write(fields)
	var n [8]byte
	for _, s := range []string{uri, subject} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return h.Sum(nil)[:rawLen-offMAC]
}

func putUint40(b []byte, v uint64) {
	b[0], b[1], b[2], b[3], b[4] = byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func uint40(b []byte) uint64 {
	return uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
}
