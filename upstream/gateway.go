package upstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/jsonvalue"
	"github.com/folio-mcp/folio/telemetry"
)

// Tool is an upstream tool as folio offers it.
type Tool struct {
	// Name is the name folio offers it by (see ToolName).
	Name string
	// Upstream is its server's name, and Original its own name there.
	Upstream, Original string
	// Def is the tool as the upstream advertised it, under Name; its
	// schemas are json.RawMessage, as they came.
	Def *mcp.Tool
	// Raw is the upstream's definition as it came (under Original): the
	// fields mcp.Tool has no place for are in it.
	Raw json.RawMessage
}

// Catalog is a fixed list of upstream tools: what one session is offered
// for its whole life.
type Catalog struct {
	Tools  []Tool
	byName map[string]Tool
	// ttl is the least of the upstreams' own tools/list ttlMs, when
	// any gave one (hasTTL).
	ttl    time.Duration
	hasTTL bool
}

// maxListTTL bounds what an upstream's ttlMs is taken to say.
const maxListTTL = 24 * time.Hour

// TTL is the least time any of the catalog's upstreams said a client may
// keep its tool list (the ttlMs of its tools/list), when one said.
func (c *Catalog) TTL() (time.Duration, bool) { return c.ttl, c.hasTTL }

// Lookup finds a tool of the catalog by the name folio offers it by.
func (c *Catalog) Lookup(name string) (Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// Bounds on what folio offers of one upstream.
const (
	// MaxTools is the most tools of one upstream offered; the rest are
	// left out.
	MaxTools = 1000
	// MaxToolBytes bounds one tool's definition, as JSON.
	MaxToolBytes = 256 << 10
)

// newCatalog offers the tools of each entry, upstreams in name order. A
// tool that cannot be offered (see checkTool and ToolNames) is left out,
// and each such problem is among the errors of its upstream's name: one
// upstream's tools never keep another's from being offered.
func newCatalog(servers []Server, entries map[string]Entry) (*Catalog, map[string][]error) {
	c := &Catalog{byName: map[string]Tool{}}
	problems := map[string][]error{}
	for _, s := range servers {
		e, ok := entries[s.Name]
		if !ok {
			continue
		}
		if ms := e.ToolsTTLMs; ms != nil {
			// Bounded, as the upstream's word (or the cache file's) may
			// be anything: a day is longer than folio keeps a list.
			if ttl := time.Duration(min(max(*ms, 0), int(maxListTTL.Milliseconds()))) * time.Millisecond; !c.hasTTL || ttl < c.ttl {
				c.ttl, c.hasTTL = ttl, true
			}
		}
		var errs []error
		var own []string
		defs := map[string]*mcp.Tool{}
		raws := map[string]json.RawMessage{}
		for i, raw := range e.Tools {
			if i == MaxTools {
				errs = append(errs, fmt.Errorf("server %q advertises more than %d tools: only the first %d are offered", s.Name, MaxTools, MaxTools))
				break
			}
			t, err := parseTool(raw)
			if err != nil {
				errs = append(errs, fmt.Errorf("server %q: %w: it is not offered", s.Name, err))
				continue
			}
			if taskRequired(raw) || slices.Contains(e.TaskRequired, t.Name) {
				errs = append(errs, fmt.Errorf("server %q: tool %s can only be called as a task (execution.taskSupport \"required\"), which folio cannot send: it is not offered", s.Name, quote(t.Name)))
				continue
			}
			own = append(own, t.Name)
			defs[t.Name], raws[t.Name] = t, raw
		}
		names, nameErrs := ToolNames(s.Name, own)
		errs = append(errs, nameErrs...)
		for offered, original := range names {
			def := *defs[original]
			def.Name = offered
			t := Tool{Name: offered, Upstream: s.Name, Original: original, Def: &def, Raw: raws[original]}
			c.Tools = append(c.Tools, t)
			c.byName[offered] = t
		}
		if len(errs) > 0 {
			problems[s.Name] = errs
		}
	}
	slices.SortFunc(c.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return c, problems
}

// parseTool is the tool raw defines, its schemas as they came
// (json.RawMessage), or what keeps folio from offering it: a definition
// over MaxToolBytes or that is no JSON object, or an input schema (or
// output schema, when there is one) that is not a JSON object of type
// "object", as MCP requires and clients check.
func parseTool(raw json.RawMessage) (*mcp.Tool, error) {
	if len(raw) > MaxToolBytes {
		var head struct {
			Name string `json:"name"`
		}
		json.Unmarshal(raw, &head)
		return nil, fmt.Errorf("tool %s is defined in %d bytes, over %d", quote(head.Name), len(raw), MaxToolBytes)
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, errors.New("a tool is null")
	}
	raw = jsonvalue.Trim(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, errors.New("a tool is not defined by a JSON object")
	}
	members, err := jsonvalue.Elements(raw)
	if err != nil {
		return nil, errors.New("a tool is not defined by a JSON object")
	}
	// The fields by their exact keys, as go-sdk's clients read them
	// (encoding/json would take "InputSchema" too).
	var name string
	var in, out json.RawMessage
	for _, m := range members {
		switch m.Key {
		case "name":
			json.Unmarshal(raw[m.Start:m.End], &name)
		case "inputSchema":
			in = raw[m.Start:m.End]
		case "outputSchema":
			out = raw[m.Start:m.End]
		}
	}
	if bytes.Equal(out, []byte("null")) {
		out = nil
	}
	t := &mcp.Tool{InputSchema: new(json.RawMessage), OutputSchema: new(json.RawMessage)} // not decoded into maps
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("tool %s: its definition does not decode: %v", quote(name), err)
	}
	t.Name, t.InputSchema, t.OutputSchema = name, nil, nil
	for _, sc := range []struct {
		what   string
		schema json.RawMessage
		to     *any
	}{{"input schema", in, &t.InputSchema}, {"output schema", out, &t.OutputSchema}} {
		if len(sc.schema) == 0 && sc.what == "output schema" {
			continue
		}
		var head struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(sc.schema, &head) != nil || head.Type != "object" {
			return nil, fmt.Errorf("tool %s: its %s is not a JSON schema of type \"object\"", quote(t.Name), sc.what)
		}
		*sc.to = sc.schema
	}
	return t, nil
}

// Gateway is folio's hold on its upstreams: the catalog of their tools,
// and one connection to each, made on first use and shared by the calls
// and the discoveries. It is safe for concurrent use.
type Gateway struct {
	log   *slog.Logger
	opt   Options
	ready chan struct{} // closed once the start-up discoveries are done
	ctx   context.Context

	mu       sync.Mutex
	servers  []Server         // as configured now (see Reload)
	links    map[string]*link // by server name
	entries  map[string]Entry // what each upstream advertised last
	catalog  *Catalog
	watchers []func(*Catalog)
	closed   bool
	// stop ends the background discoveries, and work counts them: Close
	// does both.
	stop context.CancelFunc
	work sync.WaitGroup

	// cacheMu lets one writer at a time wait for the cache file's lock,
	// so that waiting holds no thread.
	cacheMu sync.Mutex
	// progress routes the progress of the calls in flight, by the token
	// each was forwarded with (see Call).
	progress sync.Map

	toldMu sync.Mutex
	told   map[string]map[string]bool // the problems logged, by upstream
}

// Options shape a Gateway.
type Options struct {
	// CachePath is the schema cache file.
	CachePath string
	// Timeout bounds the start and the tools/list of one upstream.
	Timeout time.Duration
	// Version is folio's, given to upstreams as the client's.
	Version string
	Logger  *slog.Logger
	// OnDemand leaves an upstream whose tools the cache gives unstarted
	// until a call needs it; otherwise every upstream is started and
	// discovered again after start-up. IdleTimeout stops an upstream no
	// call has used for that long (0: never). A server's own settings
	// override both (see Server).
	OnDemand    bool
	IdleTimeout time.Duration
	// Backoff is how long an upstream that failed twice in a row is left
	// alone before it is started again, doubled with each failure more up
	// to BackoffMax (defaults DefaultBackoff, DefaultBackoffMax).
	Backoff, BackoffMax time.Duration
	// Telemetry, when set, makes a client span of each call (its trace
	// context passed on in the call's _meta) and records its duration.
	Telemetry *telemetry.Instruments
}

// RefreshInterval is the least time between two discoveries of one
// upstream that its tools/list_changed notifications ask for.
const RefreshInterval = time.Second

// BackgroundDiscoveries is how many upstreams the discovery after
// start-up starts at once: starting them all would take the machine from
// the clients that the cached tools are for (twenty Node.js servers
// booting at once kept a tools/list waiting 400 ms here).
const BackgroundDiscoveries = 2

// Start holds servers. An upstream with a fresh entry in the cache is
// offered at once, before any process or connection exists; the others
// are discovered now, all at once, each within the timeout, and one that
// fails is logged and left out. Catalog waits for those discoveries.
// Then every upstream not started on demand is discovered again in the
// background, BackgroundDiscoveries at a time (connecting the cached
// ones), and the catalog follows what they advertise (see Watch); one
// started on demand is discovered again each time a call starts it, and
// one that a discovery alone started is stopped after it. The cache is
// rewritten for the next start after each round; its
// entries of unconfigured upstreams are dropped. ctx ends the gateway's
// background work; Close ends it too, and its connections. Servers whose
// names are
// ambiguous prefixes (see CheckNames) are an error; nothing an upstream
// advertises, now or in the cache, is: a tool that cannot be offered is
// left out, logged.
func Start(ctx context.Context, servers []Server, opt Options) (*Gateway, error) {
	if err := CheckNames(servers); err != nil {
		return nil, err
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Backoff <= 0 {
		opt.Backoff = DefaultBackoff
	}
	if opt.BackoffMax < opt.Backoff {
		opt.BackoffMax = max(opt.Backoff, DefaultBackoffMax)
	}
	g := &Gateway{log: opt.Logger, opt: opt, servers: servers, links: map[string]*link{}, ready: make(chan struct{}), entries: map[string]Entry{}}
	ctx, g.stop = context.WithCancel(ctx)
	g.ctx = ctx
	for _, s := range servers {
		g.links[s.Name] = g.newLink(s)
	}
	cache, err := ReadCache(opt.CachePath)
	if err != nil {
		g.log.Warn(err.Error())
	}
	var missing []Server
	for _, s := range servers {
		if e, ok := cache.Lookup(s); ok {
			g.entries[s.Name] = e
		} else {
			missing = append(missing, s)
		}
	}
	_, problems := newCatalog(servers, g.entries)
	g.logProblems(problems, servers)
	g.work.Go(func() {
		if len(missing) > 0 {
			g.rediscover(ctx, missing, len(missing))
		} else {
			g.mu.Lock()
			g.catalog, _ = newCatalog(servers, g.entries)
			g.mu.Unlock()
		}
		close(g.ready)
		var eager []Server
		for _, s := range servers {
			if l := g.link(s.Name); l != nil && !l.onDemandNow() {
				eager = append(eager, s)
			}
		}
		if len(eager) > 0 {
			g.rediscover(ctx, eager, BackgroundDiscoveries)
		}
	})
	return g, nil
}

// newLink is the link to s, not connected.
func (g *Gateway) newLink(s Server) *link {
	l := &link{server: s, fp: s.Fingerprint(), log: g.log, watch: &watch{progress: g.sawProgress}, timeout: g.opt.Timeout, backoff: g.opt.Backoff, backoffMax: g.opt.BackoffMax}
	l.client = mcp.NewClient(&mcp.Implementation{Name: "folio", Version: g.opt.Version}, &mcp.ClientOptions{
		ProgressNotificationHandler: g.forwardProgress,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			g.refresh(g.ctx, l)
		},
		// An upstream's input requests (SEP-2322) are its client's
		// to answer: Call hands them back, and the client's retry
		// comes through Call again.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	// A call that starts it finds out whether its tools changed while it
	// was stopped.
	l.startedForCall = func() { g.refresh(g.ctx, l) }
	l.settle(s, g.opt)
	return l
}

// link is the link to the upstream named, nil when none is configured.
func (g *Gateway) link(name string) *link {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.links[name]
}

// logProblems logs what keeps the tools of servers from being offered,
// each problem once for as long as it lasts, however often the servers
// are discovered.
func (g *Gateway) logProblems(problems map[string][]error, servers []Server) {
	g.toldMu.Lock()
	defer g.toldMu.Unlock()
	if g.told == nil {
		g.told = map[string]map[string]bool{}
	}
	for _, s := range servers {
		now := map[string]bool{}
		for _, err := range problems[s.Name] {
			msg := err.Error()
			if !g.told[s.Name][msg] {
				g.log.Warn("upstream tool left out", "upstream", s.Name, "err", msg)
			}
			now[msg] = true
		}
		g.told[s.Name] = now
	}
}

// refresh discovers the upstream of l again, as its tools/list_changed
// asks: however often it is asked, at most one discovery of the upstream
// runs and one waits, and they start at least RefreshInterval apart.
func (g *Gateway) refresh(ctx context.Context, l *link) {
	l.refreshMu.Lock()
	defer l.refreshMu.Unlock()
	if l.refreshing {
		l.again = true
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	l.refreshing = true
	g.work.Go(func() {
		for {
			started := time.Now()
			g.rediscover(ctx, []Server{l.server}, 1)
			l.refreshMu.Lock()
			if !l.again || ctx.Err() != nil {
				l.refreshing, l.again = false, false
				l.refreshMu.Unlock()
				return
			}
			l.again = false
			l.refreshMu.Unlock()
			select {
			case <-time.After(time.Until(started.Add(RefreshInterval))):
			case <-ctx.Done():
			}
		}
	})
}

// rediscover discovers servers, atOnce at a time, through their links;
// takes what they advertise into the catalog (telling the watchers when it
// changed), and writes the cache.
func (g *Gateway) rediscover(ctx context.Context, servers []Server, atOnce int) {
	found := make([]Entry, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	turns := make(chan struct{}, atOnce)
	for i, s := range servers {
		wg.Go(func() {
			turns <- struct{}{}
			defer func() { <-turns }()
			found[i], errs[i] = g.discover(ctx, s)
		})
	}
	wg.Wait()
	g.mu.Lock()
	var discovered []Server
	for i, s := range servers {
		if cur := g.links[s.Name]; cur == nil || cur.fp != s.Fingerprint() {
			// Removed or changed while it was being discovered: what
			// it said is of a server folio no longer has.
			errs[i] = fmt.Errorf("upstream %s was reconfigured while it was discovered", s.Name)
			continue
		}
		if errs[i] != nil {
			if g.closed || ctx.Err() != nil {
				// Cut short by folio's end: nothing to tell.
				continue
			}
			if _, had := g.entries[s.Name]; !had {
				g.log.Warn("upstream left out: it could not be discovered", "upstream", s.Name, "err", errs[i])
			} else {
				g.log.Warn("upstream not refreshed: its last tools stand", "upstream", s.Name, "err", errs[i])
			}
			continue
		}
		g.entries[s.Name] = found[i]
		discovered = append(discovered, s)
	}
	configured := g.servers
	g.mu.Unlock()
	g.recatalog(discovered)
	g.cacheMu.Lock()
	defer g.cacheMu.Unlock()
	if err := storeFound(g.opt.CachePath, configured, servers, found, errs); err != nil {
		g.log.Warn("the schema cache could not be written", "err", err)
	}
}

// recatalog makes the catalog again from the entries, telling the
// watchers when it changed, and logs the problems of the tools of
// discovered.
func (g *Gateway) recatalog(discovered []Server) {
	g.mu.Lock()
	catalog, problems := newCatalog(g.servers, g.entries)
	changed := g.catalog == nil || !catalog.same(g.catalog)
	if changed {
		// An unchanged catalog stays the one catalog, its tools the
		// same values, so that what is derived from them stays too.
		g.catalog = catalog
	}
	catalog = g.catalog
	watchers := slices.Clone(g.watchers)
	g.mu.Unlock()
	g.logProblems(problems, discovered)
	if changed {
		for _, w := range watchers {
			w(catalog)
		}
	}
}

// discover lists the tools of s through its link (connecting it when it
// is not), within the timeout. An upstream started on demand that the
// discovery alone started is stopped after it.
func (g *Gateway) discover(ctx context.Context, s Server) (Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opt.Timeout)
	defer cancel()
	l := g.link(s.Name)
	if l == nil || l.fp != s.Fingerprint() {
		return Entry{}, fmt.Errorf("upstream %s was reconfigured", s.Name)
	}
	wasRunning := l.running()
	l.acquire()
	defer func() { l.release(!wasRunning && l.onDemandNow()) }()
	cs, err := l.session(ctx, false)
	if err != nil {
		return Entry{}, err
	}
	e, err := entryOf(ctx, s, cs, l.watch)
	if err == nil {
		l.succeeded(cs)
	}
	return e, err
}

// UpstreamOf is the upstream whose prefix the tool name carries (see
// ToolName), whether or not it offers such a tool.
func (g *Gateway) UpstreamOf(name string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.servers {
		if strings.HasPrefix(name, s.Name+Separator) {
			return s.Name, true
		}
	}
	return "", false
}

// AlwaysListed reports whether the tool's upstream marks it to be listed
// even in search mode (alwaysListed).
func (g *Gateway) AlwaysListed(t Tool) bool {
	l := g.link(t.Upstream)
	return l != nil && l.listedNow(t.Original)
}

// Watch has fn called with the new catalog each time it changes after
// start-up. A session's tools are its own to keep: this is for telling it.
func (g *Gateway) Watch(fn func(*Catalog)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.watchers = append(g.watchers, fn)
}

// Catalog is the current catalog, once the start-up discoveries are done
// (or ctx ends).
func (g *Gateway) Catalog(ctx context.Context) (*Catalog, error) {
	select {
	case <-g.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.catalog, nil
}

// ErrConnect is the error of a call whose upstream could not be reached.
var ErrConnect = errors.New("upstream unreachable")

// Round is what a client's retry of a call carries back to the upstream
// that answered it with input requests (input_required, SEP-2322): the
// client's responses, and the upstream's requestState unchanged.
type Round struct {
	InputResponses mcp.InputResponseMap
	RequestState   string
}

// Call calls tool on its upstream with args, connecting on first use.
// Cancelling ctx cancels the call upstream. When token is a progress
// token (a string or a number, as the caller sent it), the upstream is
// given one of folio's own, random, and the progress it notifies under
// that token, on this call's connection while the call runs, comes back
// through onProgress under token. An answer that asks for input
// (input_required) comes back as it is, for the client to answer; the
// client's retry carries round to the same upstream. size is the bytes of
// the answer's result as the upstream sent it.
func (g *Gateway) Call(ctx context.Context, tool Tool, args json.RawMessage, round Round, token any, onProgress func(*mcp.ProgressNotificationParams)) (res *mcp.CallToolResult, size int, err error) {
	l := g.link(tool.Upstream)
	if l == nil {
		return nil, 0, fmt.Errorf("%w: %s is not configured", ErrConnect, tool.Upstream)
	}
	l.acquire()
	defer l.release(false)
	cs, err := l.session(ctx, true)
	if unavailable := (*UnavailableError)(nil); errors.As(err, &unavailable) {
		return nil, 0, err
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	p := &mcp.CallToolParams{Name: tool.Original, Arguments: args, InputResponses: round.InputResponses, RequestState: round.RequestState}
	var route *progressRoute
	if isProgressToken(token) && onProgress != nil {
		raw := make([]byte, 16)
		rand.Read(raw)
		mine := progressPrefix + base64.RawURLEncoding.EncodeToString(raw)
		route = &progressRoute{from: cs, token: token, send: onProgress, moved: make(chan struct{}, 1)}
		g.progress.Store(mine, route)
		defer g.progress.Delete(mine)
		p.SetProgressToken(mine)
	}
	var span *telemetry.Span
	if g.opt.Telemetry != nil {
		ctx, span = g.startSpan(ctx, l, cs, p)
	}
	answered := new(atomic.Int64)
	res, err = cs.CallTool(context.WithValue(ctx, answerSizeKey{}, answered), p)
	// An answer that did not come is given up, for the connection to
	// forget (see watchedConn).
	answered.CompareAndSwap(0, -1)
	span.End(ctx, err == nil && res != nil && res.IsError, err)
	if route != nil {
		route.finish(ctx)
	}
	if err != nil && ctx.Err() == nil {
		if !upstreamsAnswer(err) {
			// Not the upstream's answer: the connection failed. The
			// next call makes another.
			l.drop(cs, err)
			return nil, 0, fmt.Errorf("%w: %s: %v", ErrConnect, tool.Upstream, err)
		}
	}
	if ctx.Err() == nil {
		l.succeeded(cs)
	}
	return res, int(max(answered.Load(), 0)), err
}

// codeRejected is the code of go-sdk's jsonrpc2.ErrRejected ("rejected by
// transport"), which its streamable HTTP client wraps around a request
// that failed on the way (the server gone, an exchange cut short, a
// status without a JSON-RPC error), so that go-sdk keeps the session.
const codeRejected = -32005

// transientStatuses are the HTTP statuses go-sdk's streamable client
// rejects a request with as passing (its isTransientHTTPStatus), each
// written last in the rejection: the server is there and said so.
var transientStatuses = []string{
	http.StatusText(http.StatusTooManyRequests),
	http.StatusText(http.StatusInternalServerError),
	http.StatusText(http.StatusBadGateway),
	http.StatusText(http.StatusServiceUnavailable),
	http.StatusText(http.StatusGatewayTimeout),
}

// upstreamsAnswer reports whether err, a call's, is the upstream's own
// answer, not a failure of the connection: a JSON-RPC error that is not
// go-sdk's rejection by the transport (which, when the upstream did answer
// with an error, wraps that error first), or a rejection for a passing
// status (rate limited, busy: the session holds, and the upstream is not
// backed off for it).
func upstreamsAnswer(err error) bool {
	rpc := (*jsonrpc.Error)(nil)
	if !errors.As(err, &rpc) {
		return false
	}
	if rpc.Code != codeRejected {
		return true
	}
	var unreached *url.Error
	if errors.As(err, &unreached) {
		return false
	}
	for _, status := range transientStatuses {
		if strings.HasSuffix(err.Error(), ": "+status) {
			return true
		}
	}
	return false
}

// startSpan starts the client span of the call p to l's upstream on cs,
// and puts its trace context in p's _meta, beside the progress token.
func (g *Gateway) startSpan(ctx context.Context, l *link, cs *mcp.ClientSession, p *mcp.CallToolParams) (context.Context, *telemetry.Span) {
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	op := telemetry.Operation{Method: "tools/call", Tool: p.Name, Transport: telemetry.TransportTCP, Meta: p.Meta}
	if l.server.Transport == Stdio {
		op.Transport = telemetry.TransportPipe
	}
	if r := cs.InitializeResult(); r != nil {
		op.ProtocolVersion = r.ProtocolVersion
	}
	ctx, span := g.opt.Telemetry.StartClient(ctx, op)
	if len(p.Meta) == 0 {
		p.Meta = nil // metrics only: no trace context to pass on
	}
	return ctx, span
}

// isProgressToken reports whether t is a progress token as MCP has them:
// a string or a number (as JSON decodes it, or as Go has it).
func isProgressToken(t any) bool {
	switch t.(type) {
	case string, float64, json.Number, int, int32, int64:
		return true
	}
	return false
}

// progressPrefix starts the progress tokens folio gives upstreams.
const progressPrefix = "folio-"

// progressRoute is where an upstream's progress for a forwarded call goes:
// only what comes from the connection the call went out on counts.
//
// go-sdk hands an upstream's notifications to a goroutine of their own,
// in order, but the answer that follows them straight to the call: a
// notice sent before the answer may be handled after it. So the notices
// are counted as they are read off the wire (read), and again once handled
// (handled); when the answer comes, the call waits until every notice
// read before it is handled (see finish), and then passes on the last one
// held back by the rate bound, if any: the caller has every notice the
// upstream sent before its answer (up to the bound), the last one always,
// all in order and before the answer.
type progressRoute struct {
	from  *mcp.ClientSession
	token any
	send  func(*mcp.ProgressNotificationParams)
	moved chan struct{} // a notice was handled

	// read and handled count the notices: read as the reader of the
	// upstream's connection sees them (never waiting on a lock, so that
	// a slow client keeps no other call's answer from being read),
	// handled once go-sdk has handed them on.
	read, handled atomic.Int64

	mu        sync.Mutex
	allowance float64   // notices that may be passed on now (see pass)
	last      time.Time // when allowance was last reckoned
	finished  bool      // the one that says the work is done was passed on
	held      *mcp.ProgressNotificationParams
	closed    bool // the call has its answer: nothing more goes on
}

// Bounds on the progress passed back to a caller.
const (
	// progressBurst notices of one call are passed on at once, and one
	// more each progressInterval after (but the first that says the
	// work is done, and the last before the answer, which always are).
	progressBurst    = 16
	progressInterval = 20 * time.Millisecond
	// progressMessageLen bounds a progress message passed on.
	progressMessageLen = 1000
	// progressDrainWait bounds how long an answer waits for the
	// notices read before it to be handled.
	progressDrainWait = time.Second
)

// sawProgress counts a progress notification read off an upstream's wire,
// when it is for a call in flight.
func (g *Gateway) sawProgress(token string) {
	if v, ok := g.progress.Load(token); ok {
		v.(*progressRoute).read.Add(1)
	}
}

// forwardProgress passes an upstream's progress notification back to the
// call it is about, under the caller's own token: only for a call in
// flight, from the upstream that call went to; within the rate bound (a
// notice over it is held, and passed on if it is still the last when the
// answer comes); its message cut to progressMessageLen.
func (g *Gateway) forwardProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := g.progress.Load(token)
	if !ok {
		return
	}
	r := v.(*progressRoute)
	defer r.handle()
	if req.Session != r.from {
		return
	}
	p := *req.Params
	p.ProgressToken = r.token
	p.Meta = nil
	if m := []rune(p.Message); len(m) > progressMessageLen {
		p.Message = string(m[:progressMessageLen]) + "…"
	}
	r.mu.Lock()
	done := p.Total > 0 && p.Progress >= p.Total && !r.finished
	if r.closed || (!r.pass() && !done) {
		if !r.closed {
			r.held = &p
		}
		r.mu.Unlock()
		return
	}
	r.finished, r.held = r.finished || done, nil
	r.mu.Unlock()
	// Sent unlocked: go-sdk hands a connection's notices on one at a
	// time, so they go out in order.
	r.send(&p)
}

// pass reports whether a notice may be passed on now, and takes it from
// the allowance: progressBurst at first, one more each progressInterval,
// never more than progressBurst. r.mu is held.
func (r *progressRoute) pass() bool {
	now := time.Now()
	if r.last.IsZero() {
		r.allowance = progressBurst
	} else {
		r.allowance = min(progressBurst, r.allowance+float64(now.Sub(r.last))/float64(progressInterval))
	}
	r.last = now
	if r.allowance < 1 {
		return false
	}
	r.allowance--
	return true
}

// handle counts a notice handled.
func (r *progressRoute) handle() {
	r.handled.Add(1)
	select {
	case r.moved <- struct{}{}:
	default:
	}
}

// finish is called once the call has its answer: it waits until every
// notice read before the answer is handled (at most progressDrainWait,
// and no longer than ctx), passes on the one held back, if any, and
// closes the route.
func (r *progressRoute) finish(ctx context.Context) {
	wait := time.NewTimer(progressDrainWait)
	defer wait.Stop()
wait:
	for r.handled.Load() < r.read.Load() {
		select {
		case <-r.moved:
		case <-wait.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	r.mu.Lock()
	held := r.held
	r.held, r.closed = nil, true
	r.mu.Unlock()
	if held != nil && ctx.Err() == nil {
		r.send(held)
	}
}

// Close ends the discoveries running in the background and every
// connection, all at once, and waits for them: a stdio upstream's process
// group is gone when it returns (see TerminateWait).
func (g *Gateway) Close() {
	g.mu.Lock()
	g.closed = true
	links := g.allLinks()
	g.mu.Unlock()
	g.stop()
	closeAll(links)
	g.work.Wait()
}

// allLinks are the links, in the servers' order; g.mu is held.
func (g *Gateway) allLinks() []*link {
	out := make([]*link, 0, len(g.servers))
	for _, s := range g.servers {
		out = append(out, g.links[s.Name])
	}
	return out
}

// closeAll closes links all at once (each may wait for its process), and
// waits for them.
func closeAll(links []*link) {
	var wg sync.WaitGroup
	for _, l := range links {
		wg.Go(l.close)
	}
	wg.Wait()
}

// same reports whether c offers what o does: the same tools, as defined.
func (c *Catalog) same(o *Catalog) bool {
	return len(Diff(o, c)) == 0
}

// Change is how one upstream's tools differ between two catalogs.
type Change struct {
	Upstream                string
	Added, Removed, Changed []string // offered names
}

// Diff tells, upstream by upstream, how the tools of catalog now differ
// from those of was.
func Diff(was, now *Catalog) []Change {
	by := map[string]*Change{}
	change := func(upstream string) *Change {
		if by[upstream] == nil {
			by[upstream] = &Change{Upstream: upstream}
		}
		return by[upstream]
	}
	for _, t := range now.Tools {
		old, ok := was.Lookup(t.Name)
		switch {
		case !ok:
			c := change(t.Upstream)
			c.Added = append(c.Added, t.Name)
		case !bytes.Equal(old.Raw, t.Raw):
			c := change(t.Upstream)
			c.Changed = append(c.Changed, t.Name)
		}
	}
	for _, t := range was.Tools {
		if _, ok := now.Lookup(t.Name); !ok {
			c := change(t.Upstream)
			c.Removed = append(c.Removed, t.Name)
		}
	}
	var out []Change
	for _, c := range by {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Upstream, b.Upstream) })
	return out
}
