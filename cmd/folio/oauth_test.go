package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/oauthtest"
	"github.com/folio-mcp/folio/pager"
)

// oauthResource is the resource URL the tests' policy gives folio.
const oauthResource = "https://folio.test/mcp"

// swappable is a bearer token a test may change while its client runs,
// as a client does when it refreshes its token.
type swappable struct {
	mu    sync.Mutex
	token string
}

func (s *swappable) set(token string) { s.mu.Lock(); s.token = token; s.mu.Unlock() }

func (s *swappable) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	token := s.token
	s.mu.Unlock()
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// startOAuth serves dir over HTTP with a policy trusting is (its groups:
// docs sees docs/**, anyone else public/**) and a tokens file holding the
// static token it returns.
func startOAuth(t *testing.T, dir string, is *oauthtest.Issuer) (*serveProc, string) {
	t.Helper()
	policy := filepath.Join(t.TempDir(), "oauth.json")
	b, _ := json.Marshal(map[string]any{
		"resource": oauthResource,
		"authorization_servers": []map[string]any{{"issuer": is.URL, "introspection_endpoint": is.URL + "/introspect",
			"client_id": oauthtest.ClientID, "client_secret_env": "FOLIO_TEST_OAUTH_SECRET"}},
		"groups": map[string][]string{"docs": {"docs/**"}},
		"allow":  []string{"public/**"},
	})
	if err := os.WriteFile(policy, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	r := folio(t, "", "token", "add", "--tokens", tokens, "--subject", "ci")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	p := startServe(t, []string{"FOLIO_TEST_OAUTH_SECRET=" + oauthtest.ClientSecret}, "--root", dir, "--http", "127.0.0.1:0", "--oauth", policy, "--tokens", tokens)
	return p, strings.TrimSpace(r.stdout)
}

// post sends an initialize request to endpoint with the bearer token (none
// when empty; a whole Authorization header when it holds a space) and
// returns the answer.
func post(t *testing.T, endpoint, token string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	switch {
	case strings.Contains(token, " "):
		req.Header.Set("Authorization", token)
	case token != "":
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// TestServeOAuth: folio serve --http --oauth, through the real binary: its
// protected resource metadata, the challenges of RFC 6750 and the MCP
// authorization specification for each way a token is wrong, and the
// official client in both protocol eras with a token's groups as its
// files, a static token beside, a refreshed token continuing a read.
func TestServeOAuth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Repeat("behind OAuth, 中文 and 🙂\n", 400)
	write(t, dir, "docs/a.md", text)
	write(t, dir, "public/c.md", "public\n")
	key := oauthtest.NewSigner(t, "k1", jose.ES256)
	is := oauthtest.New(t, key)
	p, static := startOAuth(t, dir, is)
	base := strings.TrimSuffix(p.endpoint, "/mcp")

	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		}
		json.NewDecoder(res.Body).Decode(&meta)
		res.Body.Close()
		if res.StatusCode != 200 || meta.Resource != oauthResource || !slices.Equal(meta.AuthorizationServers, []string{is.URL}) || !slices.Contains(meta.ScopesSupported, "folio:read") {
			t.Errorf("%s: %d %+v", path, res.StatusCode, meta)
		}
	}

	now := time.Now()
	metaURL := `resource_metadata="https://folio.test/.well-known/oauth-protected-resource/mcp"`
	stranger := oauthtest.NewSigner(t, "k1", jose.ES256)
	payload := strings.Split(key.Mint(t, "at+jwt", is.Claims(oauthResource, now)), ".")[1]
	unsigned := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt","kid":"k1"}`)) + "." + payload + "."
	for _, c := range []struct {
		name, token string
		code        int
		challenge   string
	}{
		{"no token", "", 401, `Bearer realm="folio", scope="folio:read folio:tools", ` + metaURL},
		{"another audience", key.Mint(t, "at+jwt", is.Claims("https://other.test/mcp", now)), 401, `error="invalid_token"`},
		{"expired", key.Mint(t, "at+jwt", is.Claims(oauthResource, now, "exp", now.Add(-time.Hour).Unix())), 401, `error="invalid_token"`},
		{"an unknown key", stranger.Mint(t, "at+jwt", is.Claims(oauthResource, now)), 401, `error="invalid_token"`},
		{"alg none", unsigned, 401, `error="invalid_token"`},
		{"another issuer", key.Mint(t, "at+jwt", is.Claims(oauthResource, now, "iss", "https://evil.test")), 401, `error="invalid_token"`},
		{"no folio:read", key.Mint(t, "at+jwt", is.Claims(oauthResource, now, "scope", "folio:tools")), 403, `error="insufficient_scope", scope="folio:read", ` + metaURL},
		{"an opaque token the server does not know", "unknown-opaque", 401, `error="invalid_token"`},
		{"another scheme", "Basic YTpi", 401, `Bearer realm="folio", scope="folio:read folio:tools", ` + metaURL},
	} {
		res := post(t, p.endpoint, c.token)
		if got := res.Header.Get("WWW-Authenticate"); res.StatusCode != c.code || !strings.Contains(got, c.challenge) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, res.StatusCode, got, c.code, c.challenge)
		}
	}
	is.SetOpaque("opaque-1", map[string]any{"active": true, "iss": is.URL, "sub": "carol", "aud": oauthResource, "scope": "folio:read", "exp": now.Add(time.Hour).Unix()})
	if res := post(t, p.endpoint, "opaque-1"); res.StatusCode != 200 {
		t.Errorf("an active opaque token: %d", res.StatusCode)
	}
	is.SetOpaque("opaque-1", nil)
	if res := post(t, p.endpoint, "opaque-1"); res.StatusCode != 401 {
		t.Errorf("the opaque token once revoked: %d", res.StatusCode)
	}

	connect := func(era, token string) (*mcp.ClientSession, *swappable) {
		tr := &swappable{token: token}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: p.endpoint, HTTPClient: &http.Client{Transport: tr}}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("era %q: %v", era, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, tr
	}
	alice := key.Mint(t, "at+jwt", is.Claims(oauthResource, now, "groups", []string{"docs"}))
	bob := key.Mint(t, "at+jwt", is.Claims(oauthResource, now, "sub", "bob"))
	for _, era := range []string{"", "2025-11-25"} {
		cs, tr := connect(era, alice)
		if out, isErr := readTool(t, cs, map[string]any{"path": "public/c.md", "max_tokens": 500}); !isErr || !strings.Contains(out, "not_found") {
			t.Errorf("era %q: alice (group docs) read public/c.md: %s", era, out)
		}
		// A read continued after the token is refreshed: the cursor is the
		// subject's, not the token's.
		first, isErr := readTool(t, cs, map[string]any{"path": "docs/a.md", "max_tokens": 300})
		pg, err := pager.Decode([]byte(first))
		if isErr || err != nil || !pg.HasMore {
			t.Fatalf("era %q: alice's first page: %s", era, first)
		}
		tr.set(key.Mint(t, "at+jwt", is.Claims(oauthResource, now, "groups", []string{"docs"}, "exp", now.Add(2*time.Hour).Unix())))
		got := pg.Content
		args := map[string]any{"path": "docs/a.md", "max_tokens": 300, "cursor": *pg.NextCursor}
		for {
			out, isErr := readTool(t, cs, args)
			next, err := pager.Decode([]byte(out))
			if isErr || err != nil {
				t.Fatalf("era %q: a page after the refresh: %s", era, out)
			}
			got += next.Content
			if !next.HasMore {
				break
			}
			args["cursor"] = *next.NextCursor
		}
		if got != text {
			t.Errorf("era %q: the pages across a refresh do not give back the file", era)
		}

		cs, _ = connect(era, bob)
		if out, isErr := readTool(t, cs, map[string]any{"path": "docs/a.md", "max_tokens": 500}); !isErr || !strings.Contains(out, "not_found") {
			t.Errorf("era %q: bob (no group) read docs/a.md: %.200s", era, out)
		}
		if out, isErr := readTool(t, cs, map[string]any{"path": "public/c.md", "max_tokens": 500}); isErr {
			t.Errorf("era %q: bob read public/c.md: %s", era, out)
		}
		cs, _ = connect(era, static)
		if out, isErr := readTool(t, cs, map[string]any{"path": "docs/a.md", "max_tokens": 500}); isErr {
			t.Errorf("era %q: the static token beside OAuth: %s", era, out)
		}
	}
}
