package cursor

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/folio-mcp/folio/keyfile"
)

// KeyLen is the length of a cursor key.
const KeyLen = 32

// Ring is a set of cursor keys: the last one signs, all of them verify.
type Ring struct{ keys []key }

type key struct {
	id     byte
	secret [KeyLen]byte
}

// NewRing returns a ring of the given keys, oldest first.
func NewRing(secrets ...[]byte) (*Ring, error) {
	if len(secrets) == 0 {
		return nil, errors.New("a cursor key ring needs at least one key")
	}
	r := &Ring{}
	for i, s := range secrets {
		if len(s) != KeyLen {
			return nil, fmt.Errorf("cursor key %d is %d bytes, want %d", i+1, len(s), KeyLen)
		}
		var k key
		copy(k.secret[:], s)
		sum := sha256.Sum256(append([]byte("folio cursor key id\x00"), s...))
		k.id = sum[0]
		r.keys = append(r.keys, k)
	}
	return r, nil
}

func (r *Ring) signer() key { return r.keys[len(r.keys)-1] }

// DefaultKeyFile is where the cursor key lives when no file is named:
// $XDG_STATE_HOME/folio/cursor.key, else ~/.local/state/folio/cursor.key.
func DefaultKeyFile() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "folio", "cursor.key"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cursor key file: %w (set --cursor-key-file or XDG_STATE_HOME)", err)
	}
	return filepath.Join(home, ".local", "state", "folio", "cursor.key"), nil
}

// LoadKeyFile reads the ring from path, creating the file with one random
// key (mode 0600, its directory 0700) when it does not exist. The file holds
// one key per line as 64 hex digits, oldest first; blank lines and lines
// starting with # are ignored. To rotate, append a new key: it signs from
// the next start, and cursors signed by the older keys still verify.
func LoadKeyFile(path string) (*Ring, error) {
	secrets, err := keyfile.Load(path, KeyLen, "cursor key file")
	if err != nil {
		return nil, err
	}
	return NewRing(secrets...)
}
