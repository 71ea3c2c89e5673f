package upstream_test

import (
	"testing"

	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/upstream"
	"github.com/folio-mcp/folio/upstream/transporttest"
)

// TestTransports holds each transport folio reaches upstreams by to the
// same checks (see transporttest.Run): stdio, streamable HTTP with
// sessions (2025-11-25) and without (2026-07-28), and the older HTTP+SSE.
func TestTransports(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start transporttest.Start
	}{
		{"stdio", func(t *testing.T, args ...string) transporttest.Upstream {
			return transporttest.Upstream{Server: upstream.Server{Transport: upstream.Stdio, Command: upstreamtest.Binary(t), Args: args}}
		}},
		{"http session", httpStart(upstream.HTTP, nil)},
		// go-sdk's server (v1.8.0) without sessions ties a call's
		// handler neither to its POST nor to notifications/cancelled
		// (only subscriptions/listen ends with its request): no client
		// can cancel a call on it.
		{"http stateless", httpStart(upstream.HTTP, map[string]string{"Cancel": "go-sdk v1.8.0's stateless server cancels no call in flight (not its POST's end, not notifications/cancelled)"}, "-stateless")},
		{"sse", httpStart(upstream.SSE, nil, "-sse")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			transporttest.Run(t, tc.start)
		})
	}
}

// httpStart starts fakemcp over HTTP, with its flags for the transport,
// reached by folio over transport; gaps are what is known not to hold
// (see transporttest.Upstream).
func httpStart(transport string, gaps map[string]string, flags ...string) transporttest.Start {
	return func(t *testing.T, args ...string) transporttest.Upstream {
		s := upstreamtest.StartHTTP(t, append(flags, args...)...)
		return transporttest.Upstream{Server: upstream.Server{Transport: transport, URL: s.URL}, Restart: func(t *testing.T) { s.Restart(t) }, Gaps: gaps}
	}
}
