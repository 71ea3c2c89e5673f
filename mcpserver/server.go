package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
