package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/folio-mcp/folio/toolerr"
)

// Errors returned by Codec.Verify and Parse.
var (
	// ErrInvalid: the cursor is malformed, was changed, was signed by no
	// key of the ring, or was issued for another URI or subject.
	ErrInvalid = toolerr.NewKind(toolerr.CodeInvalidCursor, "invalid cursor", "the cursor is not valid for this file and caller (%v); pass next_cursor from the previous page unchanged, with the same path, or restart without a cursor")
	// ErrExpired: the cursor is genuine but older than the TTL.
	ErrExpired = toolerr.NewKind(toolerr.CodeCursorExpired, "cursor expired", "the cursor has expired; restart the read without a cursor")
	// ErrChanged: the cursor was issued for this URI and subject, but for
	// another version of the file (its version hint says so).
	ErrChanged = errors.New("the file changed since the cursor was issued")
)

// The fields of a cursor, least significant last: the offset takes the
// bits above the others, as many as it needs, so that a cursor near a
// file's start is shorter.
const (
	minuteBits = 24 // minutes since epoch: until 2056
	tagBits    = 16 // of the URI and subject
	hintBits   = 16 // of the version
	macBits    = 128
	lowBits    = minuteBits + tagBits + hintBits + macBits

	// MaxOffset is the largest offset a cursor can carry.
	MaxOffset = 1<<40 - 1
	// VersionLen is the length of the version a cursor binds. It must equal
	// fsview.VersionLen: reader puts fsview's Short version into a cursor,
	// so the build fails when they differ.
	VersionLen = 16
	// MaxLen is the length of the longest cursor, at MaxOffset: digits of
	// a number of 40 + lowBits bits.
	MaxLen = 68

	// format is in every MAC, so that a cursor of another layout never
	// verifies.
	format = 2
)

// epoch is minute 0 of a cursor's issue time.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// State is what a cursor carries.
type State struct {
	// Offset is the byte offset the next page starts at.
	Offset int64
	// Version is the content version the offset belongs to.
	Version [VersionLen]byte
	// Issued is when the chain of cursors began (whole minutes).
	Issued time.Time
}

// Claim is a cursor read but not verified: the offset it names, and what
// Verify checks it by.
type Claim struct {
	// Offset is the byte offset the cursor names; trust it only once
	// Verify says the cursor is genuine.
	Offset    int64
	minutes   uint32
	tag, hint uint16
	mac       [macBits / 8]byte
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

// Encode returns the cursor for st, bound to uri and subject: a decimal
// number (digits tokenize densest: about ten bits a token), at most MaxLen
// digits.
func (c *Codec) Encode(st State, uri, subject string) (string, error) {
	if st.Offset < 0 || st.Offset > MaxOffset {
		return "", fmt.Errorf("cursor offset %d out of range", st.Offset)
	}
	minutes := st.Issued.Sub(epoch) / time.Minute
	if st.Issued.Before(epoch) || minutes >= 1<<minuteBits {
		return "", fmt.Errorf("cursor issue time %v out of range", st.Issued)
	}
	k := c.ring.signer()
	cl := Claim{Offset: st.Offset, minutes: uint32(minutes), tag: k.tag(uri, subject), hint: hintOf(st.Version)}
	copy(cl.mac[:], k.mac(cl, st.Version, uri, subject))
	n := new(big.Int).SetInt64(cl.Offset)
	for _, f := range []struct {
		bits uint
		v    []byte
	}{
		{minuteBits, binary.BigEndian.AppendUint32(nil, cl.minutes)},
		{tagBits, binary.BigEndian.AppendUint16(nil, cl.tag)},
		{hintBits, binary.BigEndian.AppendUint16(nil, cl.hint)},
		{macBits, cl.mac[:]},
	} {
		n.Lsh(n, f.bits).Or(n, new(big.Int).SetBytes(f.v))
	}
	return n.String(), nil
}

// Parse reads a cursor's fields, verifying nothing: Verify does, once the
// version of the file at hand is known.
func Parse(s string) (Claim, error) {
	if len(s) == 0 || len(s) > MaxLen || s[0] == '0' {
		return Claim{}, fmt.Errorf("%w: wrong length", ErrInvalid)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return Claim{}, fmt.Errorf("%w: not a cursor of digits", ErrInvalid)
		}
	}
	n, _ := new(big.Int).SetString(s, 10)
	if n.BitLen() > 40+lowBits {
		return Claim{}, fmt.Errorf("%w: out of range", ErrInvalid)
	}
	var cl Claim
	take := func(bits uint) *big.Int {
		mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1))
		v := new(big.Int).And(n, mask)
		n.Rsh(n, bits)
		return v
	}
	take(macBits).FillBytes(cl.mac[:])
	cl.hint = uint16(take(hintBits).Uint64())
	cl.tag = uint16(take(tagBits).Uint64())
	cl.minutes = uint32(take(minuteBits).Uint64())
	cl.Offset = n.Int64()
	return cl, nil
}

// Verify checks a parsed cursor against the file's current version, its
// URI and the caller's subject, and returns its state: ErrInvalid for a
// cursor changed, of another key, or for another URI or subject;
// ErrChanged for one genuine but for another version; ErrExpired for one
// older than the TTL.
func (c *Codec) Verify(cl Claim, version [VersionLen]byte, uri, subject string) (State, error) {
	ok := false
	for _, k := range c.ring.keys {
		if hmac.Equal(cl.mac[:], k.mac(cl, version, uri, subject)) {
			ok = true
			break
		}
	}
	if !ok {
		// Not this version's: a cursor of this URI and subject (its tag
		// says so) with another version's hint is one the file outgrew.
		for _, k := range c.ring.keys {
			if k.tag(uri, subject) == cl.tag && cl.hint != hintOf(version) {
				return State{}, ErrChanged
			}
		}
		return State{}, fmt.Errorf("%w: signature does not match", ErrInvalid)
	}
	st := State{Offset: cl.Offset, Version: version, Issued: epoch.Add(time.Duration(cl.minutes) * time.Minute)}
	if c.ttl > 0 && c.now().Sub(st.Issued) > c.ttl {
		return State{}, ErrExpired
	}
	return st, nil
}

// hintOf is the version's first 16 bits: what tells a changed file from a
// forged cursor (unauthenticated, it only chooses the error).
func hintOf(v [VersionLen]byte) uint16 { return binary.BigEndian.Uint16(v[:]) }

// mac is the truncated HMAC-SHA256 of the cursor's format and every field
// (offset, issue minute, tag, hint), the whole version, the URI and the
// subject, each of the latter two prefixed with its length: no bit of a
// cursor can change and verify.
func (k key) mac(cl Claim, version [VersionLen]byte, uri, subject string) []byte {
	h := hmac.New(sha256.New, k.secret[:])
	var b [1 + 8 + 4 + 2 + 2]byte
	b[0] = format
	binary.BigEndian.PutUint64(b[1:], uint64(cl.Offset))
	binary.BigEndian.PutUint32(b[9:], cl.minutes)
	binary.BigEndian.PutUint16(b[13:], cl.tag)
	binary.BigEndian.PutUint16(b[15:], cl.hint)
	h.Write(b[:])
	h.Write(version[:])
	writeStrings(h, uri, subject)
	return h.Sum(nil)[:macBits/8]
}

// tag is 16 bits of an HMAC of the URI and subject alone: what tells a
// cursor of this file and caller (whose file changed) from another's.
func (k key) tag(uri, subject string) uint16 {
	h := hmac.New(sha256.New, k.secret[:])
	h.Write([]byte("folio cursor tag\x00"))
	writeStrings(h, uri, subject)
	return binary.BigEndian.Uint16(h.Sum(nil))
}

func writeStrings(h interface{ Write([]byte) (int, error) }, ss ...string) {
	var n [8]byte
	for _, s := range ss {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
}
