package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// introspection is the part of an introspection answer (RFC 7662) folio
// reads.
type introspection struct {
	Active    bool            `json:"active"`
	Scope     string          `json:"scope"`
	ClientID  string          `json:"client_id"`
	Subject   string          `json:"sub"`
	Audience  json.RawMessage `json:"aud"`
	Issuer    string          `json:"iss"`
	Expiry    int64           `json:"exp"`
	NotBefore int64           `json:"nbf"`
}

// introspect asks the policy's introspection endpoints about an opaque
// token (of the hash given), the first that knows it active answering, and
// keeps the answer for Policy.IntrospectionCacheSeconds.
func (v *Verifier) introspect(ctx context.Context, token, hash string, now time.Time) (Grant, error) {
	var errs []error
	asked := false
	for i := range v.p.AuthorizationServers {
		server := &v.p.AuthorizationServers[i]
		if server.IntrospectionEndpoint == "" {
			continue
		}
		asked = true
		g, err := v.ask(ctx, server, token, now)
		if err == nil {
			if keep := time.Duration(v.p.IntrospectionCacheSeconds) * time.Second; keep > 0 {
				v.remember(hash, g, now.Add(keep), now)
			}
			return g, nil
		}
		errs = append(errs, err)
	}
	if !asked {
		return Grant{}, invalid("not a JWT, and no authorization server of the policy introspects")
	}
	return Grant{}, invalid("%v", errors.Join(errs...))
}

// ask is one introspection request, and its answer read as a grant: an
// active token, of this server, for folio, unexpired, with a subject
// or a client.
func (v *Verifier) ask(ctx context.Context, server *AuthorizationServer, token string, now time.Time) (Grant, error) {
	secret, err := server.secret()
	if err != nil {
		return Grant{}, err
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
		return Grant{}, err
	}
	var in introspection
	var raw map[string]any
	if err := json.Unmarshal(body, &in); err != nil {
		return Grant{}, err
	}
	json.Unmarshal(body, &raw)
	switch {
	case !in.Active:
		return Grant{}, errors.New("not active (expired, revoked or unknown)")
	case in.Issuer != "" && in.Issuer != server.Issuer:
		return Grant{}, errors.New("issued by " + in.Issuer + ", not " + server.Issuer)
	case !oauthex.MatchesResource(audiences(in.Audience), v.p.Resource):
		return Grant{}, errors.New("issued for " + string(in.Audience) + ", not for " + v.p.Resource)
	case in.Subject == "" && in.ClientID == "":
		return Grant{}, errors.New("no subject and no client")
	case in.Expiry != 0 && now.After(time.Unix(in.Expiry, 0).Add(v.p.leeway())):
		return Grant{}, errors.New("expired")
	case in.NotBefore != 0 && now.Add(v.p.leeway()).Before(time.Unix(in.NotBefore, 0)):
		return Grant{}, errors.New("not valid yet")
	}
	// A token a client got for itself (client credentials) may name no
	// subject: the client is its subject, as RFC 9068 has it for JWTs.
	subject := in.Subject
	if subject == "" {
		subject = in.ClientID
	}
	expiry := now.Add(v.p.leeway())
	if in.Expiry != 0 {
		expiry = time.Unix(in.Expiry, 0)
	}
	return v.grant(server.Issuer, subject, in.ClientID, strings.Fields(in.Scope), strings1(raw[v.p.GroupsClaim]), expiry), nil
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
