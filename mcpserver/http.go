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

// Handler serves Streamable HTTP at /mcp: bearer tokens when the server has
// a tokens file or OAuth (and then its protected resource metadata), the
// SDK's DNS-rebinding protection for loopback, and cross-origin
// protection against browsers.
func (s *Server) Handler() http.Handler {
	var h http.Handler = s.limitRate(s.limitSessions(s.eras()))
	mux := http.NewServeMux()
	if s.authenticates() {
		opts := &auth.RequireBearerTokenOptions{AllowMissingExpiration: true}
		if s.cfg.OAuth != nil {
			opts.ClockSkew = s.cfg.OAuth.Leeway()
			mux.Handle(s.cfg.OAuth.MetadataPath(), auth.ProtectedResourceMetadataHandler(s.cfg.OAuth.Metadata()))
			h = s.requireScope(h)
		}
		h = s.challenge(auth.RequireBearerToken(s.verifyToken, opts)(h))
	}
	h = s.guardHTTP(http.NewCrossOriginProtection().Handler(h))
	mux.Handle("/mcp", h)
	return mux
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
