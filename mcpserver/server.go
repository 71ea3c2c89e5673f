package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/audit"
	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/stdio"
	"github.com/folio-mcp/folio/oauth"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/telemetry"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/upstream"
)

// Config is what a Server serves and how.
type Config struct {
	// FS is the view of the served roots, with its deny list and size cap.
	FS *fsview.FS
	// Cursors signs and verifies cursors.
	Cursors *cursor.Codec
	// Counter counts the tokens of pages.
	Counter pager.Counter
	// Tokens, when set, makes every call show a bearer token from it (so
	// the server is for HTTP only) and see only the token's allow list.
	Tokens *tokens.File
	// OAuth, when set, makes every call show a bearer token that it
	// verifies or that is in Tokens (see package oauth): folio is then an
	// OAuth resource server, and serves its protected resource metadata.
	OAuth *oauth.Verifier
	// Gateway, when set, offers the tools of upstream MCP servers beside
	// folio's own, and calls them.
	Gateway *upstream.Gateway
	// ToolSearch is the gateway's search mode: SearchAuto (the default),
	// SearchOn or SearchOff; ToolSearchThreshold the tokens of upstream
	// tools past which auto searches (DefaultToolSearchThreshold when 0).
	ToolSearch          string
	ToolSearchThreshold int
	// NoReferenceArgs keeps upstream tools' schemas as they are, without
	// the X_uri arguments that invite references.
	NoReferenceArgs bool
	// Fold, when set, folds the large answers of list and grep into
	// handles and serves result_query (see package fold).
	Fold *fold.Folder
	// Docs, when set, is the docs index that search_docs answers from;
	// Watch builds it and keeps it current.
	Docs *docsearch.Tree
	// Stateless serves HTTP without sessions, for replicas behind a load
	// balancer; there are no subscriptions then.
	Stateless bool
	// MaxAnswerBytes bounds the text of any answer before folding: line
	// reads, grep and list stop short of it (DefaultMaxAnswerBytes when 0).
	MaxAnswerBytes int
	// LineMaxTokens caps the tokens of a line-mode read and of
	// resources/read (reader.DefaultLineMaxTokens when 0).
	LineMaxTokens int
	// PageFormat is the format of pages a read does not choose.
	PageFormat pager.Format
	// BodyTimeout bounds the time an HTTP client has to send a request's
	// body (DefaultBodyTimeout when 0).
	BodyTimeout time.Duration
	// GrepTimeout bounds one grep's search; what it found by then is
	// answered, marked truncated (DefaultGrepTimeout when 0).
	GrepTimeout time.Duration
	// MaxSessions and MaxSessionsPerSubject cap the HTTP sessions open at
	// once, in all and for one subject (DefaultMaxSessions and
	// DefaultMaxSessionsPerSubject when 0).
	MaxSessions, MaxSessionsPerSubject int
	// RatePerSubject and ConcurrentPerSubject bound each subject's HTTP
	// requests: how many a second, and how many at once (0: no bound).
	RatePerSubject       float64
	ConcurrentPerSubject int
	// Audit, when set, gets one record of each tool call (see
	// auditCalls).
	Audit *audit.Log
	// Telemetry, when set, makes a span and records the duration of
	// each request, and folio's own metrics (see observe).
	Telemetry *telemetry.Instruments
	// Version is reported to clients.
	Version string
	Logger  *slog.Logger
}

// Defaults of Config.
const (
	DefaultMaxAnswerBytes = 8 << 20
	DefaultGrepTimeout    = 10 * time.Second
)

// Server is folio's MCP server. It is safe for concurrent use.
type Server struct {
	cfg Config
	log *slog.Logger
	// sdkLog is the log go-sdk writes to (see quieter).
	sdkLog *slog.Logger
	mcp    *mcp.Server
	// impl is the server's name and version, as go-sdk gives them.
	impl *mcp.Implementation

	// sessions holds what folio keeps of each session.
	sessions *sessionTable
	// limits bound each subject's HTTP requests; nil for no bound.
	limits *subjectLimits
	// relist is the first tool registered with go-sdk, and its handler
	// (see toolListChanged).
	relist struct {
		tool    *mcp.Tool
		handler mcp.ToolHandler
	}
	// requests holds each HTTP request in flight (an *inflight), by the
	// key guardHTTP gave it.
	requests sync.Map
	// changes counts the batches of file changes notified; failLogged is
	// the last one whose failed delivery was logged.
	changes, failLogged atomic.Int64
	// listChange is what the latest list_changed notification is about.
	listChange atomic.Pointer[listChange]
	// catalogs holds what folio derives from each catalog of upstream
	// tools in use (see catalogState).
	catalogs catalogStates
	// typed are the results withResultType starts from.
	typed *typedResults
	// counts are folio's own metrics, nil without them.
	counts *counts
	// ids are the ids of the requests wired connections read (see
	// wired).
	ids requestIDs
	// made caches the llms.txt and llms-full.txt made for the roots.
	made madeFiles
}

// New builds the server with its tools and resources.
func New(cfg Config) (*Server, error) {
	if cfg.FS == nil || cfg.Cursors == nil || cfg.Counter == nil {
		return nil, errors.New("mcpserver: FS, Cursors and Counter are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxAnswerBytes <= 0 {
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if cfg.LineMaxTokens <= 0 {
		cfg.LineMaxTokens = reader.DefaultLineMaxTokens
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.GrepTimeout <= 0 {
		cfg.GrepTimeout = DefaultGrepTimeout
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxSessionsPerSubject <= 0 {
		cfg.MaxSessionsPerSubject = DefaultMaxSessionsPerSubject
	}
	if cfg.ToolSearchThreshold <= 0 {
		cfg.ToolSearchThreshold = DefaultToolSearchThreshold
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sdkLog: slog.New(quieter{cfg.Logger.Handler()}), sessions: newSessionTable()}
	if cfg.RatePerSubject > 0 || cfg.ConcurrentPerSubject > 0 {
		s.limits = newSubjectLimits(cfg.RatePerSubject, cfg.ConcurrentPerSubject)
	}
	var err error
	if s.typed, err = newTypedResults(); err != nil {
		return nil, err
	}
	references := ""
	if cfg.Gateway != nil && !cfg.NoReferenceArgs {
		references = referenceInstructions
	}
	opts := &mcp.ServerOptions{
		Instructions: "folio serves the text files under its roots: " + strings.Join(cfg.FS.Roots(), ", ") +
			" (relative paths resolve against the first). Read them with the read tool: " +
			"pass max_tokens to get exact pages that fit your budget, and follow next_cursor to the end; " +
			"format \"text\" pages cost the fewest tokens (1.01x the file in pages of 2000, where JSON costs 1.22x)." + references,
		Logger:       s.sdkLog,
		PageSize:     resourcePageSize,
		SetCacheable: s.cacheHint,
	}
	opts.CompletionHandler = s.complete
	opts.Capabilities = &mcp.ServerCapabilities{
		// The 2025-11-25 era's drift warnings; discoverNoLogging leaves
		// it out for the newer era.
		//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
		Logging: &mcp.LoggingCapabilities{},
		// The prompts are fixed: their list never changes.
		Prompts: &mcp.PromptCapabilities{},
	}
	if !cfg.Stateless {
		opts.SubscribeHandler = s.subscribe
		opts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	s.impl = &mcp.Implementation{Name: "folio", Version: cfg.Version}
	s.mcp = mcp.NewServer(s.impl, opts)
	s.addTools()
	s.addResources()
	s.addPrompts()
	if err := s.addMetrics(); err != nil {
		return nil, fmt.Errorf("mcpserver: metrics: %w", err)
	}
	s.mcp.AddReceivingMiddleware(s.pipeline()...)
	if cfg.Gateway != nil {
		cfg.Gateway.Watch(s.catalogChanged)
	}
	s.mcp.AddSendingMiddleware(s.guardNotifications)
	return s, nil
}

// RunStdio serves one client over stdin and stdout until it leaves or ctx
// ends; an ended ctx is a normal stop, not an error. The caller is
// reader.LocalSubject.
func (s *Server) RunStdio(ctx context.Context) error {
	ss, err := s.mcp.Connect(ctx, s.wired(stdio.Server(os.Stdin, os.Stdout)), nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		ss.Close()
		<-ended
		s.log.Info("server stopped")
		return nil
	}
}

// Connect serves one client over t, as RunStdio does over stdio.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, s.wired(t), nil)
}

// startLogging starts the log level of every session of the session era
// at warning once it is initialized, as MCP lets a server choose what to
// send until the client sets a level: so a drift warning reaches a client
// that never sets one (the TypeScript client does not), over stdio and
// HTTP alike. A client that then sets a higher level hears none. (The
// 2026-07-28 era has no initialize, and hears no message it did not ask
// for with a log level.) It runs innermost, so that the level it sets
// passes no other stage.
func (s *Server) startLogging(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "initialize" || err != nil {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		//lint:ignore SA1019 MCP logging is how a session of the 2025-11-25 era hears folio's warnings
		if _, err := next(ctx, "logging/setLevel", &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{Session: ss, Params: &mcp.SetLoggingLevelParams{Level: "warning"}}); err != nil {
			s.log.Warn("session log level not started", "err", err)
		}
		return res, nil
	}
}

// CloseSessions ends every session, so that a shutdown need not wait for
// clients' open event streams.
func (s *Server) CloseSessions() {
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}

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

// authenticates reports whether every call must show a bearer token.
func (s *Server) authenticates() bool { return s.cfg.Tokens != nil || s.cfg.OAuth != nil }

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

// quieter is go-sdk's log: what it says at info (a session connected, a
// level set: three lines for each stateless request) it says at debug,
// where folio logs every request too; warnings and errors stand.
type quieter struct{ slog.Handler }

func (q quieter) Enabled(ctx context.Context, level slog.Level) bool {
	return q.Handler.Enabled(ctx, demoted(level))
}

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demoted(r.Level)
	return q.Handler.Handle(ctx, r)
}

func (q quieter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quieter{q.Handler.WithAttrs(attrs)}
}

func (q quieter) WithGroup(name string) slog.Handler { return quieter{q.Handler.WithGroup(name)} }

// demoted is info as debug, and any other level as it is.
func demoted(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

// logRequest logs a request from its record, with its duration; a
// failed one as a warning.
func (s *Server) logRequest(rec *callRecord) {
	attrs := []any{"method", rec.Method, "ms", ms(rec.Duration)}
	if rec.called != nil {
		attrs = append(attrs, "tool", rec.Tool)
	}
	if rec.Outcome == "tool_error" {
		attrs = append(attrs, "tool_error", true)
	}
	if rec.Err != nil {
		s.log.Warn("request failed", append(attrs, "err", rec.Err)...)
	} else {
		s.log.Debug("request", attrs...)
	}
}

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
		return &caller{subject: reader.LocalSubject, sessionless: sessionless, fs: s.cfg.FS, reader: reader.New(s.cfg.FS, s.cfg.Cursors, s.cfg.Counter)}, nil
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
	return &caller{subject: id.Subject, tokenHash: hash, clientID: clientID, grant: grant(hash, id.Allow), tools: id.Tools, sessionless: sessionless,
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

// challenge makes the WWW-Authenticate of a 401 what RFC 6750 and the
// MCP authorization specification ask: an error code when a bearer token
// was shown, and with OAuth the scopes to ask for and where folio's
// resource metadata is. (A 403 for a missing scope is requireScope's.)
func (s *Server) challenge(next http.Handler) http.Handler {
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
