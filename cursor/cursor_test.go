package cursor

import (
	"bytes"
	"encoding/base64"
	"errors"
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

func TestRoundTrip(t *testing.T) {
	c := NewCodec(testRing(t, 1), time.Hour, fixedClock(t0))
	for _, off := range []int64{0, 1, 8191, MaxOffset} {
		st := State{Offset: off, Version: version, Issued: t0}
		s, err := c.Encode(st, uri, subject)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != EncodedLen || len(s) > 64 {
			t.Fatalf("cursor %q is %d characters", s, len(s))
		}
		got, err := c.Decode(s, uri, subject)
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		if got.Offset != off || got.Version != version || !got.Issued.Equal(t0) {
			t.Fatalf("decoded %+v", got)
		}
	}
	if _, err := c.Encode(State{Offset: MaxOffset + 1, Issued: t0}, uri, subject); err == nil {
		t.Fatal("an offset over MaxOffset was encoded")
	}
}

func TestRejects(t *testing.T) {
	c := NewCodec(testRing(t, 1), time.Hour, fixedClock(t0))
	s, err := c.Encode(State{Offset: 4096, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	other := NewCodec(testRing(t, 2), time.Hour, fixedClock(t0))
	for _, tc := range []struct {
		name, cursor, uri, subject string
		codec                      *Codec
		want                       error
	}{
		{"another uri", s, "file:///srv/docs/other.md", subject, c, ErrInvalid},
		{"another subject", s, uri, "bob", c, ErrInvalid},
		{"another key", s, uri, subject, other, ErrInvalid},
		{"empty", "", uri, subject, c, ErrInvalid},
		{"truncated", s[:len(s)-1], uri, subject, c, ErrInvalid},
		{"extended", s + "A", uri, subject, c, ErrInvalid},
		{"padded", s + "==", uri, subject, c, ErrInvalid},
		{"expired", s, uri, subject, NewCodec(testRing(t, 1), time.Hour, fixedClock(t0.Add(time.Hour+time.Second))), ErrExpired},
		{"within ttl", s, uri, subject, NewCodec(testRing(t, 1), time.Hour, fixedClock(t0.Add(time.Hour))), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.codec.Decode(tc.cursor, tc.uri, tc.subject)
			if tc.want == nil && err != nil || !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// Every change of one character, and of one byte of the raw cursor, is
// rejected.
func TestEverySingleChangeRejected(t *testing.T) {
	c := NewCodec(testRing(t, 1), 0, fixedClock(t0))
	s, err := c.Encode(State{Offset: 123456, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range s {
		for _, ch := range alphabet {
			if byte(ch) == s[i] {
				continue
			}
			changed := s[:i] + string(ch) + s[i+1:]
			if _, err := c.Decode(changed, uri, subject); !errors.Is(err, ErrInvalid) {
				t.Fatalf("char %d changed to %c: err = %v", i, ch, err)
			}
		}
	}
	raw, _ := base64.RawURLEncoding.DecodeString(s)
	for i := range raw {
		for bit := 0; bit < 8; bit++ {
			b := bytes.Clone(raw)
			b[i] ^= 1 << bit
			if _, err := c.Decode(base64.RawURLEncoding.EncodeToString(b), uri, subject); !errors.Is(err, ErrInvalid) {
				t.Fatalf("byte %d bit %d flipped: err = %v", i, bit, err)
			}
		}
	}
}

func TestRotation(t *testing.T) {
	old := NewCodec(testRing(t, 1), time.Hour, fixedClock(t0))
	s, err := old.Encode(State{Offset: 7, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	rotated := NewCodec(testRing(t, 1, 2), time.Hour, fixedClock(t0))
	if _, err := rotated.Decode(s, uri, subject); err != nil {
		t.Fatalf("a cursor of the older key: %v", err)
	}
	s2, err := rotated.Encode(State{Offset: 7, Version: version, Issued: t0}, uri, subject)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Decode(s2, uri, subject); !errors.Is(err, ErrInvalid) {
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
	if _, err := NewCodec(r2, 0, nil).Decode(s, uri, subject); err != nil {
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
	if _, err := NewCodec(r3, 0, nil).Decode(s, uri, subject); err != nil {
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
	f.Add(strings.Repeat("A", EncodedLen))
	f.Fuzz(func(t *testing.T, in string) {
		st, err := c.Decode(in, uri, subject)
		if err == nil && in != s {
			t.Fatalf("forged cursor %q accepted: %+v", in, st)
		}
	})
}
