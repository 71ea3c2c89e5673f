package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of an HTTP request.
const (
	// DefaultBodyTimeout is how long a client has to send a request's body.
	DefaultBodyTimeout = 10 * time.Second
	// MaxBodyBytes is the largest request body read, the SDK's own bound.
	MaxBodyBytes = mcp.DefaultMaxRequestBodyBytes
)

// requestKeyHeader carries, from guardHTTP to followClient, the key under
// which an HTTP request's context is kept. Whatever a client sends in it is
// replaced.
const requestKeyHeader = "Folio-Request-Key"

// guardHTTP reads a POST's body within the body timeout (a client that
// trickles it is cut off) and keeps the request's context while the SDK
// handles it, so that followClient can end the work when the client hangs
// up.
func (s *Server) guardHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			rc := http.NewResponseController(w)
			rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
			if err != nil {
				if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
					http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				} else {
					// A body not sent in time: the connection is done.
					w.Header().Set("Connection", "close")
					http.Error(w, "request body not sent in time", http.StatusRequestTimeout)
				}
				return
			}
			rc.SetReadDeadline(time.Time{})
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		key := rand.Text()
		r.Header.Set(requestKeyHeader, key)
		s.requests.Store(key, r.Context())
		defer s.requests.Delete(key)
		next.ServeHTTP(w, r)
	})
}

// followClient ends the handling of a request whose HTTP request has ended:
// its client hung up. (The SDK ties a handler to its HTTP request only for
// the newest protocol; for the others, a client that leaves without a
// cancel notification would leave the work running.)
func (s *Server) followClient(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if extra == nil || extra.Header == nil || !longRunning(method) {
			return next(ctx, method, req)
		}
		key := extra.Header.Get(requestKeyHeader)
		if key == "" {
			return next(ctx, method, req)
		}
		v, ok := s.requests.Load(key)
		if !ok {
			// A request's POST lasts until it is answered: over already.
			return nil, context.Canceled
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(v.(context.Context), cancel)()
		return next(ctx, method, req)
	}
}

// longRunning reports whether followClient ends the work of method with
// its client: requests (never notifications) that can take a while.
func longRunning(method string) bool {
	switch method {
	case "tools/call", "resources/read", "resources/list":
		return true
	}
	return false
}
