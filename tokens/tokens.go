// Package tokens is the bearer-tokens file of folio serve --http: its
// format, reading it again when it changes, and adding and revoking tokens
// under a lock.
package tokens

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/folio-mcp/folio/internal/atomicfile"
)

// Identity is who a bearer token speaks for and what it may see.
type Identity struct {
	// Subject names the caller; cursors are bound to it.
	Subject string
	// Allow holds doublestar globs over paths relative to a root; empty
	// means every visible file.
	Allow []string
	// Tools holds doublestar globs over tool names ("read",
	// "github__*"); empty means every tool.
	Tools []string
}

// tokenFile is the JSON of a tokens file.
type tokenFile struct {
	Tokens []tokenEntry `json:"tokens"`
}

type tokenEntry struct {
	Subject     string   `json:"subject"`
	TokenSHA256 string   `json:"token_sha256"`
	Allow       []string `json:"allow,omitempty"`
	Tools       []string `json:"tools,omitempty"`
}

// ReloadEvery is how often a tokens file is read again, at most: a change
// takes effect on the first call after it.
const ReloadEvery = time.Second

// File is a bearer-tokens file, read again when it changes. A file that
// cannot be read or parsed lets nobody in until it is fixed. It is safe
// for concurrent use.
type File struct {
	path string
	log  *slog.Logger
	now  func() time.Time

	mu      sync.Mutex
	checked time.Time
	sum     [sha256.Size]byte
	byHash  map[string]Identity
}

// Open reads the tokens file at path. It fails if the file cannot be read
// or is not valid, so that serve does not start on a broken file. Reloads
// are logged to log (nil: not logged); now is the clock that times them
// (nil: time.Now).
func Open(path string, log *slog.Logger, now func() time.Time) (*File, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	t := &File{path: path, log: log, now: now}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	byHash, err := parseTokens(b)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	t.byHash, t.sum, t.checked = byHash, sha256.Sum256(b), t.now()
	return t, nil
}

// Lookup returns the identity of a token, given as the hex SHA-256 of the
// token (see Hash), reading the file again when ReloadEvery has passed.
func (t *File) Lookup(hash string) (Identity, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now := t.now(); now.Sub(t.checked) >= ReloadEvery || now.Before(t.checked) {
		t.checked = now
		t.reload()
	}
	id, ok := t.byHash[hash]
	return id, ok
}

func (t *File) reload() {
	b, err := os.ReadFile(t.path)
	if err == nil && sha256.Sum256(b) == t.sum {
		return
	}
	var byHash map[string]Identity
	if err == nil {
		byHash, err = parseTokens(b)
	}
	if err != nil {
		if t.byHash != nil {
			t.log.Error("tokens file unusable: refusing every token until it is fixed", "path", t.path, "err", err)
		}
		t.byHash, t.sum = nil, [sha256.Size]byte{}
		return
	}
	t.log.Info("tokens file reloaded", "path", t.path, "tokens", len(byHash))
	t.byHash, t.sum = byHash, sha256.Sum256(b)
}

var (
	subjectRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$`) })
	sha256RE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })
)

func parseTokens(b []byte) (map[string]Identity, error) {
	var f tokenFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	byHash := make(map[string]Identity, len(f.Tokens))
	for i, e := range f.Tokens {
		if err := checkEntry(e); err != nil {
			return nil, fmt.Errorf("token %d: %w", i+1, err)
		}
		if _, dup := byHash[e.TokenSHA256]; dup {
			return nil, fmt.Errorf("token %d: the same token_sha256 appears twice", i+1)
		}
		byHash[e.TokenSHA256] = Identity{Subject: e.Subject, Allow: e.Allow, Tools: e.Tools}
	}
	return byHash, nil
}

func checkEntry(e tokenEntry) error {
	if !subjectRE().MatchString(e.Subject) {
		return fmt.Errorf("subject %q: use 1 to 64 letters, digits and . _ @ + -, starting with a letter or digit", e.Subject)
	}
	if !sha256RE().MatchString(e.TokenSHA256) {
		return errors.New("token_sha256 must be 64 lower-case hex digits")
	}
	for _, g := range e.Allow {
		if !doublestar.ValidatePattern(g) {
			return fmt.Errorf("invalid allow glob %q", g)
		}
	}
	for _, g := range e.Tools {
		if !doublestar.ValidatePattern(g) {
			return fmt.Errorf("invalid tools glob %q", g)
		}
	}
	return nil
}

// Hash is the hex SHA-256 of a token, as a tokens file stores it.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// tokenPrefix marks folio's tokens, so a leaked one is easy to spot.
const tokenPrefix = "folio_"

// Add creates a random token for subject with the given allow list and
// tools list,
// stores its SHA-256 in the tokens file at path (created 0600 if missing,
// replaced atomically) and returns the token, which is stored nowhere.
func Add(path, subject string, allow, tools []string) (string, error) {
	secret := make([]byte, 32)
	rand.Read(secret)
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	e := tokenEntry{Subject: subject, TokenSHA256: Hash(token), Allow: allow, Tools: tools}
	if err := checkEntry(e); err != nil {
		return "", err
	}
	err := updateTokens(path, func(f *tokenFile) error {
		f.Tokens = append(f.Tokens, e)
		return nil
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// ErrNoSuchSubject: Revoke found no token of the subject.
var ErrNoSuchSubject = errors.New("no token of that subject")

// Revoke removes every token of subject from the tokens file at path
// and returns how many there were.
func Revoke(path, subject string) (int, error) {
	n := 0
	err := updateTokens(path, func(f *tokenFile) error {
		kept := f.Tokens[:0]
		for _, e := range f.Tokens {
			if e.Subject != subject {
				kept = append(kept, e)
			}
		}
		n = len(f.Tokens) - len(kept)
		if n == 0 {
			return fmt.Errorf("%w %q in %s", ErrNoSuchSubject, subject, path)
		}
		f.Tokens = kept
		return nil
	})
	return n, err
}

// updateTokens changes the tokens file at path with change, holding an
// exclusive lock on path+".lock" from the read to the rename, so that
// concurrent changes all land. A temporary file that an earlier run left
// (killed before its rename) is removed first.
func updateTokens(path string, change func(*tokenFile) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("the tokens file's directory: %w", err)
	}
	unlock, err := atomicfile.Lock(path)
	if err != nil {
		return fmt.Errorf("locking the tokens file %s: %w", path, err)
	}
	defer unlock()
	atomicfile.RemoveLeftovers(path)
	var f tokenFile
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if _, err := parseTokens(b); err != nil {
			return fmt.Errorf("tokens file %s: %w", path, err)
		}
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
	}
	if err := change(&f); err != nil {
		return err
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(out, '\n')); err != nil {
		return fmt.Errorf("writing the tokens file %s: %w", path, err)
	}
	return nil
}

// List returns the identities of the tokens file at path, in its order:
// subjects and lists, never the tokens.
func List(path string) ([]Identity, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := parseTokens(b); err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	var f tokenFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	out := make([]Identity, len(f.Tokens))
	for i, e := range f.Tokens {
		out[i] = Identity{Subject: e.Subject, Allow: e.Allow, Tools: e.Tools}
	}
	return out, nil
}

// MayUse reports whether the identity may see and call the tool name.
func (id Identity) MayUse(name string) bool {
	if len(id.Tools) == 0 {
		return true
	}
	for _, g := range id.Tools {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}
