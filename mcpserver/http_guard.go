package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
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

// AnswerWriteTimeout is how long a client has to take an answer that
// holds read memory (see holdAnswers) once it is ready.
const AnswerWriteTimeout = time.Minute

// inflight is an HTTP request as the SDK handles it: its context, its
// connection's controls, and the read memory its answers hold until they
// are written.
type inflight struct {
	ctx context.Context
	rc  *http.ResponseController
	// call: the request's body carries a JSON-RPC request, not only
	// notifications or answers (known when the rate is limited).
	call bool

	mu       sync.Mutex
	releases []func()
}

// hold keeps release until the request's answer has been written, and
// gives the client AnswerWriteTimeout to take it; false when the request
// is over already.
func (f *inflight) hold(release func()) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.releases == nil {
		return false
	}
	f.releases = append(f.releases, release)
	f.rc.SetWriteDeadline(time.Now().Add(AnswerWriteTimeout))
	return true
}

// end gives back what the request's answers held, and lifts the write
// deadline off the connection (the next request on it has its own).
func (f *inflight) end() {
	f.mu.Lock()
	held := f.releases
	f.releases = nil
	f.mu.Unlock()
	for _, release := range held {
		release()
	}
	if len(held) > 0 {
		f.rc.SetWriteDeadline(time.Time{})
	}
}

// guardHTTP reads a POST's body within the body timeout (a client that
// trickles it is cut off), notes what telemetry reads of it (see
// noteWire), and keeps the request while the SDK handles it,
// so that followClient can end the work when the client hangs up, and the
// read memory its answers hold is given back once they are written.
func (s *Server) guardHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := false
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
			s.noteWire(r, body)
			call = s.limits != nil && carriesRequest(body)
		}
		key := rand.Text()
		r.Header.Set(requestKeyHeader, key)
		f := &inflight{ctx: r.Context(), rc: http.NewResponseController(w), call: call, releases: []func(){}}
		s.requests.Store(key, f)
		defer f.end()
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
		defer context.AfterFunc(v.(*inflight).ctx, cancel)()
		return next(ctx, method, req)
	}
}

// holdAnswers counts each answer of a tool call or resource read against
// the read memory (see fsview.Room), one budget with the file windows
// that reads hold: a page takes the room of its window and of its copies
// before it reads (see fsview.Reserve); lines and a resource keep the room
// of what they copied out of the window; any other answer large enough
// takes room once it is made. The room is held until the answer is
// written: over HTTP, until its POST is answered, with AnswerWriteTimeout
// for the client to take it; over stdio, whose one client takes its
// answers in turn, until it is handed to the SDK. So slow clients
// together hold at most the read memory, however many and however large
// their answers.
func (s *Server) holdAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" && method != "resources/read" {
			return next(ctx, method, req)
		}
		roomCtx, room := s.cfg.FS.KeepRoom(ctx, answerCopies)
		res, err := next(roomCtx, method, req)
		if n := answerSize(res); err == nil && n >= minHeldAnswer {
			if aerr := room.Answer(ctx, int64(n)); aerr != nil {
				room.Release()
				return nil, aerr
			}
		}
		var f *inflight
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			if v, ok := s.requests.Load(extra.Header.Get(requestKeyHeader)); ok {
				f = v.(*inflight)
			}
		}
		if room.Size() == 0 || f == nil || !f.hold(room.Release) {
			room.Release()
		}
		return res, err
	}
}

// answerCopies is how many more times an answer's bytes are in memory
// while it is written: the result's text, and the result encoded for the
// wire, twice.
const answerCopies = 3

// minHeldAnswer is the size under which an answer takes no more read
// memory than it kept: small answers cost less than counting them.
const minHeldAnswer = 64 << 10

// answerSize is about the bytes of a result's contents: their texts and
// data, and its structured content when it is raw JSON.
func answerSize(res mcp.Result) int {
	n := 0
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r == nil {
			return 0
		}
		for _, c := range r.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				n += len(c.Text)
			case *mcp.ImageContent:
				n += len(c.Data)
			case *mcp.AudioContent:
				n += len(c.Data)
			case *mcp.EmbeddedResource:
				if c.Resource != nil {
					n += len(c.Resource.Text) + len(c.Resource.Blob)
				}
			}
		}
		if raw, ok := r.StructuredContent.(json.RawMessage); ok {
			n += len(raw)
		}
	case *mcp.ReadResourceResult:
		if r == nil {
			return 0
		}
		for _, c := range r.Contents {
			if c != nil {
				n += len(c.Text) + len(c.Blob)
			}
		}
	}
	return n
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

// carriesRequest reports whether a POST's body is a JSON-RPC request (a
// method and an id), or a batch that holds one: not a notification, nor a
// client's answer to folio's own request.
func carriesRequest(body []byte) bool {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	isRequest := func(m message) bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }
	var one message
	if json.Unmarshal(body, &one) == nil {
		return isRequest(one)
	}
	var batch []message
	return json.Unmarshal(body, &batch) == nil && slices.ContainsFunc(batch, isRequest)
}
