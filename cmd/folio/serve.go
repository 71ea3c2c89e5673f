package main

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/mcpserver"
	"github.com/folio-mcp/folio/oauth"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/telemetry"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/upstream"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve the files under --root to MCP clients, over stdio or Streamable HTTP",
		ArgsUsage: "[DIR…]",
		Description: `Without --http, speaks MCP over stdin and stdout (logs go to stderr) and the
caller is "local". With --http ADDR, serves Streamable HTTP at /mcp; callers
show a bearer token from --tokens, one --oauth's authorization servers issued
for folio, or, on a loopback address only, nothing.
Each DIR after the flags is one more root, after the --root ones (an MCP
bundle's list of folders reaches folio so). Relative paths in requests
resolve against the first root. The default deny
list (` + strings.Join(fsview.DefaultDeny(), " ") + `) always applies, at any
depth and in any case; --deny adds to it. list, grep and resources/list skip
what .gitignore, .ignore and .git/info/exclude exclude (nested files
included, as git and ripgrep read them); --no-ignore shows it, and a file is
read by its name either way. A root without its own llms.txt or llms-full.txt
offers them, made on request as folio llms-txt makes them (llms-full.txt bounded
at 8 MiB) from what the caller may see.

Exit codes: 2 a flag that cannot be used (a --root that is no directory among
them), 3 a --root that is not there, both before anything starts; 1 what fails
after (a tokens file missing, say), logged; 0 on SIGINT or SIGTERM.`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "root", EnvVars: []string{"FOLIO_ROOT"}, Usage: "a directory to serve (required; repeatable; the first is where relative paths resolve); absolute, not ~ nor /"},
			&cli.StringFlag{Name: "http", EnvVars: []string{"FOLIO_HTTP"}, Usage: "serve Streamable HTTP on this address (host:port) instead of stdio"},
			&cli.StringFlag{Name: "tokens", EnvVars: []string{"FOLIO_TOKENS"}, Usage: "bearer tokens file (see folio token add); read again within a second of a change"},
			&cli.StringFlag{Name: "oauth", EnvVars: []string{"FOLIO_OAUTH"}, Usage: "OAuth policy file: the authorization servers whose access tokens folio accepts, and what their scopes and groups give (see docs/oauth.md)"},
			&cli.BoolFlag{Name: "stateless", EnvVars: []string{"FOLIO_STATELESS"}, Usage: "HTTP without sessions, for replicas sharing --cursor-key-file behind a load balancer"},
			&cli.StringSliceFlag{Name: "deny", EnvVars: []string{"FOLIO_DENY"}, Usage: "hide files matching this glob at any depth, in any case; /GLOB from the root only (repeatable)"},
			noIgnoreFlag(),
			&cli.DurationFlag{Name: "grep-timeout", Value: mcpserver.DefaultGrepTimeout, EnvVars: []string{"FOLIO_GREP_TIMEOUT"}, Usage: "how long one grep may search; what it found by then is answered, marked truncated"},
			&cli.IntFlag{Name: "max-answer-bytes", Value: mcpserver.DefaultMaxAnswerBytes, EnvVars: []string{"FOLIO_MAX_ANSWER_BYTES"}, Usage: "bound on any answer's text before folding: line reads, grep and list stop short of it"},
			&cli.IntFlag{Name: "line-max-tokens", Value: reader.DefaultLineMaxTokens, EnvVars: []string{"FOLIO_LINE_MAX_TOKENS"}, Usage: "token cap of a line-mode read (at most 2000 lines, each cut at 2000 characters) and of resources/read"},
			&cli.StringFlag{Name: "page-format", Value: "json", EnvVars: []string{"FOLIO_PAGE_FORMAT"}, Usage: "format of pages a read does not choose: " + pager.FormatsHelp()},
			&cli.IntFlag{Name: "max-sessions", Value: mcpserver.DefaultMaxSessions, EnvVars: []string{"FOLIO_MAX_SESSIONS"}, Usage: "most HTTP sessions open at once"},
			&cli.IntFlag{Name: "max-sessions-per-subject", Value: mcpserver.DefaultMaxSessionsPerSubject, EnvVars: []string{"FOLIO_MAX_SESSIONS_PER_SUBJECT"}, Usage: "most HTTP sessions one subject has open at once"},
			&cli.Int64Flag{Name: "read-memory", Value: fsview.DefaultReadMemory, EnvVars: []string{"FOLIO_READ_MEMORY"}, Usage: "bytes of file text all reads, and of answers being written, may hold at once; a read or an answer waits for room"},
			&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: []string{"FOLIO_LOG_LEVEL"}, Usage: "debug, info, warn or error"},
			&cli.StringFlag{Name: "upstreams", EnvVars: []string{"FOLIO_UPSTREAMS"}, Usage: "an mcpServers JSON file: offer those servers' tools too, as NAME__tool (see folio upstreams)"},
			&cli.StringFlag{Name: "schema-cache", EnvVars: []string{"FOLIO_SCHEMA_CACHE"}, Usage: "the upstreams' schema cache (default one per --upstreams file under $XDG_CACHE_HOME/folio)"},
			&cli.BoolFlag{Name: "no-reference-args", EnvVars: []string{"FOLIO_NO_REFERENCE_ARGS"}, Usage: "advertise upstream tools' schemas as they are, without the X_uri arguments that take references"},
			&cli.StringFlag{Name: "tool-search", EnvVars: []string{"FOLIO_TOOL_SEARCH"}, Value: mcpserver.SearchAuto, Usage: "list upstream tools behind find_tools, describe_tools and call_tool: auto (when they cost more than --tool-search-threshold tokens), on or off"},
			&cli.IntFlag{Name: "tool-search-threshold", EnvVars: []string{"FOLIO_TOOL_SEARCH_THRESHOLD"}, Value: mcpserver.DefaultToolSearchThreshold, Usage: "tokens of upstream tools in tools/list past which --tool-search auto searches"},
			&cli.DurationFlag{Name: "upstream-timeout", Value: defaultUpstreamTimeout, EnvVars: []string{"FOLIO_UPSTREAM_TIMEOUT"}, Usage: "how long one upstream may take to start and list its tools"},
			&cli.StringFlag{Name: "upstream-start", Value: startOnDemand, EnvVars: []string{"FOLIO_UPSTREAM_START"}, Usage: "on-demand: an upstream whose tools the schema cache gives is started when a call needs it; eager: every upstream is started and its tools listed again after start-up (an entry's startOnDemand overrides)"},
			&cli.DurationFlag{Name: "upstream-idle-timeout", EnvVars: []string{"FOLIO_UPSTREAM_IDLE_TIMEOUT"}, Usage: "stop an upstream no call has used for this long, 0 never (an entry's idleTimeoutMs overrides)"},
			&cli.DurationFlag{Name: "upstream-backoff", Value: upstream.DefaultBackoff, EnvVars: []string{"FOLIO_UPSTREAM_BACKOFF"}, Usage: "how long an upstream that failed twice in a row is left before it is started again, doubled with each failure more up to --upstream-backoff-max"},
			&cli.DurationFlag{Name: "upstream-backoff-max", Value: upstream.DefaultBackoffMax, EnvVars: []string{"FOLIO_UPSTREAM_BACKOFF_MAX"}, Usage: "the longest an upstream that keeps failing is left alone"},
			&cli.StringFlag{Name: "admin", EnvVars: []string{"FOLIO_ADMIN"}, Usage: "serve /metrics (Prometheus), /healthz and /readyz on this address (host:port; loopback unless you mean it), apart from the MCP endpoint"},
			tokenizerFlag(),
			maxFileBytesFlag("refuse files larger than this (0: no cap)"),
		}, slices.Concat(cursorFlags(), foldFlags(), docsFlags(), callerFlags())...),
		Action: serveAction,
	}
}

// serveOptions are serve's flags, read and checked in one place: a flag
// that cannot be used is a usage error (exit 2), and a root that is not
// there not_found (exit 3), before anything starts; what fails after (a
// tokens file missing, say) is logged and exits 1.
type serveOptions struct {
	roots, deny                                                       []string
	http, tokens, oauth, upstreams, schemaCache, toolSearch           string
	stateless, noIgnore, noReferenceArgs                              bool
	grepTimeout, upstreamTimeout, cursorTTL                           time.Duration
	upstreamIdle, upstreamBackoff, upstreamBackoffMax                 time.Duration
	upstreamOnDemand                                                  bool
	admin                                                             string
	maxAnswerBytes, lineMaxTokens, maxSessions, maxSessionsPerSubject int
	toolSearchThreshold                                               int
	readMemory, maxFileBytes                                          int64
	pageFormat                                                        pager.Format
	logLevel                                                          slog.Level
	counter                                                           pager.Counter
	// addressWarning is what to log of serving HTTP without tokens.
	addressWarning string
	fold           foldOptions
	docs           docsOptions
	callers        callerOptions
}

// readServeOptions reads serve's flags and checks each, and how they go
// together.
func readServeOptions(c *cli.Context) (serveOptions, error) {
	o := newServeOptions(c)
	var adminErr error
	o.admin, adminErr = adminAddress(o.admin)
	for _, rule := range append(serveFlagRules(c, o, adminErr), o.callers.rules()...) {
		if rule.broken {
			return serveOptions{}, usageError(c, rule.msg)
		}
	}
	for i, root := range o.roots {
		if err := checkRoot(rootLabel(c, i, root), root); err != nil {
			return serveOptions{}, usageError(c, fmt.Sprintf("%v", err))
		}
	}
	if err := parseServeFlags(c, &o); err != nil {
		return serveOptions{}, err
	}
	for i, root := range o.roots {
		if err := rootThere(rootLabel(c, i, root), root); err != nil {
			return serveOptions{}, err
		}
	}
	return o, nil
}

// newServeOptions reads serve's flags that are used as they are given,
// before any check.
func newServeOptions(c *cli.Context) serveOptions {
	return serveOptions{
		roots: slices.Concat(c.StringSlice("root"), c.Args().Slice()), deny: c.StringSlice("deny"),
		http: c.String("http"), tokens: c.String("tokens"), oauth: c.String("oauth"), upstreams: c.String("upstreams"), schemaCache: c.String("schema-cache"),
		stateless: c.Bool("stateless"), noIgnore: c.Bool("no-ignore"), noReferenceArgs: c.Bool("no-reference-args"),
		toolSearch: c.String("tool-search"), toolSearchThreshold: c.Int("tool-search-threshold"),
		grepTimeout: c.Duration("grep-timeout"), upstreamTimeout: c.Duration("upstream-timeout"), cursorTTL: c.Duration("cursor-ttl"),
		upstreamOnDemand: c.String("upstream-start") == startOnDemand, upstreamIdle: c.Duration("upstream-idle-timeout"),
		upstreamBackoff: c.Duration("upstream-backoff"), upstreamBackoffMax: c.Duration("upstream-backoff-max"), admin: c.String("admin"),
		maxAnswerBytes: c.Int("max-answer-bytes"), lineMaxTokens: c.Int("line-max-tokens"),
		maxSessions: c.Int("max-sessions"), maxSessionsPerSubject: c.Int("max-sessions-per-subject"),
		readMemory: c.Int64("read-memory"), maxFileBytes: c.Int64("max-file-bytes"),
		docs: readDocsOptions(c), callers: readCallerOptions(c),
	}
}

// flagRule is one check of a command's flags: when broken, the command
// stops with a usage error saying msg.
type flagRule struct {
	broken bool
	msg    string
}

// serveFlagRules are serve's checks of its flags, each alone and how they
// go together, in the order they are reported: the first broken one is.
// adminErr is what adminAddress made of --admin.
func serveFlagRules(c *cli.Context, o serveOptions, adminErr error) []flagRule {
	start := c.String("upstream-start")
	return []flagRule{
		// What to serve, and over what.
		{len(o.roots) == 0, "serve needs --root DIR, the directory to serve (repeatable; or DIR… after the flags)"},
		{o.stateless && o.http == "", "--stateless needs --http"},
		{c.IsSet("tokens") && o.http == "", "--tokens applies to --http: over stdio the caller is the local user"},
		{c.IsSet("oauth") && o.http == "", "--oauth applies to --http: over stdio the caller is the local user"},
		// A flag set to nothing (FOLIO_OAUTH= in a template whose value
		// went missing) would serve HTTP to anyone.
		{c.IsSet("tokens") && o.tokens == "" || c.IsSet("oauth") && o.oauth == "", "--tokens and --oauth need a file: given empty, nobody would be asked for a token"},
		// Bounds.
		{o.grepTimeout <= 0 || o.maxAnswerBytes < 1024 || o.maxSessions < 1 || o.maxSessionsPerSubject < 1,
			"--grep-timeout, --max-sessions and --max-sessions-per-subject must be positive, and --max-answer-bytes at least 1024"},
		{o.lineMaxTokens < 1 || o.lineMaxTokens > reader.MaxTokensLimit,
			fmt.Sprintf("--line-max-tokens must be between 1 and %d", reader.MaxTokensLimit)},
		// Upstreams, and the admin listener.
		{c.IsSet("upstreams") && o.upstreamTimeout <= 0, "--upstream-timeout must be positive"},
		{adminErr != nil, fmt.Sprintf("--admin: %v", adminErr)},
		{start != startOnDemand && start != startEager, fmt.Sprintf("--upstream-start is %s or %s", startOnDemand, startEager)},
		{o.upstreamIdle < 0 || o.upstreamBackoff <= 0 || o.upstreamBackoffMax < o.upstreamBackoff,
			"--upstream-idle-timeout must not be negative, --upstream-backoff must be positive, and --upstream-backoff-max at least --upstream-backoff"},
		{o.toolSearch != mcpserver.SearchAuto && o.toolSearch != mcpserver.SearchOn && o.toolSearch != mcpserver.SearchOff,
			"--tool-search is auto, on or off"},
		{o.toolSearchThreshold < 1, "--tool-search-threshold must be positive"},
		{o.docs.maxBytes < 0, "--docs-max-bytes must not be negative"},
	}
}

// parseServeFlags parses into o the flags whose values need a parser
// (--log-level, --page-format, --tokenizer, --http's address and the fold
// flags); a value that does not parse is a usage error.
func parseServeFlags(c *cli.Context, o *serveOptions) error {
	usage := func(format string, args ...any) error {
		return usageError(c, fmt.Sprintf(format, args...))
	}
	var err error
	if err := o.logLevel.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return usage("--log-level: %v", err)
	}
	if o.pageFormat, err = pager.ParseFormat(c.String("page-format")); err != nil {
		return usage("--page-format: %v", err)
	}
	if o.counter, err = pagerCounter(c); err != nil {
		return usage("--tokenizer: %v", err)
	}
	if o.http != "" {
		if o.addressWarning, err = mcpserver.CheckAddress(o.http, o.tokens != "" || o.oauth != ""); err != nil {
			return usage("%v", err)
		}
	}
	if o.fold, err = readFoldOptions(c); err != nil {
		return usage("%v", err)
	}
	return nil
}

// checkRoot refuses a root that serves what nobody meant: a "~" no shell
// expanded (a client's configuration has none), a relative root resolved
// from / (where desktop clients start their servers), and / itself. label
// is the root as the error names it ("--root docs").
func checkRoot(label, root string) error {
	if root == "~" || strings.HasPrefix(root, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "/home/you"
		}
		return fmt.Errorf("%s: \"~\" is not expanded here (a shell expands it; a client's configuration does not): give the absolute path, %s", label, filepath.Join(home, strings.TrimPrefix(root, "~")))
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("%s: %v", label, err)
	}
	switch wd, _ := os.Getwd(); {
	case !filepath.IsAbs(root) && wd == "/":
		return fmt.Errorf("%s is relative, and the working directory is / (desktop clients start servers there): give the absolute path of the directory to serve", label)
	case abs == "/":
		return fmt.Errorf("%s would serve the whole machine: give the directory of the project", label)
	}
	return nil
}

// rootLabel names serve's i-th root, root, in its errors: "--root DIR"
// for one given with the flag, "DIR" for one given after the flags.
func rootLabel(c *cli.Context, i int, root string) string {
	if i < len(c.StringSlice("root")) {
		return "--root " + root
	}
	return root
}

// rootThere refuses a root that is not there (not_found) or is not a
// directory (invalid_argument), before anything starts; label names it.
func rootThere(label, root string) error {
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return toolerr.Wrap(toolerr.CodeNotFound, err, "%s: no such directory", label)
	case err != nil:
		return toolerr.Invalid("%s: %v", label, err)
	case !info.IsDir():
		return toolerr.Invalid("%s is a file, not a directory: give the directory to serve (%s holds it)", label, filepath.Dir(localName(root)))
	}
	return nil
}

// serveGCPercent is the garbage collector's target in folio serve when
// GOGC does not set one. Each call through the gateway leaves about half a
// megabyte of garbage (go-sdk decodes every message with a fresh 32 KiB
// buffer), so at Go's default of 100 the collector ran every few calls and
// took a third of a call's time; the heap may now grow to five times what
// is live before it runs.
const serveGCPercent = 400

func serveAction(c *cli.Context) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	o, err := readServeOptions(c)
	if err != nil {
		return fail(c, false, err)
	}
	log := slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: o.logLevel}))
	if err := serve(c.Context, o, log); err != nil {
		log.Error("serve stopped", "err", err)
		return exitError{exitFailure}
	}
	return nil
}

// serve serves MCP as o says until ctx ends or a signal comes: it opens
// what the server works with (the tokens file, the roots, the cursor
// keys, the fold store, telemetry and the upstreams), builds the server,
// and runs it.
func serve(ctx context.Context, o serveOptions, log *slog.Logger) error {
	tokenFile, err := openTokens(o, log)
	if err != nil {
		return err
	}
	verifier, err := openOAuth(o)
	if err != nil {
		return err
	}
	auditLog, err := openAudit(o.callers)
	if err != nil {
		return err
	}
	defer auditLog.Close()
	if o.addressWarning != "" {
		log.Warn(o.addressWarning)
	}
	fs, err := openRoots(o)
	if err != nil {
		return err
	}
	defer fs.Close()
	ring, err := loadKeyRing(o.fold.cursorKeyFile)
	if err != nil {
		return err
	}
	folder, closeStore, err := openFolder(ctx, o.fold, log, o.counter)
	if err != nil {
		return err
	}
	defer closeStore()
	tel, err := startTelemetry(ctx, o, log)
	if err != nil {
		return err
	}
	defer flushTelemetry(tel, log)
	instruments, err := tel.Instruments()
	if err != nil {
		return err
	}
	gateway, err := startGateway(ctx, o, log, instruments)
	if err != nil {
		return err
	}
	closeGateway := func() {}
	if gateway != nil {
		closeGateway = sync.OnceFunc(gateway.Close)
		defer closeGateway()
	}
	srv, err := mcpserver.New(mcpserver.Config{
		Fold:                  folder,
		Docs:                  o.docs.tree(fs),
		Gateway:               gateway,
		NoReferenceArgs:       o.noReferenceArgs,
		ToolSearch:            o.toolSearch,
		ToolSearchThreshold:   o.toolSearchThreshold,
		FS:                    fs,
		Cursors:               cursor.NewCodec(ring, o.cursorTTL, nil),
		Counter:               o.counter,
		Tokens:                tokenFile,
		OAuth:                 verifier,
		Audit:                 auditLog,
		RatePerSubject:        o.callers.ratePerSubject,
		ConcurrentPerSubject:  o.callers.concurrentPerSubject,
		Stateless:             o.stateless,
		GrepTimeout:           o.grepTimeout,
		MaxSessions:           o.maxSessions,
		MaxSessionsPerSubject: o.maxSessionsPerSubject,
		MaxAnswerBytes:        o.maxAnswerBytes,
		LineMaxTokens:         o.lineMaxTokens,
		PageFormat:            o.pageFormat,
		Telemetry:             instruments,
		Version:               folioVersion(),
		Logger:                log,
	})
	if err != nil {
		return err
	}
	return runServer(ctx, o, log, srv, tel.Metrics, gateway, closeGateway, fs)
}

// openRoots opens the roots o serves, under the default deny list and
// --deny's globs, and the bounds of --max-file-bytes and --read-memory.
func openRoots(o serveOptions) (*fsview.FS, error) {
	return fsview.Open(o.roots, fsview.Options{
		Deny:         append(fsview.DefaultDeny(), o.deny...),
		MaxFileBytes: o.maxFileBytes,
		ReadMemory:   o.readMemory,
		NoIgnore:     o.noIgnore,
	})
}

// openTokens opens the bearer tokens file of --tokens when serving HTTP;
// nil otherwise.
func openTokens(o serveOptions, log *slog.Logger) (*tokens.File, error) {
	if o.tokens == "" || o.http == "" {
		return nil, nil
	}
	return tokens.Open(o.tokens, log, nil)
}

// openOAuth reads the OAuth policy of --oauth when serving HTTP, and
// makes its verifier; nil otherwise.
func openOAuth(o serveOptions) (*oauth.Verifier, error) {
	if o.oauth == "" || o.http == "" {
		return nil, nil
	}
	p, err := oauth.Load(o.oauth)
	if err != nil {
		return nil, fmt.Errorf("--oauth: %w", err)
	}
	return oauth.New(p, nil, nil), nil
}

// loadKeyRing loads the cursor signing keys of the key file flag names
// (--cursor-key-file, "" for the default), creating it when missing.
func loadKeyRing(flag string) (*cursor.Ring, error) {
	keyPath, err := keyFilePath(flag)
	if err != nil {
		return nil, err
	}
	return cursor.LoadKeyFile(keyPath)
}

// startTelemetry sets up what the environment asks of OpenTelemetry, and
// Prometheus metrics for the admin listener (--admin); what OpenTelemetry
// cannot do (an export that fails) goes to folio's log, not to the log
// package's.
func startTelemetry(ctx context.Context, o serveOptions, log *slog.Logger) (*telemetry.Telemetry, error) {
	tel, err := telemetry.New(ctx, telemetry.Options{Prometheus: o.admin != "", Version: folioVersion(), Getenv: os.Getenv})
	if err != nil {
		return nil, err
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("telemetry", "err", err) }))
	return tel, nil
}

// flushTelemetry sends what telemetry still buffers, or gives it up after
// shutdownGrace.
func flushTelemetry(tel *telemetry.Telemetry, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		log.Warn("telemetry not flushed", "err", err)
	}
}

// runServer runs srv over stdio, or HTTP (--http), until ctx ends or
// SIGINT or SIGTERM comes, with what runs beside it: the watch of the
// roots, the admin listener (--admin, serving metrics) and, with a
// gateway, the reloads of the upstreams file. The upstreams end first
// (closeGateway), then what runs beside, each waited for. fs is what is
// served, whose roots the log names.
func runServer(ctx context.Context, o serveOptions, log *slog.Logger, srv *mcpserver.Server, metrics http.Handler,
	gateway *upstream.Gateway, closeGateway func(), fs *fsview.FS) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	watching := make(chan error, 1)
	go func() { watching <- srv.Watch(ctx) }()
	defer func() { stop(); <-watching }()
	if o.admin != "" {
		admin, err := serveAdmin(ctx, log, o.admin, srv.AdminHandler(metrics))
		if err != nil {
			return err
		}
		defer admin()
	}
	if gateway != nil {
		reloading := make(chan struct{})
		go func() { watchUpstreams(ctx, log, o.upstreams, gateway); close(reloading) }()
		defer func() { stop(); <-reloading }()
	}
	// The upstreams end first, while a signal is still folio's to handle:
	// a client that sends SIGTERM as it leaves must not end folio before
	// folio ends them.
	defer closeGateway()
	log.Info("serving", "roots", fs.Roots(), "tokenizer", o.counter.Name(), "transport", map[bool]string{true: "http", false: "stdio"}[o.http != ""])
	if o.http == "" {
		return srv.RunStdio(ctx)
	}
	return serveHTTP(ctx, log, o.http, srv.Handler(), srv.CloseSessions)
}

// serveAdmin serves the admin listener on addr until the returned function
// is called (or ctx ends).
func serveAdmin(ctx context.Context, log *slog.Logger, addr string, h http.Handler) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--admin: %w", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn), BaseContext: func(net.Listener) context.Context { return ctx }}
	go hs.Serve(ln)
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Warn("the admin listener is not on loopback: /readyz and /metrics answer anyone who reaches them, upstream names and errors included", "addr", ln.Addr().String())
	}
	log.Info("admin listening", "addr", ln.Addr().String(), "metrics", fmt.Sprintf("http://%s/metrics", ln.Addr()))
	return func() { hs.Close() }, nil
}

// shutdownGrace is how long requests in flight get to finish on a signal.
const shutdownGrace = 5 * time.Second

// serveHTTP serves h on addr until ctx ends, then ends the sessions with
// closeSessions and gives requests in flight shutdownGrace to finish.
func serveHTTP(ctx context.Context, log *slog.Logger, addr string, h http.Handler, closeSessions func()) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// No ReadTimeout or WriteTimeout: event streams last. The handler
	// bounds each request body's time itself.
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "endpoint", fmt.Sprintf("http://%s/mcp", ln.Addr()))
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	closeSessions()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		// Streams still open after the grace period are cut.
		hs.Close()
	}
	return nil
}

// adminAddress is the address the admin listener takes: a port alone
// (":9464" or "9464") is on loopback, for the admin endpoints answer
// anyone who reaches them.
func adminAddress(addr string) (string, error) {
	if addr == "" {
		return "", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "", addr
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%q is not host:port, nor a port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
