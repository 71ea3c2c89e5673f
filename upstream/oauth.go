package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
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
	// Issuer is the authorization server the client is registered with:
	// folio sends its secret to no other, whatever the upstream names.
	Issuer   string
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
	Issuer           string   `json:"issuer"`
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
	if u, err := url.Parse(e.Issuer); err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, errors.New("needs the issuer of the authorization server the client is registered with (an http(s) URL): folio sends its secret to no other")
	}
	if (e.ClientSecretEnv == "") == (e.ClientSecretFile == "") {
		return nil, errors.New("needs one of clientSecretEnv and clientSecretFile (the secret itself never goes in this file)")
	}
	o := &OAuth{Issuer: e.Issuer, ClientID: e.ClientID, SecretEnv: e.ClientSecretEnv, SecretFile: e.ClientSecretFile, Scopes: e.Scopes}
	if _, err := o.secret(); err != nil {
		return nil, err
	}
	return o, nil
}

// secret reads the client's secret, as it is now.
func (o *OAuth) secret() (string, error) {
	return secret.Read(o.SecretEnv, o.SecretFile, "clientSecretEnv", "clientSecretFile")
}

// oauthTimeout bounds each request of getting a token: the metadata's,
// the token's.
const oauthTimeout = 15 * time.Second

// handler is the go-sdk client credentials handler for the upstream at
// resource: on the upstream's 401 it finds its authorization server from
// the challenge's resource metadata (which must be o.Issuer) and asks for
// a token, which it refreshes as it expires. Its token requests name the
// upstream as their resource (RFC 8707, as the MCP specification asks of
// clients), which go-sdk's handler does not.
func (o *OAuth) handler(resource string) (auth.OAuthHandler, error) {
	secret, err := o.secret()
	if err != nil {
		return nil, err
	}
	creds := &oauthex.ClientCredentials{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}}
	client := &http.Client{Timeout: oauthTimeout, Transport: resourceParam{resource: resource, scopes: o.Scopes, next: http.DefaultTransport}}
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{Credentials: creds, HTTPClient: client})
	if err != nil {
		return nil, err
	}
	return &serialHandler{inner: h}, nil
}

// serialHandler is a go-sdk OAuth handler made safe for one connection's
// concurrent requests: go-sdk v1.8's client credentials handler keeps its
// token source and scopes unguarded, and keeps the context of the request
// that got the 401 for every later refresh. Here one request at a time
// authorizes, and with a context that does not end with it.
type serialHandler struct {
	mu    sync.Mutex
	inner auth.OAuthHandler
}

func (h *serialHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inner.TokenSource(ctx)
}

func (h *serialHandler) Authorize(ctx context.Context, req *http.Request, res *http.Response) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inner.Authorize(context.WithoutCancel(ctx), req, res)
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
	b, err := io.ReadAll(io.LimitReader(r.Body, maxTokenRequest+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(b) > maxTokenRequest {
		return nil, fmt.Errorf("a token request over %d bytes", maxTokenRequest)
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
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	r.ContentLength = int64(len(b))
	return p.next.RoundTrip(r)
}
