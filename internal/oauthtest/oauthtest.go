// Package oauthtest is an authorization server on loopback for tests of
// folio's OAuth: its metadata (RFC 8414), a key set of real keys that a
// test may change or replace, an introspection endpoint (RFC 7662) over
// the opaque tokens it is told of, and JWT access tokens (RFC 9068)
// signed with its keys or any other.
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// T is what the issuer needs of a test: testing.TB has it, and so may a
// benchmark program.
type T interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Introspection's client, as the issuer knows it.
const (
	ClientID     = "folio"
	ClientSecret = "s3cret"
)

// Signer is a private key with its key ID and algorithm.
type Signer struct {
	KID string
	Alg jose.SignatureAlgorithm
	Key crypto.Signer
}

// NewSigner makes a key for alg: RS256 or PS256 (RSA 2048), ES256 (P-256)
// or EdDSA (Ed25519).
func NewSigner(t T, kid string, alg jose.SignatureAlgorithm) Signer {
	t.Helper()
	var key crypto.Signer
	var err error
	switch alg {
	case jose.RS256, jose.PS256:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jose.EdDSA:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("oauthtest: no key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return Signer{KID: kid, Alg: alg, Key: key}
}

// Public is s's public key as a key set holds it.
func (s Signer) Public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: s.Key.Public(), KeyID: s.KID, Algorithm: string(s.Alg), Use: "sig"}
}

// Mint signs claims with s, under the header type typ ("at+jwt" for an
// access token).
func (s Signer) Mint(t T, typ string, claims map[string]any) string {
	t.Helper()
	return Sign(t, jose.SigningKey{Algorithm: s.Alg, Key: s.Key}, s.KID, typ, claims)
}

// Sign signs claims with key, under the key ID kid and header type typ.
func Sign(t T, key jose.SigningKey, kid, typ string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ))
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	sig, err := jose.NewSigner(key, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Issuer is the authorization server. Its URL is its issuer identifier.
type Issuer struct {
	URL string
	// Fetches counts the requests for its key set.
	Fetches atomic.Int32

	mu     sync.Mutex
	keys   []jose.JSONWebKey
	opaque map[string]map[string]any
	jwks   http.HandlerFunc
}

// New starts an issuer serving the public keys of signers; it stops at
// the test's end.
func New(t T, signers ...Signer) *Issuer {
	t.Helper()
	is := &Issuer{opaque: map[string]map[string]any{}}
	for _, s := range signers {
		is.keys = append(is.keys, s.Public())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", is.metadata)
	mux.HandleFunc("/jwks", is.keySet)
	mux.HandleFunc("/introspect", is.introspect)
	srv := httptest.NewServer(mux)
	is.URL = srv.URL
	t.Cleanup(srv.Close)
	return is
}

func (is *Issuer) metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"issuer": is.URL, "jwks_uri": is.URL + "/jwks", "introspection_endpoint": is.URL + "/introspect",
		"authorization_endpoint": is.URL + "/auth", "token_endpoint": is.URL + "/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
	})
}

func (is *Issuer) keySet(w http.ResponseWriter, r *http.Request) {
	is.Fetches.Add(1)
	is.mu.Lock()
	custom, keys := is.jwks, slices.Clone(is.keys)
	is.mu.Unlock()
	if custom != nil {
		custom(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: keys})
}

func (is *Issuer) introspect(w http.ResponseWriter, r *http.Request) {
	if id, secret, ok := r.BasicAuth(); !ok || id != ClientID || secret != ClientSecret {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client"}`))
		return
	}
	is.mu.Lock()
	claims, ok := is.opaque[r.PostFormValue("token")]
	is.mu.Unlock()
	if !ok {
		claims = map[string]any{"active": false}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(claims)
}

// SetKeys replaces the public keys the key set holds.
func (is *Issuer) SetKeys(keys ...jose.JSONWebKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = keys
}

// ServeKeys answers requests for the key set with serve instead.
func (is *Issuer) ServeKeys(serve http.HandlerFunc) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.jwks = serve
}

// SetOpaque makes token an opaque token introspection answers claims of
// (nil: one it does not know, as when revoked).
func (is *Issuer) SetOpaque(token string, claims map[string]any) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if claims == nil {
		delete(is.opaque, token)
	} else {
		is.opaque[token] = claims
	}
}

// Claims are a valid access token's claims of is for audience at now
// (subject alice, client agent, an hour long, scope folio:read), changed
// by the pairs kv: a name, then its value (nil drops the claim).
func (is *Issuer) Claims(audience string, now time.Time, kv ...any) map[string]any {
	c := map[string]any{
		"iss": is.URL, "sub": "alice", "aud": audience, "client_id": "agent",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "scope": "folio:read",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
		} else {
			c[kv[i].(string)] = kv[i+1]
		}
	}
	return c
}

// SameJWS reports whether two compact JWSs decode to the same header,
// payload and signature, whatever base64 alphabet or padding each uses.
func SameJWS(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	if len(pa) != 3 || len(pb) != 3 {
		return false
	}
	for i := range pa {
		da, ea := decode64(pa[i])
		db, eb := decode64(pb[i])
		if ea != nil || eb != nil || string(da) != string(db) {
			return false
		}
	}
	return true
}

// decode64 decodes s in whichever base64 form it is written.
func decode64(s string) ([]byte, error) {
	var err error
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		var b []byte
		if b, err = enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, err
}
