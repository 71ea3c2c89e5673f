package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/telemetry"
)

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
