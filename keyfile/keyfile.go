package keyfile

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/folio-mcp/folio/internal/atomicfile"
)

// Load returns the keys of size bytes each in the file at path, oldest
// first, creating the file with one random key when it does not exist.
// A file that others than its owner may read or write is refused, as ssh
// refuses a private key. what names the file in errors ("cursor key file").
func Load(path string, size int, what string) ([][]byte, error) {
	b, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = create(path, size)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var secrets [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		s, err := hex.DecodeString(t)
		if err != nil || len(s) != size {
			return nil, fmt.Errorf("%s %s, line %d: want %d hex digits", what, path, line, 2*size)
		}
		secrets = append(secrets, s)
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%s %s holds no key", what, path)
	}
	return secrets, nil
}

// ErrOpenToOthers: a key file that its group or others may read or write.
var ErrOpenToOthers = errors.New("the key file is open to others")

// read reads the key file at path, which must be open to its owner only.
func read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o; run chmod 600 %s (and make a new key if others may have read it)", ErrOpenToOthers, path, perm, path)
	}
	return io.ReadAll(f)
}

// create writes a new key file without ever replacing one that a
// concurrent process created first, and returns its contents.
func create(path string, size int) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	secret := make([]byte, size)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	// The first writer wins and everyone reads its key.
	if _, err := atomicfile.Create(path, []byte(hex.EncodeToString(secret)+"\n")); err != nil {
		return nil, err
	}
	return read(path)
}
