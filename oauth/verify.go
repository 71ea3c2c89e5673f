package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ErrInvalidToken is what every refused token's error wraps;
// ErrUnavailable, the error of a token that could not be checked because
// its authorization server did not answer (its keys, its introspection).
var (
	ErrInvalidToken = errors.New("invalid token")
	ErrUnavailable  = errors.New("authorization server unavailable")
)

// Bounds of a token and of what is kept of tokens.
const (
	// maxToken bounds a token's length.
	maxToken = 16 << 10
	// maxTries bounds the keys a token without a key ID is tried with.
	maxTries = 4
	// maxGrants bounds the grants kept for Lookup, and the tokens' grants
	// kept by their hash (JWTs', introspection's): past it, the expired
	// ones go, then all.
	maxGrants = 1 << 16
)

// Grant is what a valid token gives.
type Grant struct {
	// Key names the grant: the same for every token of one issuer,
	// subject, scopes and files (a refreshed token keeps it), and never
	// a static token's hash (it starts "oauth:").
	Key string
	// Subject is the token's "sub" at its issuer ("alice@https://id.example.com").
	Subject string
	// ClientID is the client the token was issued to, if it says.
	ClientID string
	Scopes   []string
	// Allow holds the globs of the files it may see (the policy's groups
	// the subject is in, else its allow; empty: every visible file).
	Allow []string
	// Tools holds the globs of the upstream tools its scopes give ("*"
	// for ScopeTools); folio's own tools come with the required scope.
	Tools []string
	// Expiry is when the token expires.
	Expiry time.Time
}

// Verifier checks access tokens under a policy and keeps what they gave.
// It is safe for concurrent use.
type Verifier struct {
	p      *Policy
	client *http.Client
	now    func() time.Time
	algs   []jose.SignatureAlgorithm
	sets   map[string]*keySet // by issuer
	// asking holds a place for each introspection request out.
	asking chan struct{}

	mu     sync.Mutex
	grants map[string]Grant // by key, while unexpired
	// answers are the grants of tokens checked, by the token's hash: a
	// JWT's till it expires, an opaque one's for
	// Policy.IntrospectionCacheSeconds.
	answers map[string]answer
}

// answer is a token's grant kept.
type answer struct {
	g     Grant
	until time.Time
}

// New makes a verifier of p's tokens that fetches keys and introspects
// with client (nil: a client of its own); now is its clock (nil:
// time.Now).
func New(p *Policy, client *http.Client, now func() time.Time) *Verifier {
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	if now == nil {
		now = time.Now
	}
	v := &Verifier{p: p, client: client, now: now, sets: map[string]*keySet{}, asking: make(chan struct{}, maxIntrospections),
		grants: map[string]Grant{}, answers: map[string]answer{}}
	for _, alg := range p.Algorithms {
		v.algs = append(v.algs, jose.SignatureAlgorithm(alg))
	}
	for _, a := range p.AuthorizationServers {
		v.sets[a.Issuer] = &keySet{issuer: a.Issuer, uri: a.JWKSURI, client: client}
	}
	return v
}

// RequiredScope is the scope every request's token needs.
func (v *Verifier) RequiredScope() string { return v.p.RequiredScope }

// Leeway is how far a token's times may be off folio's clock.
func (v *Verifier) Leeway() time.Duration { return v.p.leeway() }

// Scopes are the scopes a client is asked to request, in a challenge
// and in the metadata: the required one, ScopeRead, and ScopeTools (an
// authorization server grants what its own policy gives).
func (v *Verifier) Scopes() []string {
	if v.p.RequiredScope == ScopeRead {
		return []string{ScopeRead, ScopeTools}
	}
	return []string{v.p.RequiredScope, ScopeRead, ScopeTools}
}

// Metadata is folio's protected resource metadata (RFC 9728).
func (v *Verifier) Metadata() *oauthex.ProtectedResourceMetadata {
	m := &oauthex.ProtectedResourceMetadata{
		Resource:               v.p.Resource,
		ResourceName:           v.p.ResourceName,
		ScopesSupported:        v.Scopes(),
		BearerMethodsSupported: []string{"header"},
	}
	for _, a := range v.p.AuthorizationServers {
		m.AuthorizationServers = append(m.AuthorizationServers, a.Issuer)
	}
	return m
}

// MetadataPath is the path folio serves its metadata at, as RFC 9728
// has it: the well-known path, then the resource's path (a lone "/"
// dropped). Only there: metadata at the well-known path alone would be
// of the resource at the host's root, which folio is not.
func (v *Verifier) MetadataPath() string {
	u, _ := url.Parse(v.p.Resource)
	p := u.EscapedPath()
	if p == "/" {
		p = ""
	}
	return "/.well-known/oauth-protected-resource" + p
}

// MetadataURL is the URL of folio's metadata, as a challenge names it.
func (v *Verifier) MetadataURL() string {
	u, _ := url.Parse(v.p.Resource)
	return u.Scheme + "://" + u.Host + v.MetadataPath()
}

// Verify checks token: a JWT against its issuer's keys, any other by
// introspection. A refused token's error wraps ErrInvalidToken.
func (v *Verifier) Verify(ctx context.Context, token string) (Grant, error) {
	if len(token) > maxToken {
		return Grant{}, fmt.Errorf("%w: longer than %d bytes", ErrInvalidToken, maxToken)
	}
	now := v.now()
	sum := sha256.Sum256([]byte(token))
	hash := hex.EncodeToString(sum[:])
	g, ok := v.kept(hash, now)
	if !ok {
		var err error
		// A JWS's header is a JSON object ("eyJ" in base64url): any
		// other token (opaque, or PASETO's of two dots too) is asked
		// about.
		if strings.Count(token, ".") == 2 && strings.HasPrefix(token, "eyJ") {
			// A JWT checked is kept till it expires: its signature is
			// checked once, not on every request.
			if g, err = v.verifyJWT(ctx, token, now); err == nil {
				v.remember(hash, g, g.Expiry.Add(v.p.leeway()), now)
			}
		} else {
			g, err = v.introspect(ctx, token, hash, now)
		}
		if err != nil {
			return Grant{}, err
		}
	}
	v.keep(g, now)
	return g, nil
}

// kept is the grant of the token whose hash is given, if it was checked
// and is kept still.
func (v *Verifier) kept(hash string, now time.Time) (Grant, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	a, ok := v.answers[hash]
	if !ok || !now.Before(a.until) || now.After(a.g.Expiry.Add(v.p.leeway())) {
		return Grant{}, false
	}
	return a.g, true
}

// remember keeps the grant of a token, by its hash, until then.
func (v *Verifier) remember(hash string, g Grant, until, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.answers) >= maxGrants {
		for k, a := range v.answers {
			if !now.Before(a.until) {
				delete(v.answers, k)
			}
		}
		if len(v.answers) >= maxGrants {
			clear(v.answers)
		}
	}
	v.answers[hash] = answer{g: g, until: until}
}

// Lookup returns the grant of key, while a token that gave it is
// unexpired.
func (v *Verifier) Lookup(key string) (Grant, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	g, ok := v.grants[key]
	if !ok || v.now().After(g.Expiry.Add(v.p.leeway())) {
		return Grant{}, false
	}
	return g, true
}

// keep records g for Lookup, with the latest expiry of its tokens.
func (v *Verifier) keep(g Grant, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if old, ok := v.grants[g.Key]; ok && old.Expiry.After(g.Expiry) {
		g.Expiry = old.Expiry
	}
	if _, ok := v.grants[g.Key]; !ok && len(v.grants) >= maxGrants {
		for k, old := range v.grants {
			if now.After(old.Expiry.Add(v.p.leeway())) {
				delete(v.grants, k)
			}
		}
		if len(v.grants) >= maxGrants {
			clear(v.grants)
		}
	}
	v.grants[g.Key] = g
}

// invalid is a refusal, wrapping ErrInvalidToken.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidToken}, args...)...)
}

// verifyJWT checks a JWT access token (RFC 9068): an allowed algorithm, an
// access token's type, an issuer of the policy, a signature by one of its
// keys, its times, folio as its audience, a subject.
func (v *Verifier) verifyJWT(ctx context.Context, token string, now time.Time) (Grant, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return Grant{}, invalid("not a JWT signed with an allowed algorithm (%s): %v", strings.Join(v.p.Algorithms, " "), err)
	}
	if len(tok.Headers) != 1 {
		return Grant{}, invalid("a JWT of %d signatures", len(tok.Headers))
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !slices.ContainsFunc(v.p.TokenTypes, func(t string) bool { return strings.EqualFold(t, typ) }) {
		return Grant{}, invalid("type %q is not an access token's (%s)", typ, strings.Join(v.p.TokenTypes, ", "))
	}
	var claimed struct {
		Issuer string `json:"iss"`
	}
	if err := tok.UnsafeClaimsWithoutVerification(&claimed); err != nil {
		return Grant{}, invalid("claims: %v", err)
	}
	set, ok := v.sets[claimed.Issuer]
	if !ok {
		return Grant{}, invalid("issuer %q is not one folio accepts", claimed.Issuer)
	}
	keys, err := set.lookup(ctx, h.KeyID, h.Algorithm, now)
	if errors.Is(err, ErrUnavailable) {
		return Grant{}, err
	} else if err != nil {
		return Grant{}, invalid("%v", err)
	}
	var std jwt.Claims
	var raw map[string]any
	signed := false
	for _, key := range keys[:min(len(keys), maxTries)] {
		if tok.Claims(key.Key, &std, &raw) == nil {
			signed = true
			break
		}
	}
	if !signed {
		return Grant{}, invalid("signature does not verify with the keys of %s", set.issuer)
	}
	if std.Expiry == nil {
		return Grant{}, invalid("no expiry")
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: set.issuer, Time: now}, v.p.leeway()); err != nil {
		return Grant{}, invalid("%v", err)
	}
	if !oauthex.MatchesResource(std.Audience, v.p.Resource) {
		return Grant{}, invalid("issued for %q, not for %s", []string(std.Audience), v.p.Resource)
	}
	if std.Subject == "" {
		return Grant{}, invalid("no subject")
	}
	clientID, _ := raw["client_id"].(string)
	return v.grant(set.issuer, std.Subject, clientID, scopesOf(raw), strings1(raw[v.p.GroupsClaim]), std.Expiry.Time()), nil
}

// scopesOf are the scopes a token's claims give: "scope", a string of
// them (RFC 9068), or "scp"; either may be a list too, as some issuers
// write it.
func scopesOf(claims map[string]any) []string {
	if s, ok := claims["scope"]; ok {
		return strings1(s)
	}
	return strings1(claims["scp"])
}

// strings1 is a claim that holds a list of strings, or one string
// (space-separated words), as strings; anything else as none.
func strings1(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// grant is what a token of issuer for subject with scopes and groups gives.
func (v *Verifier) grant(issuer, subject, clientID string, scopes, groups []string, expiry time.Time) Grant {
	g := Grant{Subject: subject + "@" + issuer, ClientID: clientID, Scopes: scopes, Expiry: expiry}
	for _, s := range scopes {
		if s == ScopeTools {
			g.Tools = append(g.Tools, "*")
		} else if glob, ok := strings.CutPrefix(s, ScopeTools+":"); ok && glob != "" && doublestar.ValidatePattern(glob) {
			g.Tools = append(g.Tools, glob)
		}
	}
	for _, group := range groups {
		g.Allow = append(g.Allow, v.p.Groups[group]...)
	}
	if len(g.Allow) == 0 {
		g.Allow = v.p.Allow
	}
	slices.Sort(g.Tools)
	g.Tools = slices.Compact(g.Tools)
	slices.Sort(g.Allow)
	g.Allow = slices.Compact(g.Allow)
	sorted := slices.Sorted(slices.Values(scopes))
	// Each value and each list is written with its length first, so that
	// no two grants write the same bytes.
	h := sha256.New()
	for _, part := range [][]string{{issuer, subject}, sorted, g.Allow, g.Tools} {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(part))))
		for _, s := range part {
			h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(s))))
			h.Write([]byte(s))
		}
	}
	g.Key = "oauth:" + hex.EncodeToString(h.Sum(nil))
	return g
}
