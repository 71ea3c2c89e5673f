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
		{"http session", httpStart(upstream.HTTP)},
		// go-sdk's server without sessions (v1.8.0) ends a call's work
		// when its POST ends only with PropagateRequestCancellation
		// (-propagate): without it, no client can cancel a call on it.
		{"http stateless", httpStart(upstream.HTTP, "-stateless", "-propagate")},
		{"sse", httpStart(upstream.SSE, "-sse")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			transporttest.Run(t, tc.start)
		})
	}
}

// httpStart starts fakemcp over HTTP, with its flags for the transport,
// reached by folio over transport.
func httpStart(transport string, flags ...string) transporttest.Start {
	return func(t *testing.T, args ...string) transporttest.Upstream {
		s := upstreamtest.StartHTTP(t, append(flags, args...)...)
		return transporttest.Upstream{Server: upstream.Server{Transport: transport, URL: s.URL}, Restart: func(t *testing.T) { s.Restart(t) }}
	}
}
