package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/reader"
)

// sessionTimeout closes an HTTP session idle this long.
const sessionTimeout = 30 * time.Minute

// Handler serves Streamable HTTP at /mcp, through the stages of httpStack
// in their order, and with OAuth its protected resource metadata.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	if s.cfg.OAuth != nil {
		mux.Handle(s.cfg.OAuth.MetadataPath(), auth.ProtectedResourceMetadataHandler(s.cfg.OAuth.Metadata()))
	}
	mux.Handle("/mcp", wrapHTTP(s.eras(), s.httpStack()))
	return mux
}

// httpStack is every HTTP request's way to /mcp, outermost stage first:
// each stage sees what the ones before it let through, and the answers of
// the ones after it; the innermost handler is go-sdk's (see eras), and the
// MCP stages each message then passes are pipeline's. This is the one
// place the order is set. A stage that this server's configuration does
// not need (no tokens, no OAuth, no rate limits) passes requests on
// untouched. (cmd/folio's http.Server bounds the headers' time and an
// idle connection's, before any of this.)
func (s *Server) httpStack() []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{
		// A POST's body read whole, within the body timeout and
		// MaxBodyBytes, and the request kept while it is handled (for
		// followClient, holdAnswers and limitRate): outermost, so that
		// a client that trickles its body or sends too much is cut off
		// before anything else is done for it.
		s.guardHTTP,
		// Cross-origin protection against browsers: a browser's
		// cross-origin request of an unsafe method (a POST, a DELETE)
		// is refused with 403, before any token is looked at. (go-sdk's
		// handler adds its own DNS-rebinding protection for a server on
		// loopback, innermost.)
		http.NewCrossOriginProtection().Handler,
		// A 401's WWW-Authenticate as RFC 6750 and MCP ask: around
		// the token check, whose 401s it rewrites. Only with tokens.
		s.challenge,
		// The bearer token of every request, checked by verifyToken
		// (the tokens file, then OAuth): nothing past here runs for a
		// request without a valid one. Only with tokens.
		s.requireToken,
		// The scope OAuth requires, 403 without it: after the token
		// check, which gives the token's scopes. Only with OAuth.
		s.requireScope,
		// Each subject's rate and concurrent requests, 429 past them:
		// after the token check, so that the subject is known.
		s.limitRate,
		// The caps on sessions, in all and per subject, 429 past them:
		// innermost, so that only a request every stage above let
		// through counts as a session opened.
		s.limitSessions,
	}
}

// wrapHTTP is h inside stages, the first outermost.
func wrapHTTP(h http.Handler, stages []func(http.Handler) http.Handler) http.Handler {
	for i := len(stages) - 1; i >= 0; i-- {
		h = stages[i](h)
	}
	return h
}

// eras serves both protocol eras at one endpoint, over one server: a
// request of 2026-07-28 or later (its Mcp-Protocol-Version header says so,
// as that era requires) goes to go-sdk's stateless handler, the only one
// that speaks it; any other to a handler with sessions (or without, with
// Config.Stateless), which has what older clients have: sessions,
// subscriptions, a tool list frozen for the session. Each request keeps
// nothing of the other handler's.
func (s *Server) eras() http.Handler {
	server := func(*http.Request) *mcp.Server { return s.mcp }
	sessionless := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{Stateless: true, Logger: s.sdkLog})
	older := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Stateless:      s.cfg.Stateless,
		Logger:         s.sdkLog,
		SessionTimeout: sessionTimeout,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(protocolVersionHeader) >= sessionlessProtocol {
			sessionless.ServeHTTP(w, r)
			return
		}
		older.ServeHTTP(w, r)
	})
}

// CheckAddress says whether serving HTTP on addr is allowed: without
// tokens (a tokens file or OAuth), only on a loopback address, and then
// with a warning to log.
func CheckAddress(addr string, withTokens bool) (warning string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %q: %w", addr, err)
	}
	if withTokens {
		return "", nil
	}
	if !isLoopback(host) {
		return "", fmt.Errorf("--http %s: without --tokens or --oauth, folio serves only on a loopback address (127.0.0.1, [::1], localhost); give --tokens FILE or --oauth FILE to serve on %q", addr, host)
	}
	return "serving HTTP without --tokens or --oauth: any local process can read the served files as subject " + reader.LocalSubject, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
