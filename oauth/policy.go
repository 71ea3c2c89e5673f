// Package oauth makes folio an OAuth 2.1 resource server, as the MCP
// authorization specification has it: the protected resource metadata
// that names its authorization servers (RFC 9728), access tokens checked
// as JWTs (RFC 9068) against their issuer's keys or, opaque, by
// introspection (RFC 7662), bound to folio's own resource URL (RFC 8707,
// no token passthrough), and a token's scopes and claims read as what a
// tokens file would give: the tools it may use and the files it may see.
package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/folio-mcp/folio/internal/secret"
)

// Scopes folio understands. ScopeRead is the one every token needs unless
// the policy names another; ScopeTools gives every upstream tool, and
// ScopeTools+":"+glob the upstream tools the glob matches
// ("folio:tools:github__*").
const (
	ScopeRead  = "folio:read"
	ScopeTools = "folio:tools"
)

// Policy is the OAuth file of folio serve --http (--oauth FILE): who
// issues the tokens folio accepts, and what a token's scopes and claims
// give.
type Policy struct {
	// Resource is folio's own URL as clients reach it, its MCP endpoint
	// ("https://folio.example.com/mcp"): a token's audience must be it.
	Resource string `json:"resource"`
	// ResourceName is shown to a user signing in (optional).
	ResourceName string `json:"resource_name,omitempty"`
	// AuthorizationServers are the issuers whose tokens folio accepts.
	AuthorizationServers []AuthorizationServer `json:"authorization_servers"`
	// Algorithms are the JWS algorithms a token may be signed with;
	// empty means every asymmetric one (RS, PS, ES and EdDSA). Neither
	// "none" nor an HMAC one is allowed.
	Algorithms []string `json:"algorithms,omitempty"`
	// TokenTypes are the "typ" headers a JWT access token may carry;
	// empty means RFC 9068's "at+jwt" (and "application/at+jwt") alone.
	TokenTypes []string `json:"token_types,omitempty"`
	// LeewaySeconds is how far a token's times may be off folio's clock
	// (expiry, not-before, issued-at): 0 means 30, at most 300.
	LeewaySeconds int `json:"leeway_seconds,omitempty"`
	// RequiredScope is the scope every request's token needs; empty
	// means ScopeRead.
	RequiredScope string `json:"required_scope,omitempty"`
	// GroupsClaim names the claim that lists a subject's groups; empty
	// means "groups".
	GroupsClaim string `json:"groups_claim,omitempty"`
	// Groups gives each group the files its members see (doublestar
	// globs over paths relative to a root, as a tokens file's allow): a
	// subject in several sees what any of them gives.
	Groups map[string][]string `json:"groups,omitempty"`
	// Allow is what a subject in none of Groups sees; empty means every
	// visible file, as in a tokens file.
	Allow []string `json:"allow,omitempty"`
	// IntrospectionCacheSeconds is how long an opaque token's
	// introspection answer is kept: 0 asks again on every request (a
	// revoked token is refused at once), at most 300.
	IntrospectionCacheSeconds int `json:"introspection_cache_seconds,omitempty"`
}

// AuthorizationServer is an issuer folio accepts tokens of.
type AuthorizationServer struct {
	// Issuer is its issuer identifier, exactly as its tokens' "iss".
	Issuer string `json:"issuer"`
	// JWKSURI is where its signing keys are; empty means the jwks_uri
	// its metadata gives (RFC 8414, then OpenID Connect discovery).
	JWKSURI string `json:"jwks_uri,omitempty"`
	// IntrospectionEndpoint checks its opaque tokens (RFC 7662), with
	// ClientID and a secret from the environment variable
	// ClientSecretEnv or the file ClientSecretFile, never this file.
	IntrospectionEndpoint string `json:"introspection_endpoint,omitempty"`
	ClientID              string `json:"client_id,omitempty"`
	ClientSecretEnv       string `json:"client_secret_env,omitempty"`
	ClientSecretFile      string `json:"client_secret_file,omitempty"`
}

// asymmetric are the JWS algorithms a policy may allow.
var asymmetric = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Bounds of a policy's numbers.
const (
	defaultLeeway = 30 * time.Second
	maxSeconds    = 300
)

// Load reads and checks the policy file at path.
func Load(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Policy
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// check reports what is wrong with p, and fills in its defaults.
func (p *Policy) check() error {
	if err := checkURL("resource", p.Resource); err != nil {
		return err
	}
	if u, _ := url.Parse(p.Resource); u.RawQuery != "" || strings.ContainsAny(u.Path, "{}") {
		return fmt.Errorf("resource: %q must have no query, nor { } in its path (its metadata is served under its path)", p.Resource)
	}
	if err := p.checkServers(); err != nil {
		return err
	}
	if len(p.Algorithms) == 0 {
		p.Algorithms = asymmetric
	}
	for _, alg := range p.Algorithms {
		if !slices.Contains(asymmetric, alg) {
			return fmt.Errorf("algorithms: %q is not one of %s (no \"none\", no HMAC)", alg, strings.Join(asymmetric, " "))
		}
	}
	if len(p.TokenTypes) == 0 {
		p.TokenTypes = []string{"at+jwt", "application/at+jwt"}
	}
	if p.LeewaySeconds < 0 || p.LeewaySeconds > maxSeconds || p.IntrospectionCacheSeconds < 0 || p.IntrospectionCacheSeconds > maxSeconds {
		return fmt.Errorf("leeway_seconds and introspection_cache_seconds are 0 to %d", maxSeconds)
	}
	if p.RequiredScope == "" {
		p.RequiredScope = ScopeRead
	}
	if p.GroupsClaim == "" {
		p.GroupsClaim = "groups"
	}
	for g, globs := range p.Groups {
		if err := checkGlobs(globs); err != nil {
			return fmt.Errorf("groups[%q]: %w", g, err)
		}
	}
	return checkGlobs(p.Allow)
}

// checkServers reports what is wrong with p's authorization servers: each
// checked, none given twice, at most one that introspects.
func (p *Policy) checkServers() error {
	if len(p.AuthorizationServers) == 0 {
		return errors.New("authorization_servers: none given")
	}
	seen := map[string]bool{}
	introspecting := 0
	for i := range p.AuthorizationServers {
		a := &p.AuthorizationServers[i]
		if err := a.check(); err != nil {
			return fmt.Errorf("authorization_servers[%d]: %w", i, err)
		}
		if seen[a.Issuer] {
			return fmt.Errorf("authorization_servers[%d]: issuer %s given twice", i, a.Issuer)
		}
		seen[a.Issuer] = true
		if a.IntrospectionEndpoint != "" {
			introspecting++
		}
	}
	if introspecting > 1 {
		// An opaque token does not say whose it is: shown to two
		// servers, one could take another's token for its own.
		return errors.New("authorization_servers: at most one may have an introspection_endpoint")
	}
	return nil
}

// leeway is how far a token's times may be off.
func (p *Policy) leeway() time.Duration {
	if p.LeewaySeconds == 0 {
		return defaultLeeway
	}
	return time.Duration(p.LeewaySeconds) * time.Second
}

// check reports what is wrong with a.
func (a *AuthorizationServer) check() error {
	if err := checkURL("issuer", a.Issuer); err != nil {
		return err
	}
	if a.JWKSURI != "" {
		if err := checkURL("jwks_uri", a.JWKSURI); err != nil {
			return err
		}
	}
	if a.IntrospectionEndpoint == "" {
		return nil
	}
	if err := checkURL("introspection_endpoint", a.IntrospectionEndpoint); err != nil {
		return err
	}
	if a.ClientID == "" || (a.ClientSecretEnv == "") == (a.ClientSecretFile == "") {
		return errors.New("introspection_endpoint needs client_id and one of client_secret_env, client_secret_file")
	}
	_, err := a.secret()
	return err
}

// secret is the client secret folio introspects with.
func (a *AuthorizationServer) secret() (string, error) {
	return secret.Read(a.ClientSecretEnv, a.ClientSecretFile, "client_secret_env", "client_secret_file")
}

// checkURL reports whether s is an absolute https URL, or http to a
// loopback address, with no fragment.
func checkURL(field, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%s: %q is not an absolute URL without user or fragment", field, s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("%s: %q must be https (http only to a loopback address)", field, s)
}

// checkGlobs reports a glob that is not a valid doublestar pattern.
func checkGlobs(globs []string) error {
	for _, g := range globs {
		if g == "" || !doublestar.ValidatePattern(g) {
			return fmt.Errorf("%q is not a valid glob", g)
		}
	}
	return nil
}
