package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/folio-mcp/folio/internal/oauthtest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/pager"
)

// idp is testdata/oauth/idp.mjs running: oidc-provider on loopback.
type idp struct {
	issuer string
	log    *strings.Builder
}

// startIdP starts the authorization server for resource, its access
// tokens living ttl seconds; it stops at the test's end.
func startIdP(t *testing.T, dir, node, resource string, ttl int) idp {
	t.Helper()
	cmd := exec.Command(node, filepath.Join(dir, "idp.mjs"), resource, fmt.Sprint(ttl))
	cmd.Dir = dir
	log := &strings.Builder{}
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var first struct{ Issuer string }
	sc := bufio.NewScanner(out)
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &first) != nil || first.Issuer == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("idp.mjs did not start: %q\n%s", sc.Text(), log)
	}
	return idp{issuer: first.Issuer, log: log}
}

// clientToken is an access token for resource of the client (with the
// secret s3cret) by the client credentials grant, asking for scope.
func (p idp) clientToken(t *testing.T, client, resource, scope string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.issuer+"/token", strings.NewReader(url.Values{
		"grant_type": {"client_credentials"}, "resource": {resource}, "scope": {scope}}.Encode()))
	req.SetBasicAuth(client, "s3cret")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if json.NewDecoder(res.Body).Decode(&tok); res.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("client credentials of %s: %s", client, res.Status)
	}
	return tok.AccessToken
}

// revoke revokes token at the authorization server (RFC 7009).
func (p idp) revoke(t *testing.T, client, token string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.issuer+"/token/revocation", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.SetBasicAuth(client, "s3cret")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("revoking: %v %v", err, res)
	}
	res.Body.Close()
}

// freeLoopbackPort is a port nothing listens on now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestOAuthEndToEnd: a real authorization server (oidc-provider,
// testdata/oauth/idp.mjs) and the official TypeScript SDK's OAuth client
// (client.mjs): the client meets folio's 401, discovers the server from
// folio's metadata, registers, signs a user in through the login and
// consent screens, calls read and two upstream tools, and refreshes its
// token once it expires. One upstream is another folio that requires
// OAuth of the same server: folio gets its own token for it (client
// credentials, the secret from its environment), never passing on the
// caller's. Tokens of the server's own clients are taken (a JWT by client
// credentials) or refused: one without folio:read with 403; with 401 one
// issued for the other folio, an expired one, one re-signed by another
// key, one made alg none, and an opaque one once revoked, through
// introspection.
func TestOAuthEndToEnd(t *testing.T) {
	dir, node := npmDir(t, "oauth")
	port, upPort := freeLoopbackPort(t), freeLoopbackPort(t)
	resource := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	upResource := fmt.Sprintf("http://127.0.0.1:%d/mcp", upPort)
	const ttl = 3
	as := startIdP(t, dir, node, resource+","+upResource, ttl)

	// The upstream folio, behind the same authorization server.
	upRoot, upWork := t.TempDir(), t.TempDir()
	write(t, upRoot, "b.md", "from the upstream folio\n")
	upPolicy := filepath.Join(upWork, "oauth.json")
	b, _ := json.Marshal(map[string]any{"resource": upResource, "authorization_servers": []map[string]any{{"issuer": as.issuer}}})
	os.WriteFile(upPolicy, b, 0o600)
	startServe(t, nil, "--root", upRoot, "--http", fmt.Sprintf("127.0.0.1:%d", upPort), "--oauth", upPolicy)

	root := t.TempDir()
	text := strings.Repeat("signed in with OAuth, 中文 and 🙂\n", 100)
	write(t, root, "docs/a.md", text)
	work := t.TempDir()
	upstreams := filepath.Join(work, "mcp.json")
	writeUpstreams(t, upstreams, map[string]any{
		"fake": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-tools", "echo"}},
		"docs": map[string]any{"type": "http", "url": upResource, "oauth": map[string]any{"issuer": as.issuer, "clientId": "gateway", "clientSecretEnv": "FOLIO_TEST_GATEWAY_SECRET"}},
	})
	policy := filepath.Join(work, "oauth.json")
	b, _ = json.Marshal(map[string]any{
		"resource": resource,
		"authorization_servers": []map[string]any{{"issuer": as.issuer, "introspection_endpoint": as.issuer + "/token/introspection",
			"client_id": "folio", "client_secret_file": filepath.Join(work, "secret")}},
		"leeway_seconds": 1,
	})
	os.WriteFile(policy, b, 0o600)
	os.WriteFile(filepath.Join(work, "secret"), []byte("s3cret\n"), 0o600)
	p := startServe(t, []string{"FOLIO_TEST_GATEWAY_SECRET=s3cret"}, "--root", root, "--http", fmt.Sprintf("127.0.0.1:%d", port), "--oauth", policy,
		"--upstreams", upstreams, "--schema-cache", filepath.Join(work, "cache.json"), "--tool-search", "off")

	// A token that will have expired once the client has waited.
	early := as.clientToken(t, "ci", resource, "folio:read")

	plan := filepath.Join(work, "plan.json")
	b, _ = json.Marshal(map[string]any{
		"url": p.endpoint, "user": "alice", "expire_after_ms": (ttl + 3) * 1000,
		"calls": []map[string]any{
			{"name": "read", "arguments": map[string]any{"path": "docs/a.md", "max_tokens": 2000}},
			{"name": "fake__echo", "arguments": map[string]any{"say": "hi"}},
			{"name": "docs__read", "arguments": map[string]any{"path": "b.md", "max_tokens": 500}},
		},
	})
	os.WriteFile(plan, b, 0o600)
	cmd := exec.Command(node, filepath.Join(dir, "client.mjs"), plan)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s\nauthorization server:\n%s\nfolio:\n%s", err, stderr.String(), as.log, p.stderr)
	}
	type call struct {
		OK    bool
		Error string
		Value struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	var run struct {
		Tools         []string
		Authorization map[string]string
		Before, After []call
		Refreshed     bool
		Saved         int
		Scope         string
	}
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("client.mjs printed %q: %v", out, err)
	}
	if !slices.Contains(run.Tools, "read") || !slices.Contains(run.Tools, "fake__echo") || !slices.Contains(run.Tools, "docs__read") {
		t.Errorf("tools/list: %v", run.Tools)
	}
	if a := run.Authorization; a["resource"] != resource || a["code_challenge_method"] != "S256" || !strings.Contains(a["scope"], "folio:read") {
		t.Errorf("the authorization request: %v", a)
	}
	for name, got := range map[string][]call{"before": run.Before, "after the token expired": run.After} {
		if len(got) != 3 || slices.ContainsFunc(got, func(c call) bool { return !c.OK || c.Value.IsError }) {
			t.Fatalf("%s: %+v", name, got)
		}
		if pg, err := pager.Decode([]byte(got[0].Value.Content[0].Text)); err != nil || pg.Content != text {
			t.Errorf("%s: read: %v %.200s", name, err, got[0].Value.Content[0].Text)
		}
		if echo := got[1].Value.Content[0].Text; !strings.Contains(echo, `"say":"hi"`) {
			t.Errorf("%s: the upstream tool: %s", name, echo)
		}
		if up := got[2].Value.Content[0].Text; !strings.Contains(up, "from the upstream folio") {
			t.Errorf("%s: the upstream folio's read: %s", name, up)
		}
	}
	if !run.Refreshed || run.Saved < 2 || !strings.Contains(as.log.String(), "grant.success refresh_token") {
		t.Errorf("the token was not refreshed: refreshed %v, saved %d\n%s", run.Refreshed, run.Saved, as.log)
	}
	if !strings.Contains(as.log.String(), "client_credentials.issued gateway") {
		t.Errorf("folio got no token of its own for the upstream:\n%s", as.log)
	}

	good := as.clientToken(t, "ci", resource, "folio:read")
	if res := post(t, p.endpoint, good); res.StatusCode != 200 {
		t.Errorf("a client credentials JWT: %d", res.StatusCode)
	}
	// The server's own tokens, and forgeries of them, that folio refuses.
	parts := strings.Split(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	json.Unmarshal(payload, &claims)
	stranger := oauthtest.NewSigner(t, "es1", jose.ES256)
	for name, token := range map[string]string{
		"issued for the upstream folio": as.clientToken(t, "ci", upResource, "folio:read"),
		"expired":                       early,
		"signed by an unknown key":      stranger.Mint(t, "at+jwt", claims),
		"alg none":                      base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt","kid":"es1"}`)) + "." + parts[1] + ".",
	} {
		res := post(t, p.endpoint, token)
		if challenge := res.Header.Get("WWW-Authenticate"); res.StatusCode != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
			t.Errorf("a token %s: %d %q", name, res.StatusCode, challenge)
		}
	}
	res := post(t, p.endpoint, as.clientToken(t, "ci", resource, "folio:tools"))
	if challenge := res.Header.Get("WWW-Authenticate"); res.StatusCode != 403 || !strings.Contains(challenge, `error="insufficient_scope", scope="folio:read"`) {
		t.Errorf("a token without folio:read: %d %q", res.StatusCode, challenge)
	}
	opaque := as.clientToken(t, "opaque", resource, "folio:read")
	if strings.Count(opaque, ".") == 2 {
		t.Fatalf("the opaque client's token is a JWT: %s", opaque)
	}
	if res := post(t, p.endpoint, opaque); res.StatusCode != 200 {
		t.Errorf("an opaque token, introspected: %d", res.StatusCode)
	}
	as.revoke(t, "opaque", opaque)
	res = post(t, p.endpoint, opaque)
	if challenge := res.Header.Get("WWW-Authenticate"); res.StatusCode != 401 || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("the opaque token once revoked: %d %q", res.StatusCode, challenge)
	}
}
