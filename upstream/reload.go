package upstream

import (
	"fmt"
	"slices"
)

// Reloaded is what a Reload changed, by server name.
type Reloaded struct {
	Added, Removed, Changed []string
}

// Reload makes servers the gateway's upstreams, as an edited mcpServers
// file gives them: a server that is new is added (and discovered now when
// the cache has no entry for it, or it is not started on demand); one
// that is gone is stopped and its tools leave the catalog; one whose
// fingerprint changed is stopped and taken as new; one whose fingerprint
// did not keeps its process and connection, and takes its other settings
// (on demand, idle timeout, always listed). The watchers are told of the
// new catalog (see Watch) once the discoveries are done, and the cache
// keeps the entries of the servers configured now. Servers whose
// names make ambiguous prefixes are refused, and change nothing.
func (g *Gateway) Reload(servers []Server) (Reloaded, error) {
	var r Reloaded
	if err := CheckNames(servers); err != nil {
		return r, err
	}
	cache, err := ReadCache(g.opt.CachePath)
	if err != nil {
		g.log.Warn(err.Error())
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return r, fmt.Errorf("the gateway is closed")
	}
	links := map[string]*link{}
	var gone []*link
	var discover []Server
	for _, s := range servers {
		l, had := g.links[s.Name]
		switch {
		case had && l.fp == s.Fingerprint():
			l.settle(s, g.opt)
			links[s.Name] = l
			continue
		case had:
			r.Changed = append(r.Changed, s.Name)
			gone = append(gone, l)
			delete(g.entries, s.Name)
		default:
			r.Added = append(r.Added, s.Name)
		}
		nl := g.newLink(s)
		links[s.Name] = nl
		e, cached := cache.Lookup(s)
		if cached {
			g.entries[s.Name] = e
		}
		if !cached || !nl.onDemandNow() {
			discover = append(discover, s)
		}
	}
	for name, l := range g.links {
		if _, kept := links[name]; !kept {
			r.Removed = append(r.Removed, name)
			gone = append(gone, l)
			delete(g.entries, name)
		}
	}
	slices.Sort(r.Removed)
	g.servers, g.links = servers, links
	g.mu.Unlock()
	closeAll(gone)
	if len(discover) > 0 {
		g.rediscover(g.ctx, discover, len(discover))
		return r, nil
	}
	g.recatalog(nil)
	// The entries of the upstreams removed leave the cache.
	g.cacheMu.Lock()
	defer g.cacheMu.Unlock()
	if err := storeFound(g.opt.CachePath, servers, nil, nil, nil); err != nil {
		g.log.Warn("the schema cache could not be written", "err", err)
	}
	return r, nil
}

// Statuses are the upstreams' lives as they stand, by name.
func (g *Gateway) Statuses() []Status {
	g.mu.Lock()
	links := g.allLinks()
	tools := map[string]int{}
	if g.catalog != nil {
		for _, t := range g.catalog.Tools {
			tools[t.Upstream]++
		}
	}
	g.mu.Unlock()
	out := make([]Status, len(links))
	for i, l := range links {
		out[i] = l.status(tools[l.server.Name])
	}
	return out
}

// Ready reports whether the start-up discoveries are done: until then,
// the catalog is not known.
func (g *Gateway) Ready() bool {
	select {
	case <-g.ready:
		return true
	default:
		return false
	}
}
