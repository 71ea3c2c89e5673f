package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/folio-mcp/folio/upstream"
)

// readyTimeout bounds the handle store's answer to a readiness probe.
const readyTimeout = 2 * time.Second

// Readiness is what /readyz answers: whether folio can serve, why not,
// and each upstream's life.
type Readiness struct {
	Ready bool `json:"ready"`
	// Roots, HandleStore and Upstreams are "ok", or what is wrong
	// ("none" for a store or upstreams folio does not have).
	Roots       string `json:"roots"`
	HandleStore string `json:"handle_store"`
	Upstreams   string `json:"upstreams"`
	// Upstream is each upstream's life. One that failed does not make
	// folio unready: it loses its own tools, and folio serves the rest.
	Upstream []upstream.Status `json:"upstream,omitempty"`
}

// Readiness checks the roots, the handle store and the upstreams' start-up
// discoveries.
func (s *Server) Readiness(ctx context.Context) Readiness {
	r := Readiness{Ready: true, Roots: "ok", HandleStore: "none", Upstreams: "none"}
	if err := s.cfg.FS.Check(); err != nil {
		r.Ready, r.Roots = false, err.Error()
	}
	if s.cfg.Fold != nil {
		ctx, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		r.HandleStore = "ok"
		if err := s.cfg.Fold.Reachable(ctx); err != nil {
			r.Ready, r.HandleStore = false, "unreachable: "+err.Error()
		}
	}
	if g := s.cfg.Gateway; g != nil {
		r.Upstreams = "ok"
		if !g.Ready() {
			r.Ready, r.Upstreams = false, "discovering the upstreams the schema cache does not give"
		}
		r.Upstream = g.Statuses()
	}
	return r
}

// AdminHandler serves the admin listener, apart from the MCP endpoint and
// for its operators only: GET /healthz (200 while folio runs), GET /readyz
// (Readiness as JSON; 200 when ready, 503 when not) and, when metrics is
// not nil, GET /metrics.
func (s *Server) AdminHandler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, req *http.Request) {
		r := s.Readiness(req.Context())
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if !r.Ready {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(r)
	})
	if metrics != nil {
		mux.Handle("GET /metrics", metrics)
	}
	return mux
}
