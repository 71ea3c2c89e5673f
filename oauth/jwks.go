package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Bounds of what folio fetches from an authorization server, so that a
// hostile or broken one costs a bounded wait and memory, never more.
const (
	// fetchTimeout bounds one fetch, from connecting to the last byte.
	fetchTimeout = 5 * time.Second
	// maxDocument bounds a key set, metadata or introspection answer.
	maxDocument = 256 << 10
	// maxKeys bounds the keys kept of one key set.
	maxKeys = 64
	// keysMaxAge: keys older than this are fetched again.
	keysMaxAge = time.Hour
	// refetchAfter is the least time between two fetches of a key set:
	// a token with a key ID nobody knows fetches it at most this often.
	refetchAfter = 30 * time.Second
)

// keySet is an issuer's signing keys, fetched when first needed, again
// when old, and again (at most every refetchAfter) when a token names a
// key it lacks; a failed fetch keeps the keys it had.
type keySet struct {
	issuer string
	// uri is where the keys are; "" until discovered.
	uri    string
	client *http.Client

	mu      sync.Mutex
	keys    []jose.JSONWebKey
	tried   time.Time // the last fetch, ended well or not
	fetched time.Time // the last fetch that ended well
	lastErr error
}

// lookup returns the keys a token signed with alg under the key ID kid
// may be checked with ("" kid: every key of that type); when it has none
// because the keys could not be fetched, an error wrapping
// ErrUnavailable.
func (k *keySet) lookup(ctx context.Context, kid, alg string, now time.Time) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	keys := matching(k.keys, kid, alg)
	stale := k.fetched.IsZero() || now.Sub(k.fetched) > keysMaxAge
	if (stale || len(keys) == 0) && (k.tried.IsZero() || now.Sub(k.tried) >= refetchAfter) {
		k.tried = now
		if k.lastErr = k.fetch(ctx); k.lastErr == nil {
			k.fetched = now
		}
		keys = matching(k.keys, kid, alg)
	}
	if len(keys) == 0 {
		if k.lastErr != nil {
			return nil, fmt.Errorf("%w: the keys of %s: %w", ErrUnavailable, k.issuer, k.lastErr)
		}
		return nil, fmt.Errorf("no key %q of %s", kid, k.issuer)
	}
	return keys, nil
}

// matching are the keys of ks with the key ID kid (any, when kid is "")
// that can check a signature of alg.
func matching(ks []jose.JSONWebKey, kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, key := range ks {
		if (kid == "" || key.KeyID == kid) && (key.Algorithm == "" || key.Algorithm == alg) && fits(key, alg) {
			out = append(out, key)
		}
	}
	return out
}

// fits reports whether key's type is the one alg signs with.
func fits(key jose.JSONWebKey, alg string) bool {
	switch {
	case strings.HasPrefix(alg, "RS"), strings.HasPrefix(alg, "PS"):
		return keyType(key) == "RSA"
	case strings.HasPrefix(alg, "ES"):
		return keyType(key) == "EC"
	case alg == "EdDSA":
		return keyType(key) == "OKP"
	}
	return false
}

// fetch reads the key set again (finding where it is first, when the
// policy did not say), keeping the public signing keys, at most maxKeys.
// It does not end with the request that asked for it: a client that
// hangs up must not cost the others a fetch.
func (k *keySet) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	if k.uri == "" {
		uri, err := discoverKeys(ctx, k.issuer, k.client)
		if err != nil {
			return err
		}
		k.uri = uri
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := getJSON(ctx, k.client, k.uri, &set); err != nil {
		return err
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		// A key folio cannot read, or a private or symmetric one, is
		// passed over: the others still serve.
		if key.UnmarshalJSON(raw) != nil || !key.Valid() || !key.IsPublic() || key.Use == "enc" {
			continue
		}
		if keys = append(keys, key); len(keys) == maxKeys {
			break
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("%s holds no public signing key", k.uri)
	}
	k.keys = keys
	return nil
}

// keyType is a key's JWK "kty".
func keyType(key jose.JSONWebKey) string {
	switch key.Key.(type) {
	case *rsa.PublicKey:
		return "RSA"
	case *ecdsa.PublicKey:
		return "EC"
	case ed25519.PublicKey:
		return "OKP"
	}
	return ""
}

// discoverKeys finds an issuer's jwks_uri in its metadata: RFC 8414's,
// then OpenID Connect's. Only the issuer and jwks_uri are read: what a
// client needs of the metadata (PKCE, endpoints) a resource server does
// not.
func discoverKeys(ctx context.Context, issuer string, c *http.Client) (string, error) {
	var errs []error
	for _, u := range metadataURLs(issuer) {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		switch err := getJSON(ctx, c, u, &meta); {
		case err != nil:
			errs = append(errs, err)
		case meta.Issuer != issuer:
			errs = append(errs, fmt.Errorf("%s names the issuer %q", u, meta.Issuer))
		case meta.JWKSURI != "":
			if err := checkURL("jwks_uri", meta.JWKSURI); err != nil {
				return "", err
			}
			return meta.JWKSURI, nil
		}
	}
	return "", fmt.Errorf("no jwks_uri in the metadata of %s: %w", issuer, errors.Join(errs...))
}

// metadataURLs are where an issuer's metadata may be: RFC 8414's well-known
// URL (inserted before the issuer's path), then OpenID Connect's (after it).
func metadataURLs(issuer string) []string {
	scheme, rest, _ := strings.Cut(issuer, "://")
	host, path, _ := strings.Cut(rest, "/")
	path = strings.TrimSuffix("/"+path, "/")
	return []string{
		scheme + "://" + host + "/.well-known/oauth-authorization-server" + path,
		strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration",
	}
}

// getJSON fetches a JSON document of at most maxDocument bytes into v.
func getJSON(ctx context.Context, c *http.Client, uri string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return do(c, req, v)
}

// do sends req and reads its JSON answer, of at most maxDocument bytes
// and of a JSON media type, into v.
func do(c *http.Client, req *http.Request, v any) error {
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", req.URL.Redacted(), res.Status)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return fmt.Errorf("%s: content type %q, not JSON", req.URL.Redacted(), mt)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, maxDocument+1))
	if err != nil {
		return err
	}
	if len(b) > maxDocument {
		return fmt.Errorf("%s: answer over %d bytes", req.URL.Redacted(), maxDocument)
	}
	return json.Unmarshal(b, v)
}
