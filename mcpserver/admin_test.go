package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/fold/redisstore"
	"github.com/folio-mcp/folio/internal/redistest"
)

// TestAdmin: /healthz answers while folio runs; /readyz is ready while
// the root and the handle store are there, and says which is not when one
// goes (a root removed, a Redis stopped); /metrics is served only when
// there are metrics.
func TestAdmin(t *testing.T) {
	get := func(h http.Handler, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	ready := func(h http.Handler) (int, Readiness) {
		code, body := get(h, "/readyz")
		var r Readiness
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("/readyz: %v: %s", err, body)
		}
		return code, r
	}

	e := newEnv(t)
	h := e.server(t, serverOpts{local: true}).AdminHandler(nil)
	if code, body := get(h, "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz %d %q", code, body)
	}
	if code, r := ready(h); code != 200 || !r.Ready || r.Roots != "ok" || r.HandleStore != "ok" || r.Upstreams != "none" {
		t.Errorf("/readyz %d %+v", code, r)
	}
	if code, _ := get(h, "/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics without metrics: %d", code)
	}
	if err := os.Rename(e.dir, e.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	if code, r := ready(h); code != http.StatusServiceUnavailable || r.Ready || !strings.Contains(r.Roots, "removed or replaced") {
		t.Errorf("/readyz with the root gone: %d %+v", code, r)
	}
	os.Rename(e.dir+".gone", e.dir)

	redis := redistest.Start(t)
	store, err := redisstore.Open(redis.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	h = e.server(t, serverOpts{local: true, store: store}).AdminHandler(http.NotFoundHandler())
	if code, r := ready(h); code != 200 || !r.Ready {
		t.Errorf("/readyz with Redis: %d %+v", code, r)
	}
	redis.Kill()
	if code, r := ready(h); code != http.StatusServiceUnavailable || r.Ready || !strings.HasPrefix(r.HandleStore, "unreachable") {
		t.Errorf("/readyz with Redis stopped: %d %+v", code, r)
	}
}
