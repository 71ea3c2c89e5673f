package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is an upstream tool as folio offers it.
type Tool struct {
	// Name is the name folio offers it by (see ToolName).
	Name string
	// Upstream is its server's name, and Original its own name there.
	Upstream, Original string
	// Def is the tool as the upstream advertised it, under Name.
	Def *mcp.Tool
}

// Catalog is a fixed list of upstream tools: what one session is offered
// for its whole life.
type Catalog struct {
	Tools  []Tool
	byName map[string]Tool
}

// Lookup finds a tool of the catalog by the name folio offers it by.
func (c *Catalog) Lookup(name string) (Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// newCatalog offers the tools of each entry, upstreams in name order. An
// upstream whose tools cannot all be named is left out, with the error.
func newCatalog(servers []Server, entries map[string]Entry) (*Catalog, []error) {
	c := &Catalog{byName: map[string]Tool{}}
	var errs []error
	for _, s := range servers {
		e, ok := entries[s.Name]
		if !ok {
			continue
		}
		own := make([]string, len(e.Tools))
		for i, t := range e.Tools {
			own[i] = t.Name
		}
		names, err := ToolNames(s.Name, own)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for offered, original := range names {
			i := slices.IndexFunc(e.Tools, func(t *mcp.Tool) bool { return t.Name == original })
			def := *e.Tools[i]
			def.Name = offered
			t := Tool{Name: offered, Upstream: s.Name, Original: original, Def: &def}
			c.Tools = append(c.Tools, t)
			c.byName[offered] = t
		}
	}
	slices.SortFunc(c.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return c, errs
}

// Gateway is folio's hold on its upstreams: the catalog of their tools,
// and one connection to each, made on first use and shared by the calls
// and the discoveries. It is safe for concurrent use.
type Gateway struct {
	log     *slog.Logger
	opt     Options
	servers []Server
	links   map[string]*link
	ready   chan struct{} // closed once the start-up discoveries are done

	mu       sync.Mutex
	entries  map[string]Entry // what each upstream advertised last
	catalog  *Catalog
	watchers []func(*Catalog)

	progress sync.Map // the token a call was forwarded with → its onProgress
	calls    atomic.Int64
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
}

// Start holds servers. An upstream with a fresh entry in the cache is
// offered at once, before any process or connection exists; the others
// are discovered now, all at once, each within the timeout, and one that
// fails is logged and left out. Catalog waits for those discoveries.
// Then every upstream is discovered again in the background (connecting
// the cached ones), and the catalog follows what they advertise (see
// Watch). The cache is rewritten for the next start after each round; its
// entries of unconfigured upstreams are dropped. ctx ends the gateway's
// background work; Close ends its connections. Cached tools whose names
// cannot be made valid, or collide, are an error naming them; found later,
// they leave their upstream out, logged.
func Start(ctx context.Context, servers []Server, opt Options) (*Gateway, error) {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Gateway{log: opt.Logger, opt: opt, servers: servers, links: map[string]*link{}, ready: make(chan struct{}), entries: map[string]Entry{}}
	for _, s := range servers {
		g.links[s.Name] = &link{server: s, client: mcp.NewClient(&mcp.Implementation{Name: "folio", Version: opt.Version}, &mcp.ClientOptions{
			ProgressNotificationHandler: g.forwardProgress,
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				go g.rediscover(ctx, []Server{s})
			},
		})}
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
	if _, errs := newCatalog(servers, g.entries); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	go func() {
		g.rediscover(ctx, missing)
		close(g.ready)
		g.rediscover(ctx, servers)
	}()
	return g, nil
}

// rediscover discovers servers, all at once, through their links; takes
// what they advertise into the catalog (telling the watchers when it
// changed), and writes the cache.
func (g *Gateway) rediscover(ctx context.Context, servers []Server) {
	found := make([]Entry, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { found[i], errs[i] = g.discover(ctx, s) })
	}
	wg.Wait()
	g.mu.Lock()
	for i, s := range servers {
		if errs[i] != nil {
			if _, had := g.entries[s.Name]; !had {
				g.log.Warn("upstream left out: it could not be discovered", "upstream", s.Name, "err", errs[i])
			} else {
				g.log.Warn("upstream not refreshed: its last tools stand", "upstream", s.Name, "err", errs[i])
			}
			continue
		}
		g.entries[s.Name] = found[i]
	}
	catalog, nameErrs := newCatalog(g.servers, g.entries)
	changed := g.catalog == nil || !catalog.same(g.catalog)
	g.catalog = catalog
	watchers := slices.Clone(g.watchers)
	g.mu.Unlock()
	for _, err := range nameErrs {
		g.log.Error("upstream left out", "err", err)
	}
	if changed {
		for _, w := range watchers {
			w(catalog)
		}
	}
	err := UpdateCache(g.opt.CachePath, func(c *Cache) {
		for i, s := range servers {
			if errs[i] == nil {
				c.Upstreams[s.Name] = found[i]
			}
		}
		c.Keep(g.servers)
	})
	if err != nil {
		g.log.Warn("the schema cache could not be written", "err", err)
	}
}

// discover lists the tools of s through its link (connecting it when it
// is not), within the timeout.
func (g *Gateway) discover(ctx context.Context, s Server) (Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opt.Timeout)
	defer cancel()
	cs, err := g.links[s.Name].session(g.opt.Timeout)
	if err != nil {
		return Entry{}, err
	}
	return entryOf(ctx, s, cs)
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

// Call calls tool on its upstream with params (its name replaced by the
// upstream's own), connecting on first use. Cancelling ctx cancels the
// call upstream; the upstream's progress notifications for params'
// progress token come back through onProgress, under that token.
func (g *Gateway) Call(ctx context.Context, tool Tool, params *mcp.CallToolParams, onProgress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	l := g.links[tool.Upstream]
	if l == nil {
		return nil, fmt.Errorf("%w: %s is not configured", ErrConnect, tool.Upstream)
	}
	cs, err := l.session(g.opt.Timeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	p := *params
	p.Name = tool.Original
	p.Meta = nil
	if token := params.GetProgressToken(); token != nil && onProgress != nil {
		// The upstream sees a token of folio's own, unique among all the
		// calls in flight, which its notifications are routed back by.
		mine := fmt.Sprintf("folio-%d", g.calls.Add(1))
		g.progress.Store(mine, progressRoute{token, onProgress})
		defer g.progress.Delete(mine)
		p.SetProgressToken(mine)
	}
	res, err := cs.CallTool(ctx, &p)
	if err != nil && ctx.Err() == nil {
		if rpc := (*jsonrpc.Error)(nil); !errors.As(err, &rpc) {
			// Not the upstream's answer: the connection failed. The
			// next call makes another.
			l.drop(cs)
			return nil, fmt.Errorf("%w: %s: %v", ErrConnect, tool.Upstream, err)
		}
	}
	return res, err
}

// progressRoute is where an upstream's progress for a forwarded call goes.
type progressRoute struct {
	token any
	send  func(*mcp.ProgressNotificationParams)
}

// forwardProgress passes an upstream's progress notification back to the
// call it is about, under the caller's own token.
func (g *Gateway) forwardProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	v, ok := g.progress.Load(fmt.Sprint(req.Params.ProgressToken))
	if !ok {
		return
	}
	r := v.(progressRoute)
	p := *req.Params
	p.ProgressToken = r.token
	r.send(&p)
}

// Close ends every connection.
func (g *Gateway) Close() {
	for _, l := range g.links {
		l.close()
	}
}

// link is the one connection to an upstream.
type link struct {
	server Server
	client *mcp.Client

	mu     sync.Mutex // held while connecting: one connection, however many calls
	cs     *mcp.ClientSession
	cancel context.CancelFunc
	closed bool
}

// session returns the live connection, connecting when there is none (or
// the last one died), within timeout.
func (l *link) session(timeout time.Duration) (*mcp.ClientSession, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("the gateway is closed")
	}
	if l.cs != nil {
		return l.cs, nil
	}
	// The context bounds the process's life; the timer only its start.
	life, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(timeout, cancel)
	cs, err := Connect(life, l.server, l.client)
	if !timer.Stop() && err == nil {
		cs.Close()
		err = fmt.Errorf("upstream %s did not start within %v", l.server.Name, timeout)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	l.cs, l.cancel = cs, cancel
	go func() {
		cs.Wait()
		l.mu.Lock()
		if l.cs == cs {
			l.cs = nil
		}
		l.mu.Unlock()
		cancel()
	}()
	return cs, nil
}

// drop forgets cs, when it is still the link's, and ends it.
func (l *link) drop(cs *mcp.ClientSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cs == cs {
		l.cs = nil
		l.cancel()
	}
	cs.Close()
}

func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.cs != nil {
		l.cs.Close()
		l.cancel()
		l.cs = nil
	}
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
		case !sameTool(old.Def, t.Def):
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

// sameTool reports whether two tool definitions are the same, as JSON.
func sameTool(a, b *mcp.Tool) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
