package oauth

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/folio-mcp/folio/internal/oauthtest"
)

const resource = "https://folio.example.com/mcp"

type signer = oauthtest.Signer

func newSigner(t testing.TB, kid string, alg jose.SignatureAlgorithm) signer {
	return oauthtest.NewSigner(t, kid, alg)
}

func newIssuer(t testing.TB, keys ...signer) *oauthtest.Issuer { return oauthtest.New(t, keys...) }

func mint(t testing.TB, s signer, typ string, claims map[string]any) string {
	return s.Mint(t, typ, claims)
}

// claims are a valid token's claims of is at now, with a tools scope and
// a group, changed by the pairs kv (a nil value drops the claim).
func claims(is *oauthtest.Issuer, now time.Time, kv ...any) map[string]any {
	return is.Claims(resource, now, append([]any{"scope", "folio:read folio:tools:github__*", "groups", []string{"docs"}}, kv...)...)
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// policy is a checked policy of is, changed by edit.
func policy(t testing.TB, is *oauthtest.Issuer, edit func(*Policy)) *Policy {
	t.Helper()
	t.Setenv("FOLIO_TEST_SECRET", oauthtest.ClientSecret)
	p := &Policy{
		Resource: resource,
		AuthorizationServers: []AuthorizationServer{{Issuer: is.URL, IntrospectionEndpoint: is.URL + "/introspect",
			ClientID: oauthtest.ClientID, ClientSecretEnv: "FOLIO_TEST_SECRET"}},
		Groups: map[string][]string{"docs": {"docs/**"}, "ops": {"ops/**"}},
		Allow:  []string{"public/**"},
	}
	if edit != nil {
		edit(p)
	}
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVerifyJWT(t *testing.T) {
	rs, es, ed := newSigner(t, "r1", jose.RS256), newSigner(t, "e1", jose.ES256), newSigner(t, "o1", jose.EdDSA)
	is := newIssuer(t, rs, es, ed)
	clk := &clock{t: time.Now()}
	v := New(policy(t, is, nil), nil, clk.now)
	ctx := context.Background()
	for _, s := range []signer{rs, es, ed} {
		g, err := v.Verify(ctx, mint(t, s, "at+jwt", claims(is, clk.now())))
		if err != nil {
			t.Fatalf("%s: %v", s.Alg, err)
		}
		if g.Subject != "alice@"+is.URL || g.ClientID != "agent" || !slices.Equal(g.Tools, []string{"github__*"}) || !slices.Equal(g.Allow, []string{"docs/**"}) {
			t.Errorf("%s: %+v", s.Alg, g)
		}
		if got, ok := v.Lookup(g.Key); !ok || got.Subject != g.Subject {
			t.Errorf("%s: Lookup: %+v %v", s.Alg, got, ok)
		}
	}
	if n := is.Fetches.Load(); n != 1 {
		t.Errorf("the key set was fetched %d times for three tokens, want once", n)
	}
	// A token checked once is kept, but not past its expiry.
	short := mint(t, es, "at+jwt", claims(is, clk.now(), "exp", clk.now().Add(time.Minute).Unix()))
	for range 2 {
		if _, err := v.Verify(ctx, short); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(time.Minute + v.Leeway() + time.Second)
	if _, err := v.Verify(ctx, short); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("a kept token after its expiry: %v", err)
	}
	clk.add(-time.Minute - v.Leeway() - time.Second)
	if g, err := v.Verify(ctx, mint(t, rs, "application/at+jwt", claims(is, clk.now(), "groups", nil, "scope", "folio:read folio:tools"))); err != nil || !slices.Equal(g.Tools, []string{"*"}) || !slices.Equal(g.Allow, []string{"public/**"}) {
		t.Errorf("every tool, no group: %+v %v", g, err)
	}
	if g, err := v.Verify(ctx, mint(t, rs, "at+jwt", claims(is, clk.now(), "scope", nil, "scp", []string{"folio:read"}, "groups", "ops docs"))); err != nil || g.Tools != nil || !slices.Equal(g.Allow, []string{"docs/**", "ops/**"}) || !slices.Equal(g.Scopes, []string{"folio:read"}) {
		t.Errorf("scp and groups as a string: %+v %v", g, err)
	}
	if g, err := v.Verify(ctx, mint(t, rs, "at+jwt", claims(is, clk.now(), "scope", []string{"folio:read", "folio:tools"}))); err != nil || !slices.Equal(g.Tools, []string{"*"}) {
		t.Errorf("scope as a list: %+v %v", g, err)
	}
}

// TestRefused: each way a token can be wrong is refused, with an error
// that says which.
func TestRefused(t *testing.T) {
	rs := newSigner(t, "r1", jose.RS256)
	is := newIssuer(t, rs)
	other := newIssuer(t, rs)
	clk := &clock{t: time.Now()}
	v := New(policy(t, is, nil), nil, clk.now)
	now := clk.now()
	stranger := newSigner(t, "r1", jose.RS256)
	pub, _ := x509.MarshalPKIXPublicKey(rs.Key.Public())
	b64 := base64.RawURLEncoding.EncodeToString
	unsigned := b64([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + b64(mustJSON(t, claims(is, now))) + "."
	for _, c := range []struct{ name, token, want string }{
		{"another audience", mint(t, rs, "at+jwt", claims(is, now, "aud", "https://other.example.com/mcp")), "not for"},
		{"audiences without folio", mint(t, rs, "at+jwt", claims(is, now, "aud", []string{"a", "b"})), "not for"},
		{"no audience", mint(t, rs, "at+jwt", claims(is, now, "aud", nil)), "not for"},
		{"expired", mint(t, rs, "at+jwt", claims(is, now, "exp", now.Add(-time.Minute).Unix())), "expired"},
		{"no expiry", mint(t, rs, "at+jwt", claims(is, now, "exp", nil)), "no expiry"},
		{"not valid yet", mint(t, rs, "at+jwt", claims(is, now, "nbf", now.Add(time.Hour).Unix())), "not valid yet"},
		{"no subject", mint(t, rs, "at+jwt", claims(is, now, "sub", nil)), "no subject"},
		{"an issuer not in the policy", mint(t, rs, "at+jwt", claims(other, now)), "not one folio accepts"},
		{"an unknown key", mint(t, stranger, "at+jwt", claims(is, now)), "does not verify"},
		{"an unknown key ID", mint(t, signer{KID: "r9", Alg: rs.Alg, Key: rs.Key}, "at+jwt", claims(is, now)), `no key "r9"`},
		{"an ID token's type", mint(t, rs, "JWT", claims(is, now)), "not an access token's"},
		{"alg none", unsigned, "allowed algorithm"},
		{"HMAC with the public key", hmacToken(t, pub, claims(is, now)), "allowed algorithm"},
		{"garbage of two dots, asked about", "a.b.c", "not active"},
		{"garbage that looks like a JWT", "eyJ.b.c", "allowed algorithm"},
		{"too long", strings.Repeat("a", maxToken+1), "longer than"},
	} {
		_, err := v.Verify(context.Background(), c.token)
		if err == nil || !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an invalid token saying %q", c.name, err, c.want)
		}
	}
	if _, err := v.Verify(context.Background(), mint(t, rs, "at+jwt", claims(is, now, "exp", now.Add(-10*time.Second).Unix()))); err != nil {
		t.Errorf("expired 10 s ago, within the leeway: %v", err)
	}
	relaxed := New(policy(t, is, func(p *Policy) { p.TokenTypes = []string{"JWT", "at+jwt"} }), nil, clk.now)
	if _, err := relaxed.Verify(context.Background(), mint(t, rs, "JWT", claims(is, now))); err != nil {
		t.Errorf("typ JWT where the policy allows it: %v", err)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hmacToken is an HS256 JWT keyed with key: what an attacker makes of a
// public key, hoping the verifier takes it as an HMAC secret.
func hmacToken(t testing.TB, key []byte, c map[string]any) string {
	return oauthtest.Sign(t, jose.SigningKey{Algorithm: jose.HS256, Key: key}, "r1", "at+jwt", c)
}

// TestKeyRotation: a token with a key ID the set lacks fetches the set
// again, at most once every refetchAfter, so that an issuer's new key is
// taken and a flood of unknown key IDs costs one fetch.
func TestKeyRotation(t *testing.T) {
	old, next := newSigner(t, "k1", jose.ES256), newSigner(t, "k2", jose.ES256)
	is := newIssuer(t, old)
	clk := &clock{t: time.Now()}
	v := New(policy(t, is, nil), nil, clk.now)
	ctx := context.Background()
	if _, err := v.Verify(ctx, mint(t, old, "at+jwt", claims(is, clk.now()))); err != nil {
		t.Fatal(err)
	}
	is.SetKeys(old.Public(), next.Public())
	clk.add(time.Second)
	for range 20 {
		if _, err := v.Verify(ctx, mint(t, next, "at+jwt", claims(is, clk.now()))); err == nil {
			t.Fatal("a new key taken before refetchAfter")
		}
	}
	if n := is.Fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 20 tokens of an unknown key within refetchAfter, want 1", n)
	}
	clk.add(refetchAfter)
	if _, err := v.Verify(ctx, mint(t, next, "at+jwt", claims(is, clk.now()))); err != nil {
		t.Errorf("the new key after refetchAfter: %v", err)
	}
	clk.add(keysMaxAge + time.Minute)
	is.SetKeys(next.Public())
	if _, err := v.Verify(ctx, mint(t, old, "at+jwt", claims(is, clk.now()))); err == nil {
		t.Error("a key the issuer dropped still taken after keysMaxAge")
	}
}

// TestHostileKeySet: a key set too large, of the wrong type, slow, or
// with keys folio must not use, is refused within its bounds, as the
// issuer's being unavailable (not the token's being invalid); a request
// that ends does not end the fetch, which the next request then has.
func TestHostileKeySet(t *testing.T) {
	rs := newSigner(t, "r1", jose.RS256)
	secret := jose.JSONWebKey{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "r1", Algorithm: "HS256"}
	priv := jose.JSONWebKey{Key: rs.Key, KeyID: "r1", Algorithm: "RS256"}
	for _, c := range []struct {
		name  string
		serve http.HandlerFunc
		want  string
	}{
		{"too large", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"keys":[` + strings.Repeat(`{"kty":"oct","k":"AAAA"},`, maxDocument/20) + `{}]}`))
		}, "over"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		}, "not JSON"},
		{"a symmetric key", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{secret}})
		}, "no public signing key"},
		{"a private key", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{priv}})
		}, "no public signing key"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, "deadline"},
		{"an error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusInternalServerError)
		}, "500"},
	} {
		is := newIssuer(t, rs)
		is.ServeKeys(c.serve)
		v := New(policy(t, is, nil), nil, nil)
		_, err := v.Verify(context.Background(), mint(t, rs, "at+jwt", claims(is, time.Now())))
		if err == nil || !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want the issuer unavailable, saying %q", c.name, err, c.want)
		}
	}
	is := newIssuer(t, rs)
	v := New(policy(t, is, nil), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Verify(ctx, mint(t, rs, "at+jwt", claims(is, time.Now()))); err != nil {
		t.Errorf("a request already ended: %v, want its fetch done all the same", err)
	}
}

// TestIntrospection: an opaque token is asked about; a revoked one is
// refused at once without a cache, and once the cache ends with one.
func TestIntrospection(t *testing.T) {
	is := newIssuer(t)
	clk := &clock{t: time.Now()}
	now := clk.now()
	active := func(kv ...any) map[string]any {
		c := map[string]any{"active": true, "iss": is.URL, "sub": "bob", "aud": []string{resource}, "scope": "folio:read", "exp": now.Add(time.Hour).Unix(), "client_id": "agent"}
		for i := 0; i < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	is.SetOpaque("good", active())
	is.SetOpaque("elsewhere", active("aud", "https://other.example.com/mcp"))
	is.SetOpaque("foreign", active("iss", "https://evil.example.com"))
	is.SetOpaque("stale", active("exp", now.Add(-time.Hour).Unix()))
	is.SetOpaque("refresh", active("token_type", "refresh_token"))
	is.SetOpaque("fraction", active("exp", float64(now.Add(time.Hour).Unix())+0.25))
	is.SetOpaque("inactive", map[string]any{"active": false})
	v := New(policy(t, is, nil), nil, clk.now)
	ctx := context.Background()
	g, err := v.Verify(ctx, "good")
	if err != nil || g.Subject != "bob@"+is.URL || !slices.Equal(g.Scopes, []string{"folio:read"}) {
		t.Fatalf("good: %+v %v", g, err)
	}
	if g, err := v.Verify(ctx, "fraction"); err != nil || !g.Expiry.Equal(time.Unix(now.Add(time.Hour).Unix(), 250_000_000)) {
		t.Errorf("an expiry with a fraction of a second: %+v %v", g, err)
	}
	machine := active("client_id", "ci")
	delete(machine, "sub")
	is.SetOpaque("machine", machine)
	if g, err := v.Verify(ctx, "machine"); err != nil || g.Subject != "ci@"+is.URL {
		t.Errorf("a client's own token, with no subject: %+v %v", g, err)
	}
	nobody := maps.Clone(machine)
	delete(nobody, "client_id")
	is.SetOpaque("nobody", nobody)
	for tok, want := range map[string]string{"nobody": "no subject and no client", "elsewhere": "not for", "foreign": "issued by", "stale": "expired", "refresh": "a refresh token", "inactive": "not active", "unknown": "not active"} {
		if _, err := v.Verify(ctx, tok); err == nil || !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", tok, err, want)
		}
	}
	is.SetOpaque("good", nil)
	if _, err := v.Verify(ctx, "good"); err == nil {
		t.Error("a revoked token taken without an introspection cache")
	}

	is.SetOpaque("good", active())
	cached := New(policy(t, is, func(p *Policy) { p.IntrospectionCacheSeconds = 60 }), nil, clk.now)
	if _, err := cached.Verify(ctx, "good"); err != nil {
		t.Fatal(err)
	}
	is.SetOpaque("good", nil)
	if _, err := cached.Verify(ctx, "good"); err != nil {
		t.Errorf("revoked within the cache's minute: %v, want the kept answer", err)
	}
	clk.add(61 * time.Second)
	if _, err := cached.Verify(ctx, "good"); err == nil {
		t.Error("a revoked token taken after the cache's minute")
	}

	t.Setenv("FOLIO_TEST_WRONG", "nope")
	wrong := New(policy(t, is, func(p *Policy) { p.AuthorizationServers[0].ClientSecretEnv = "FOLIO_TEST_WRONG" }), nil, clk.now)
	is.SetOpaque("good", active())
	if _, err := wrong.Verify(ctx, "good"); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "401") {
		t.Errorf("introspection with a wrong secret: %v", err)
	}
	none := New(policy(t, is, func(p *Policy) { p.AuthorizationServers[0].IntrospectionEndpoint = "" }), nil, clk.now)
	if _, err := none.Verify(ctx, "good"); err == nil || !strings.Contains(err.Error(), "no authorization server") {
		t.Errorf("an opaque token with no introspection: %v", err)
	}
}

// TestGrantKey: tokens of one subject, scopes and files share a key (a
// refreshed token keeps its handles), which lives as long as the latest
// of them; any difference makes another key.
func TestGrantKey(t *testing.T) {
	rs := newSigner(t, "r1", jose.RS256)
	is := newIssuer(t, rs)
	clk := &clock{t: time.Now()}
	v := New(policy(t, is, nil), nil, clk.now)
	ctx := context.Background()
	now := clk.now()
	verify := func(kv ...any) Grant {
		g, err := v.Verify(ctx, mint(t, rs, "at+jwt", claims(is, now, kv...)))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	first := verify("exp", now.Add(time.Minute).Unix())
	refreshed := verify("exp", now.Add(2*time.Hour).Unix(), "scope", "folio:tools:github__* folio:read")
	if first.Key != refreshed.Key {
		t.Error("a refreshed token with the same scopes in another order has another key")
	}
	for _, kv := range [][]any{{"sub", "mallory"}, {"scope", "folio:read"}, {"groups", []string{"ops"}}} {
		if verify(kv...).Key == first.Key {
			t.Errorf("%v: the same key", kv)
		}
	}
	clk.add(time.Hour)
	if _, ok := v.Lookup(first.Key); !ok {
		t.Error("the key dropped when its first token expired, though a later one lives")
	}
	clk.add(2 * time.Hour)
	if _, ok := v.Lookup(first.Key); ok {
		t.Error("the key kept after all its tokens expired")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "oauth.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("FOLIO_TEST_SECRET", "s3cret")
	good := `{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}]}`
	p, err := Load(write(good))
	if err != nil {
		t.Fatal(err)
	}
	if p.RequiredScope != ScopeRead || p.leeway() != defaultLeeway || !slices.Equal(p.Algorithms, asymmetric) || p.GroupsClaim != "groups" {
		t.Errorf("defaults: %+v", p)
	}
	for body, want := range map[string]string{
		`{"resource":"http://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}]}`:                                                                                                             "must be https",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[]}`:                                                                                                                                               "none given",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}],"algorithms":["HS256"]}`:                                                                                     "no HMAC",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}],"algorithms":["none"]}`:                                                                                      "no HMAC",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com","introspection_endpoint":"https://id.example.com/i"}]}`:                                                        "needs client_id",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com","introspection_endpoint":"https://id.example.com/i","client_id":"f","client_secret_env":"FOLIO_TEST_UNSET"}]}`: "is empty",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}],"leeway_seconds":3600}`:                                                                                      "0 to 300",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}],"groups":{"a":["[bad"]}}`:                                                                                    "not a valid glob",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"}],"client_secret":"x"}`:                                                                                        "unknown field",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://id.example.com"},{"issuer":"https://id.example.com"}]}`:                                                                        "given twice",
		`{"resource":"https://folio.example.com/mcp","authorization_servers":[{"issuer":"https://a.example.com","introspection_endpoint":"https://a.example.com/i","client_id":"f","client_secret_env":"FOLIO_TEST_SECRET"},{"issuer":"https://b.example.com","introspection_endpoint":"https://b.example.com/i","client_id":"f","client_secret_env":"FOLIO_TEST_SECRET"}]}`: "at most one",
		`{"resource":"https://folio.example.com/{x}","authorization_servers":[{"issuer":"https://id.example.com"}]}`:     "resource",
		`{"resource":"https://folio.example.com/mcp?a=b","authorization_servers":[{"issuer":"https://id.example.com"}]}`: "resource",
	} {
		if _, err := Load(write(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

func TestMetadata(t *testing.T) {
	is := newIssuer(t)
	v := New(policy(t, is, nil), nil, nil)
	if got, want := v.MetadataURL(), "https://folio.example.com/.well-known/oauth-protected-resource/mcp"; got != want {
		t.Errorf("MetadataURL %s, want %s", got, want)
	}
	for resource, want := range map[string]string{
		"https://h.example/mcp": "/.well-known/oauth-protected-resource/mcp", "https://h.example/a/mcp/": "/.well-known/oauth-protected-resource/a/mcp/",
		"https://h.example/": "/.well-known/oauth-protected-resource", "https://h.example": "/.well-known/oauth-protected-resource",
	} {
		if got := New(policy(t, is, func(p *Policy) { p.Resource = resource }), nil, nil).MetadataPath(); got != want {
			t.Errorf("%s: MetadataPath %s, want %s", resource, got, want)
		}
	}
	m := v.Metadata()
	if m.Resource != resource || !slices.Equal(m.AuthorizationServers, []string{is.URL}) || !slices.Contains(m.ScopesSupported, ScopeRead) {
		t.Errorf("Metadata %+v", m)
	}
}

// FuzzVerify: no token, however made, panics the verifier, and none is
// taken but one whose header, claims and signature decode to the valid
// one's (base64 is read loosely).
func FuzzVerify(f *testing.F) {
	rs := newSigner(f, "r1", jose.RS256)
	is := newIssuer(f, rs)
	now := time.Now()
	v := New(policy(f, is, nil), nil, func() time.Time { return now })
	valid := mint(f, rs, "at+jwt", claims(is, now))
	f.Add(valid)
	f.Add(valid[:len(valid)-2])
	f.Add(strings.Replace(valid, ".", "..", 1))
	f.Add("opaque")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		g, err := v.Verify(context.Background(), token)
		if err == nil && (g.Subject != "alice@"+is.URL || !oauthtest.SameJWS(token, valid)) {
			t.Fatalf("%q taken: %+v", token, g)
		}
	})
}

// BenchmarkVerify: one request's token check, its issuer's keys at hand,
// for each kind of key: a token seen before (kept), and the first check
// of one (its signature and claims) (go test ./oauth -run '^$' -bench
// Verify -cpu 1).
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.EdDSA} {
		s := newSigner(b, "k1", alg)
		is := newIssuer(b, s)
		v := New(policy(b, is, nil), nil, nil)
		token := mint(b, s, "at+jwt", claims(is, time.Now()))
		ctx := context.Background()
		b.Run(string(alg)+"/kept", func(b *testing.B) {
			for b.Loop() {
				if _, err := v.Verify(ctx, token); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(alg)+"/first", func(b *testing.B) {
			for b.Loop() {
				if _, err := v.verifyJWT(ctx, token, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
