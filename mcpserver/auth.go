package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/oauth"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/tokens"
)

// authenticates reports whether every call must show a bearer token.
func (s *Server) authenticates() bool { return s.cfg.Tokens != nil || s.cfg.OAuth != nil }

// caller is who is calling and the file view they get.
type caller struct {
	subject string
	// tokenHash is the SHA-256 of the caller's token, empty without one
	// (with OAuth, its grant's key).
	tokenHash string
	// clientID is the OAuth client the caller's token was issued to.
	clientID string
	// grant names the token and its allow list as they are now, so that a
	// handle made under them is not read under others.
	grant string
	// tools is the token's tools list: the tools it may use, all when
	// empty (see tokens.Identity.Tools).
	tools []string
	// sessionless: the request is of the 2026-07-28 era over HTTP, which
	// has no sessions (see owner).
	sessionless bool
	fs          *fsview.FS
	reader      *reader.Reader
}

// mayUse reports whether the caller may use the tool name.
func (c *caller) mayUse(name string) bool {
	return tokens.Identity{Tools: c.tools}.MayUse(name)
}

// identityKey is where verifyToken leaves the token's hash (an OAuth
// grant's key) in the token info, so that each request can look it up
// again; clientKey, the OAuth client it was issued to.
const (
	identityKey = "folio/token_sha256"
	clientKey   = "folio/client_id"
)

// verifyToken is the bearer-token check of every HTTP request: a token
// of the tokens file, else one OAuth verifies. A static token holds the
// scope OAuth requires: its file says what it may do.
func (s *Server) verifyToken(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if s.cfg.Tokens != nil {
		hash := tokens.Hash(token)
		if id, ok := s.cfg.Tokens.Lookup(hash); ok {
			ti := &auth.TokenInfo{UserID: id.Subject, Extra: map[string]any{identityKey: hash}}
			if s.cfg.OAuth != nil {
				ti.Scopes = []string{s.cfg.OAuth.RequiredScope()}
			}
			return ti, nil
		}
	}
	if s.cfg.OAuth == nil {
		return nil, fmt.Errorf("%w: unknown or revoked token", auth.ErrInvalidToken)
	}
	g, err := s.cfg.OAuth.Verify(ctx, token)
	if errors.Is(err, oauth.ErrUnavailable) {
		// Not the token's fault: the client keeps it (a 500, not a 401),
		// and what failed is logged, not told.
		s.log.Warn("a token could not be checked", "err", err)
		return nil, errors.New("the token could not be checked: its authorization server did not answer; try again")
	}
	if err != nil {
		// "invalid token: why", said once.
		return nil, fmt.Errorf("%w%s", auth.ErrInvalidToken, strings.TrimPrefix(err.Error(), oauth.ErrInvalidToken.Error()))
	}
	return &auth.TokenInfo{UserID: g.Subject, Scopes: g.Scopes, Expiration: g.Expiry, Extra: map[string]any{identityKey: g.Key, clientKey: g.ClientID}}, nil
}

// errUnauthorized: a call with no identity where one is required.
var errUnauthorized = errors.New("no valid bearer token: the token was revoked or the call carries none")

// resolveCaller returns the caller of a request, under the tokens file as
// it is now (see caller).
func (s *Server) resolveCaller(ctx context.Context, extra *mcp.RequestExtra) (*caller, error) {
	sessionless := extra != nil && extra.Header != nil && extra.Header.Get(protocolVersionHeader) >= sessionlessProtocol
	if !s.authenticates() {
		view := s.cfg.FS.WithMaker(maker{s: s})
		return &caller{subject: reader.LocalSubject, sessionless: sessionless, fs: view, reader: reader.New(view, s.cfg.Cursors, s.cfg.Counter)}, nil
	}
	ti := tokenInfo(ctx, extra)
	if ti == nil {
		return nil, errUnauthorized
	}
	hash, _ := ti.Extra[identityKey].(string)
	id, view, err := s.identity(hash)
	if err != nil {
		return nil, err
	}
	if id.Subject != ti.UserID {
		return nil, errUnauthorized
	}
	clientID, _ := ti.Extra[clientKey].(string)
	g := grant(hash, id.Allow)
	view = view.WithMaker(maker{s: s, grant: g})
	return &caller{subject: id.Subject, tokenHash: hash, clientID: clientID, grant: g, tools: id.Tools, sessionless: sessionless,
		fs: view, reader: reader.New(view, s.cfg.Cursors, s.cfg.Counter)}, nil
}

// grant is the SHA-256 of a token's hash and its allow list.
func grant(tokenHash string, allow []string) string {
	h := sha256.New()
	h.Write([]byte(tokenHash))
	for _, g := range allow {
		h.Write([]byte{0})
		h.Write([]byte(g))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// identity looks a token's hash up in the tokens file as it is now (or
// an OAuth grant's key among the grants of unexpired tokens) and returns
// its identity and the file view of its allow list.
func (s *Server) identity(hash string) (tokens.Identity, *fsview.FS, error) {
	id, ok := s.lookup(hash)
	if !ok {
		return tokens.Identity{}, nil, errUnauthorized
	}
	if len(id.Allow) == 0 {
		return id, s.cfg.FS, nil
	}
	view, err := s.cfg.FS.Restrict(id.Allow)
	return id, view, err
}

// lookup is the identity of a token's hash in the tokens file, or of an
// OAuth grant's key: what the grant's files and scopes give, with folio's
// own tools.
func (s *Server) lookup(key string) (tokens.Identity, bool) {
	if !strings.HasPrefix(key, "oauth:") {
		if s.cfg.Tokens == nil {
			return tokens.Identity{}, false
		}
		return s.cfg.Tokens.Lookup(key)
	}
	if s.cfg.OAuth == nil {
		return tokens.Identity{}, false
	}
	g, ok := s.cfg.OAuth.Lookup(key)
	if !ok {
		return tokens.Identity{}, false
	}
	id := tokens.Identity{Subject: g.Subject, Allow: g.Allow, Tools: slices.Clone(g.Tools)}
	for _, t := range tools {
		if !t.meta {
			id.Tools = append(id.Tools, t.name)
		}
	}
	return id, true
}

// requireToken refuses a request without a valid bearer token (see
// verifyToken) with 401, when the server has tokens (a tokens file or
// OAuth); a token may have no expiry, and with OAuth its expiry is judged
// with the policy's leeway.
func (s *Server) requireToken(next http.Handler) http.Handler {
	if !s.authenticates() {
		return next
	}
	opts := &auth.RequireBearerTokenOptions{AllowMissingExpiration: true}
	if s.cfg.OAuth != nil {
		opts.ClockSkew = s.cfg.OAuth.Leeway()
	}
	return auth.RequireBearerToken(s.verifyToken, opts)(next)
}

// challenge makes the WWW-Authenticate of a 401 what RFC 6750 and the
// MCP authorization specification ask: an error code when a bearer token
// was shown, and with OAuth the scopes to ask for and where folio's
// resource metadata is. (A 403 for a missing scope is requireScope's.)
func (s *Server) challenge(next http.Handler) http.Handler {
	if !s.authenticates() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, _, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		next.ServeHTTP(challenger{ResponseWriter: w, s: s, shown: strings.EqualFold(scheme, "bearer")}, r)
	})
}

type challenger struct {
	http.ResponseWriter
	s     *Server
	shown bool
}

func (c challenger) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		params := []string{`realm="folio"`}
		if c.shown {
			params = append(params, `error="invalid_token"`)
		}
		if o := c.s.cfg.OAuth; o != nil {
			params = append(params, fmt.Sprintf("scope=%q", strings.Join(o.Scopes(), " ")), fmt.Sprintf("resource_metadata=%q", o.MetadataURL()))
		}
		c.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	c.ResponseWriter.WriteHeader(code)
}

// requireScope answers a request whose token lacks the scope OAuth
// requires 403, with the challenge that names it (RFC 6750's
// insufficient_scope). A static token holds it (see verifyToken).
func (s *Server) requireScope(next http.Handler) http.Handler {
	o := s.cfg.OAuth
	if o == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && !slices.Contains(ti.Scopes, o.RequiredScope()) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="folio", error="insufficient_scope", scope=%q, resource_metadata=%q`, o.RequiredScope(), o.MetadataURL()))
			http.Error(w, "insufficient scope: the token needs "+o.RequiredScope(), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Unwrap lets http.ResponseController reach the connection.
func (c challenger) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// tokenInfo is the bearer token's info of a request, if it carries one.
func tokenInfo(ctx context.Context, extra *mcp.RequestExtra) *auth.TokenInfo {
	if extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo
	}
	return auth.TokenInfoFromContext(ctx)
}
