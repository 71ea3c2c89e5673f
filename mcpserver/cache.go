package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fold"
)

// How long a client may keep a result (the caching hints of SEP-2549,
// sent in both eras).
const (
	// A file's bytes, and which files there are, may change at any
	// moment: a listing or a file read is stale at once.
	fileTTL = 0
	// What folio itself offers (its tools, its resource templates, its
	// capabilities and instructions) is fixed for the process's life; an
	// hour bounds how long a client keeps it across a restart.
	fixedTTL = time.Hour
	// Upstream tools change when a rediscovery finds them changed; a
	// minute bounds how long a client keeps a list it was not told has
	// changed (less when an upstream's own ttlMs says less).
	catalogTTL = time.Minute
)

// cacheHint sets the caching hints of a result: its ttlMs (above), and its
// cacheScope, private whenever the answer depends on the caller (a tokens
// file's allow lists and tool lists, a handle's owner), public only when it
// cannot.
func (s *Server) cacheHint(ctx context.Context, req mcp.Request, c *mcp.Cacheable) {
	perCaller := s.authenticates()
	ttl, private := time.Duration(fileTTL), perCaller
	switch p := req.GetParams().(type) {
	case *mcp.ListToolsParams:
		ttl = fixedTTL
		if s.cfg.Gateway != nil {
			ttl = catalogTTL
			// An upstream's own ttlMs bounds how long its tools may be
			// kept, through folio too.
			if c, err := s.sessionCatalog(ctx, req.GetSession()); err == nil {
				if bound, ok := c.TTL(); ok {
					ttl = min(ttl, bound)
				}
			}
		}
	case *mcp.ListResourceTemplatesParams, *mcp.ListPromptsParams, *mcp.DiscoverParams:
		ttl, private = fixedTTL, false
	case *mcp.ReadResourceParams:
		if fold.IsReference(p.URI) && s.cfg.Fold != nil {
			// A folded answer does not change while it lives, and is
			// its owner's alone.
			ttl, private = s.cfg.Fold.TTL(), true
		}
	}
	c.TTLMs = int(ttl.Milliseconds())
	c.CacheScope = "public"
	if private {
		c.CacheScope = "private"
	}
}

// discoverNoLogging keeps what folio says it serves and what it does the
// same: server/discover, which the 2026-07-28 era asks, declares no
// logging, since folio sends that era no log message (its drift warnings
// are the older era's; see tellDrift).
func (s *Server) discoverNoLogging(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if d, ok := res.(*mcp.DiscoverResult); ok && err == nil && d.Capabilities != nil {
			caps := *d.Capabilities
			//lint:ignore SA1019 the deprecated logging capability is what is left out here
			caps.Logging = nil
			d.Capabilities = &caps
		}
		return res, err
	}
}
