package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
// token, the first that knows it active answering, and keeps the answer
// for Policy.IntrospectionCacheSeconds.
func (v *Verifier) introspect(ctx context.Context, token string, now time.Time) (Grant, error) {
	sum := sha256.Sum256([]byte(token))
	hash := hex.EncodeToString(sum[:])
	v.mu.Lock()
	a, ok := v.answers[hash]
	v.mu.Unlock()
	if ok && now.Before(a.until) && now.Before(a.g.Expiry.Add(v.p.leeway())) {
		return a.g, nil
	}
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
			v.remember(hash, g, now)
			return g, nil
		}
		errs = append(errs, err)
	}
	if !asked {
		return Grant{}, invalid("not a JWT, and no authorization server of the policy introspects")
	}
	return Grant{}, invalid("%v", errors.Join(errs...))
}

// remember keeps an introspection answer, while the policy says.
func (v *Verifier) remember(hash string, g Grant, now time.Time) {
	if v.p.IntrospectionCacheSeconds == 0 {
		return
	}
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
	v.answers[hash] = answer{g: g, until: now.Add(time.Duration(v.p.IntrospectionCacheSeconds) * time.Second)}
}

// ask is one introspection request, and its answer read as a grant: an
// active token, of this server, for folio, unexpired, with a subject.
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
	case in.Subject == "":
		return Grant{}, errors.New("no subject")
	case in.Expiry != 0 && now.After(time.Unix(in.Expiry, 0).Add(v.p.leeway())):
		return Grant{}, errors.New("expired")
	case in.NotBefore != 0 && now.Add(v.p.leeway()).Before(time.Unix(in.NotBefore, 0)):
		return Grant{}, errors.New("not valid yet")
	}
	expiry := now.Add(v.p.leeway())
	if in.Expiry != 0 {
		expiry = time.Unix(in.Expiry, 0)
	}
	return v.grant(server.Issuer, in.Subject, in.ClientID, strings.Fields(in.Scope), strings1(raw[v.p.GroupsClaim]), expiry), nil
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
