package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/folio-mcp/folio/internal/oauthtest"
	"github.com/folio-mcp/folio/oauth"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// FuzzToolArguments: any arguments decode or fail as invalid_argument, and
// a decoded mix, its former names renamed as a call's are, is either
// refused as invalid_argument or is one clear mode.
func FuzzToolArguments(f *testing.F) {
	f.Add([]byte(`{"path":"a.md","max_tokens":2000}`))
	f.Add([]byte(`{"paths":["a","b"],"offset":1,"limit":2}`))
	f.Add([]byte(`{"path":"a","cursor":"x","max_tokens":1e3}`))
	f.Add([]byte(`{"path":"a","recursive":true,"max_depth":2,"glob":"**/*.go"}`))
	// By the former names, uri and uris.
	f.Add([]byte(`{"uri":"a.md","max_tokens":2000}`))
	f.Add([]byte(`{"uris":["a","b"],"paths":["a","b"],"offset":1}`))
	f.Add([]byte(`{"uri":"a","path":"b"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a wire.ReadArgs
		e := decodeArgs(b, &a)
		if e == nil {
			e = a.Rename()
		}
		if e != nil {
			if e.Code != toolerr.CodeInvalidArgument {
				t.Fatalf("code %s", e.Code)
			}
		} else {
			paged, err := a.Paged()
			if err != nil {
				if toolerr.From(err).Code != toolerr.CodeInvalidArgument {
					t.Fatal(err)
				}
			} else if paged && (a.Offset != nil || a.Limit != nil || len(a.Paths) > 0 || *a.MaxTokens <= 0 || a.Path == "") {
				t.Fatalf("paged with line arguments: %s", b)
			}
		}
		var l wire.ListArgs
		if e := decodeArgs(b, &l); e != nil && e.Code != toolerr.CodeInvalidArgument {
			t.Fatalf("code %s", e.Code)
		}
	})
}

// FuzzAuthorization: whatever a request's Authorization header holds, the
// HTTP handler with OAuth and a tokens file answers it without a panic or
// a server error; a request it refuses gets 401 or 403 with a challenge
// that names folio's resource metadata; and it admits only the valid
// tokens (a static one, an OAuth JWT, read loosely as base64), not any
// other variation of them.
func FuzzAuthorization(f *testing.F) {
	e := newEnv(f)
	e.write(f, "a.md", "a\n")
	static := e.addToken(f, "ci")
	key := oauthtest.NewSigner(f, "k1", jose.ES256)
	is := oauthtest.New(f, key)
	const resource = "https://folio.test/mcp"
	p, err := oauthPolicy(f, resource, is.URL)
	if err != nil {
		f.Fatal(err)
	}
	s := e.server(f, serverOpts{})
	s.cfg.OAuth = oauth.New(p, nil, nil)
	h := s.Handler()
	jwt := key.Mint(f, "at+jwt", is.Claims(resource, time.Now()))
	admissible := func(token string) bool { return token == static || oauthtest.SameJWS(token, jwt) }
	for _, v := range []string{"", "Bearer", "Bearer " + static, "bearer " + jwt, "Bearer " + jwt + "x", "Basic YTpi", "Bearer  " + static, "Bearer a.b.c", "Bearer " + strings.Repeat("a", 20000)} {
		f.Add(v)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header["Authorization"] = []string{header}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch code := w.Code; {
		case code >= 500:
			t.Fatalf("%q: %d %s", header, code, w.Body)
		case code == 401 || code == 403:
			if !strings.Contains(w.Header().Get("WWW-Authenticate"), `resource_metadata="https://folio.test/.well-known/oauth-protected-resource/mcp"`) {
				t.Fatalf("%q: %d without the challenge: %q", header, code, w.Header().Get("WWW-Authenticate"))
			}
		case code == 200:
			fields := strings.Fields(header)
			if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") || !admissible(fields[1]) {
				t.Fatalf("%q admitted", header)
			}
		}
	})
}

// oauthPolicy is a checked policy of folio at resource, trusting issuer.
func oauthPolicy(t testing.TB, resource, issuer string) (*oauth.Policy, error) {
	path := filepath.Join(t.TempDir(), "oauth.json")
	b, _ := json.Marshal(map[string]any{"resource": resource, "authorization_servers": []map[string]any{{"issuer": issuer}}})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, err
	}
	return oauth.Load(path)
}
