package cursor

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testRing(t testing.TB, seeds ...byte) *Ring {
	t.Helper()
	var secrets [][]byte
	for _, s := range seeds {
		secrets = append(secrets, bytes.Repeat([]byte{s}, KeyLen))
	}
	r, err := NewRing(secrets...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	t0      = time.Unix(1_800_000_000, 0)
	version = [VersionLen]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

const (
	uri     = "file:///srv/docs/large.md"
	subject = "alice"
)

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// decode parses and verifies s, as the reader does.
func (c *Codec) decode(s string, version [VersionLen]byte, uri, subject string) (State, error) {
	cl, err := Parse(s)
	if err != nil {
		return State{}, err
	}
	return c.Verify(cl, version, uri, subject)
}

func TestRoundTrip(t *testing.T) {
	c := NewCodec(testRing(t, 1), time.Hour, fixedClock(t0))
	for _, off := range []int64{0, 1, 8191, 16 << 20, MaxOffset} {
		st := State{Offset: off, Version: version, Issued: t0}
		s, err := c.Encode(st, uri, subject)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) > MaxLen || off < 16<<20 && len(s) > 63 {
			t.Fatalf("cursor %q is %d digits", s, len(s))
		}
		got, err := c.decode(s, version, uri, subject)
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		if got.Offset != off || got.Version != version || !got.Issued.Equal(t0.Truncate(time.Minute)) {
			t.Fatalf("decoded %+v", got)
		}
	}
	for _, st := range []State{{Offset: MaxOffset + 1, Issued: t0}, {Issued: epoch.Add(-time.Second)}, {Issued: epoch.Add(time.Minute << minuteBits)}} {
		if _, err := c.Encode(st, uri, subject); err == nil {
			t.Fatalf("%+v was encoded", st)
		}
	}
}

func TestRejects(t *testing.T) {
	c := NewCodec(testRing(t, 1), time.Hour, fixedClock(t0))
	s, err := c.Encode(State{Offset: 4096, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	changed := version
	changed[0] ^= 0xff
	sameHint := version
	sameHint[15] ^= 1
	other := NewCodec(testRing(t, 2), time.Hour, fixedClock(t0))
	issued := t0.Truncate(time.Minute)
	for _, tc := range []struct {
		name, cursor, uri, subject string
		version                    [VersionLen]byte
		codec                      *Codec
		want                       error
	}{
		{"another uri", s, "file:///srv/docs/other.md", subject, version, c, ErrInvalid},
		{"another uri, another version", s, "file:///srv/docs/other.md", subject, changed, c, ErrInvalid},
		{"another subject", s, uri, "bob", version, c, ErrInvalid},
		{"another key", s, uri, subject, version, other, ErrInvalid},
		{"the file changed", s, uri, subject, changed, c, ErrChanged},
		// The hint is 16 bits: a change it cannot see is still refused.
		{"the file changed past its hint", s, uri, subject, sameHint, c, ErrInvalid},
		{"empty", "", uri, subject, version, c, ErrInvalid},
		{"truncated", s[:len(s)-1], uri, subject, version, c, ErrInvalid},
		{"extended", s + "1", uri, subject, version, c, ErrInvalid},
		{"leading zero", "0" + s, uri, subject, version, c, ErrInvalid},
		{"signed", "+" + s, uri, subject, version, c, ErrInvalid},
		{"not digits", "AQYAAAAH" + s, uri, subject, version, c, ErrInvalid},
		{"too long", strings.Repeat("9", MaxLen+1), uri, subject, version, c, ErrInvalid},
		{"expired", s, uri, subject, version, NewCodec(testRing(t, 1), time.Hour, fixedClock(issued.Add(time.Hour+time.Second))), ErrExpired},
		{"within ttl", s, uri, subject, version, NewCodec(testRing(t, 1), time.Hour, fixedClock(issued.Add(time.Hour))), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.codec.decode(tc.cursor, tc.version, tc.uri, tc.subject)
			if tc.want == nil && err != nil || !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// Every change of one digit, every digit added or removed, and every bit
// of the number flipped, is refused.
func TestEverySingleChangeRejected(t *testing.T) {
	c := NewCodec(testRing(t, 1), 0, fixedClock(t0))
	s, err := c.Encode(State{Offset: 123456, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(changed, what string) {
		t.Helper()
		if _, err := c.decode(changed, version, uri, subject); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrChanged) {
			t.Fatalf("%s: err = %v", what, err)
		}
	}
	for i := range s {
		for ch := '0'; ch <= '9'; ch++ {
			if byte(ch) != s[i] {
				refused(s[:i]+string(ch)+s[i+1:], fmt.Sprintf("digit %d changed to %c", i, ch))
			}
		}
		refused(s[:i]+s[i+1:], fmt.Sprintf("digit %d removed", i))
		refused(s[:i]+"7"+s[i:], fmt.Sprintf("a digit put before %d", i))
	}
	n, _ := new(big.Int).SetString(s, 10)
	for bit := range n.BitLen() + 2 {
		flipped := new(big.Int).SetBit(n, bit, n.Bit(bit)^1)
		refused(flipped.String(), fmt.Sprintf("bit %d flipped", bit))
	}
}

func TestRotation(t *testing.T) {
	old := NewCodec(testRing(t, 1), time.Hour, fixedClock(t0))
	s, err := old.Encode(State{Offset: 7, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	rotated := NewCodec(testRing(t, 1, 2), time.Hour, fixedClock(t0))
	if _, err := rotated.decode(s, version, uri, subject); err != nil {
		t.Fatalf("a cursor of the older key: %v", err)
	}
	s2, err := rotated.Encode(State{Offset: 7, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.decode(s2, version, uri, subject); !errors.Is(err, ErrInvalid) {
		t.Fatalf("the newest key does not sign: %v", err)
	}
}

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "folio", "cursor.key")
	r1, err := LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	r2, err := LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewCodec(r1, 0, nil).Encode(State{Offset: 1, Issued: t0}, uri, subject)
	if _, err := NewCodec(r2, 0, nil).decode(s, [VersionLen]byte{}, uri, subject); err != nil {
		t.Fatalf("the key did not survive a reload: %v", err)
	}
	// Rotation by appending a key.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("# rotated\n" + strings.Repeat("ab", KeyLen) + "\n")
	f.Close()
	r3, err := LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r3.keys) != 2 || r3.signer().secret[0] != 0xab {
		t.Fatalf("rotated ring has %d keys", len(r3.keys))
	}
	if _, err := NewCodec(r3, 0, nil).decode(s, [VersionLen]byte{}, uri, subject); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	// Open to others: refused, as ssh refuses such a key.
	os.Chmod(path, 0o644)
	if _, err := LoadKeyFile(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a key file of mode 0644: %v", err)
	}
	os.Chmod(path, 0o600)
	for _, bad := range []string{"", "# only a comment\n", "zz\n", strings.Repeat("ab", KeyLen-1) + "\n"} {
		os.WriteFile(path, []byte(bad), 0o600)
		if _, err := LoadKeyFile(path); err == nil {
			t.Fatalf("key file %q was accepted", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	c := NewCodec(testRing(f, 1), time.Hour, fixedClock(t0))
	s, _ := c.Encode(State{Offset: 99, Version: version, Issued: t0}, uri, subject)
	f.Add(s)
	f.Add("")
	f.Add(strings.Repeat("9", MaxLen))
	f.Fuzz(func(t *testing.T, in string) {
		st, err := c.decode(in, version, uri, subject)
		if err == nil && in != s {
			t.Fatalf("forged cursor %q accepted: %+v", in, st)
		}
	})
}
