package fsview

import (
	"bytes"
	"fmt"
	"io"

	"github.com/zeebo/blake3"
)

// StdinName is how standard input is named on the command line, and in
// pages and reports unless it is given another name.
const StdinName = "-"

// ReadText reads all of r, text that is not a file (standard input),
// under the same checks as a file: at most maxBytes (0: no cap), UTF-8
// without a NUL byte. name names it in errors. It stops reading at the
// first byte over the cap.
func ReadText(r io.Reader, name string, maxBytes int64) ([]byte, error) {
	limit := int64(-1)
	if maxBytes > 0 {
		limit = maxBytes + 1
		r = io.LimitReader(r, limit)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(b)) == limit {
		return nil, fmt.Errorf("%w: %s is over the %d-byte cap", ErrTooLarge, name, maxBytes)
	}
	if err := CheckText(b, name); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckText is ErrNotText unless b is UTF-8 without a NUL byte.
func CheckText(b []byte, name string) error {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("%w: %s holds a NUL byte (at byte %d)", ErrNotText, name, i)
	}
	if !IsText(b) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrNotText, name)
	}
	return nil
}

// VersionOf is the version of text that is not a file: its BLAKE3, as a
// file's.
func VersionOf(b []byte) Version { return Version(blake3.Sum256(b)) }
