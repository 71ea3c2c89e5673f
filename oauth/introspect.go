package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// introspection is the part of an introspection answer (RFC 7662) folio
// reads.
type introspection struct {
	Active   bool            `json:"active"`
	Scope    string          `json:"scope"`
	ClientID string          `json:"client_id"`
	Subject  string          `json:"sub"`
	Audience json.RawMessage `json:"aud"`
	Issuer   string          `json:"iss"`
	// Times are NumericDates: JSON numbers, fractions allowed.
	Expiry    float64 `json:"exp"`
	NotBefore float64 `json:"nbf"`
	TokenType string  `json:"token_type"`
}

// introspect asks the policy's one introspecting authorization server
// about an opaque token (of the hash given), and keeps a grant for
// Policy.IntrospectionCacheSeconds. At most maxIntrospections requests
// are out at once; a request waits for room while its client is there.
func (v *Verifier) introspect(ctx context.Context, token, hash string, now time.Time) (Grant, error) {
	server := v.introspector()
	if server == nil {
		return Grant{}, invalid("not a JWT, and no authorization server of the policy introspects")
	}
	select {
	case v.asking <- struct{}{}:
		defer func() { <-v.asking }()
	case <-ctx.Done():
		return Grant{}, ctx.Err()
	}
	g, err := v.ask(ctx, server, token, now)
	if err != nil {
		return Grant{}, err
	}
	if keep := time.Duration(v.p.IntrospectionCacheSeconds) * time.Second; keep > 0 {
		v.remember(hash, g, now.Add(keep), now)
	}
	return g, nil
}

// introspector is the policy's authorization server with an
// introspection endpoint (at most one has: an opaque token names no
// issuer, and is shown to no other); nil for none.
func (v *Verifier) introspector() *AuthorizationServer {
	for i := range v.p.AuthorizationServers {
		if v.p.AuthorizationServers[i].IntrospectionEndpoint != "" {
			return &v.p.AuthorizationServers[i]
		}
	}
	return nil
}

// maxIntrospections bounds the introspection requests out at once.
const maxIntrospections = 16

// ask is one introspection request, and its answer read as a grant: an
// active access token, of this server, for folio, unexpired, with a
// subject or a client. An answer that does not come, or is not one,
// wraps ErrUnavailable; a token the answer refuses, ErrInvalidToken.
func (v *Verifier) ask(ctx context.Context, server *AuthorizationServer, token string, now time.Time) (Grant, error) {
	secret, err := server.secret()
	if err != nil {
		return Grant{}, fmt.Errorf("%w: introspection: %w", ErrUnavailable, err)
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, server.IntrospectionEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Grant{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 2.3.1: the client's ID and secret, form-encoded, as Basic.
	req.SetBasicAuth(url.QueryEscape(server.ClientID), url.QueryEscape(secret))
	var body json.RawMessage
	if err := do(v.client, req, &body); err != nil {
		return Grant{}, fmt.Errorf("%w: introspection: %w", ErrUnavailable, err)
	}
	var in introspection
	var raw map[string]any
	if err := json.Unmarshal(body, &in); err != nil {
		return Grant{}, fmt.Errorf("%w: introspection: %w", ErrUnavailable, err)
	}
	json.Unmarshal(body, &raw)
	if reason := v.refusal(server, in, now); reason != "" {
		return Grant{}, invalid("%s", reason)
	}

	// A token a client got for itself (client credentials) may name no
	// subject: the client is its subject, as RFC 9068 has it for JWTs.
	subject := in.Subject
	if subject == "" {
		subject = in.ClientID
	}
	expiry := now.Add(v.p.leeway())
	if in.Expiry != 0 {
		expiry = unixTime(in.Expiry)
	}
	return v.grant(server.Issuer, subject, in.ClientID, strings.Fields(in.Scope), strings1(raw[v.p.GroupsClaim]), expiry), nil
}

// refusal is why an introspection answer does not admit its token; ""
// when it does.
func (v *Verifier) refusal(server *AuthorizationServer, in introspection, now time.Time) string {
	switch {
	case !in.Active:
		return "not active (expired, revoked or unknown)"
	case in.TokenType != "" && strings.Contains(strings.ToLower(in.TokenType), "refresh"):
		return "a refresh token, not an access token"
	case in.Issuer != "" && in.Issuer != server.Issuer:
		return "issued by " + in.Issuer + ", not " + server.Issuer
	case !oauthex.MatchesResource(audiences(in.Audience), v.p.Resource):
		return "issued for " + string(in.Audience) + ", not for " + v.p.Resource
	case in.Subject == "" && in.ClientID == "":
		return "no subject and no client"
	case in.Expiry != 0 && now.After(unixTime(in.Expiry).Add(v.p.leeway())):
		return "expired"
	case in.NotBefore != 0 && now.Add(v.p.leeway()).Before(unixTime(in.NotBefore)):
		return "not valid yet"
	}
	return ""
}

// unixTime is a NumericDate (seconds since the epoch) as a time.
func unixTime(seconds float64) time.Time {
	whole, fraction := math.Modf(seconds)
	return time.Unix(int64(whole), int64(fraction*1e9))
}

// audiences is an "aud" claim, a string or a list of them, as a list.
func audiences(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}
