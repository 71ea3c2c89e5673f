package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/folio-mcp/folio/internal/secret"
)

// OAuth is how folio gets a token of its own for an HTTP upstream that
// requires one: the client credentials grant, as a client registered
// with the upstream's authorization server. The secret comes from an
// environment variable or a file, never from the mcpServers file. The
// caller's token is never sent upstream.
type OAuth struct {
	ClientID string
	// SecretEnv names the variable, SecretFile the file, that holds the
	// client's secret: one of them.
	SecretEnv, SecretFile string
	// Scopes are asked for; none: those the upstream's challenge or
	// metadata names.
	Scopes []string
}

// oauthEntry is OAuth as an entry gives it.
type oauthEntry struct {
	ClientID         string   `json:"clientId"`
	ClientSecretEnv  string   `json:"clientSecretEnv"`
	ClientSecretFile string   `json:"clientSecretFile"`
	Scopes           []string `json:"scopes"`
}

// parseOAuth checks an entry's "oauth" and makes it an OAuth.
func parseOAuth(e *oauthEntry) (*OAuth, error) {
	if e.ClientID == "" {
		return nil, errors.New("needs a clientId")
	}
	if (e.ClientSecretEnv == "") == (e.ClientSecretFile == "") {
		return nil, errors.New("needs one of clientSecretEnv and clientSecretFile (the secret itself never goes in this file)")
	}
	o := &OAuth{ClientID: e.ClientID, SecretEnv: e.ClientSecretEnv, SecretFile: e.ClientSecretFile, Scopes: e.Scopes}
	if _, err := o.secret(); err != nil {
		return nil, err
	}
	return o, nil
}

// secret reads the client's secret, as it is now.
func (o *OAuth) secret() (string, error) {
	return secret.Read(o.SecretEnv, o.SecretFile, "clientSecretEnv", "clientSecretFile")
}

// oauthTimeout bounds the whole of getting a token: discovery and the
// token request.
const oauthTimeout = 15 * time.Second

// handler is the go-sdk client credentials handler for the upstream at
// resource: on the upstream's 401 it finds its authorization server from
// the challenge's resource metadata and asks for a token, which it
// refreshes as it expires. Its token requests name the upstream as their
// resource (RFC 8707, as the MCP specification asks of clients), which
// go-sdk's handler does not.
func (o *OAuth) handler(resource string) (auth.OAuthHandler, error) {
	secret, err := o.secret()
	if err != nil {
		return nil, err
	}
	creds := &oauthex.ClientCredentials{ClientID: o.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}}
	client := &http.Client{Timeout: oauthTimeout, Transport: resourceParam{resource: resource, scopes: o.Scopes, next: http.DefaultTransport}}
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{Credentials: creds, HTTPClient: client})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// failing is the handler of an upstream whose secret cannot be read: its
// 401 stays a failure, saying why.
type failing struct{ err error }

func (f failing) TokenSource(context.Context) (oauth2.TokenSource, error) { return nil, nil }

func (f failing) Authorize(_ context.Context, _ *http.Request, res *http.Response) error {
	res.Body.Close()
	return f.err
}

// resourceParam adds to a client credentials token request the
// upstream's resource indicator, and the scopes asked for when the entry
// names them.
type resourceParam struct {
	resource string
	scopes   []string
	next     http.RoundTripper
}

// maxTokenRequest bounds a token request's body read here.
const maxTokenRequest = 64 << 10

func (p resourceParam) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.Body == nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return p.next.RoundTrip(r)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxTokenRequest))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(b))
	if err == nil && form.Get("grant_type") == "client_credentials" {
		if form.Get("resource") == "" {
			form.Set("resource", p.resource)
		}
		if len(p.scopes) > 0 {
			form.Set("scope", strings.Join(p.scopes, " "))
		}
		b = []byte(form.Encode())
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	return p.next.RoundTrip(r)
}
