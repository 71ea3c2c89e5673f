package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/telemetry"
)

// connect starts (stdio) or connects to (HTTP) the upstream s as client,
// and returns the initialized session. ctx bounds the connection's life:
// when it ends, a stdio server's process group is killed (closing the
// session first lets it exit on its own, see TerminateWait). What is worth
// telling of the upstream (a banner line it printed) goes to log; the PID
// of a process it starts, to started (when not nil). The connection is
// watched by w, and traced and measured by in (see
// telemetry.Instruments.ClientTransport): its handshake, the requests no
// span of folio's covers, and the session's duration.
func connect(ctx context.Context, s Server, client *mcp.Client, log *slog.Logger, w *watch, in *telemetry.Instruments, started func(pid int)) (*mcp.ClientSession, error) {
	kind, ok := transports[s.Transport]
	if !ok {
		return nil, fmt.Errorf("upstream %s: unknown transport %q", s.Name, s.Transport)
	}
	cs, err := client.Connect(ctx, kind.connect(ctx, s, log, w, in, started), nil)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", s.Name, err)
	}
	return cs, nil
}

// endpoint is s as the spans and metrics of folio's requests to it tell
// it: a process's stdio, or an HTTP server's host and port.
func endpoint(s Server) telemetry.Endpoint {
	if s.Transport == Stdio {
		return telemetry.Endpoint{Transport: telemetry.TransportPipe}
	}
	e := telemetry.Endpoint{Transport: telemetry.TransportTCP, Network: "http"}
	if u, err := url.Parse(s.URL); err == nil {
		e.Address = u.Hostname()
		e.Port, _ = strconv.Atoi(u.Port())
		if e.Port == 0 {
			e.Port = map[string]int{"http": 80, "https": 443}[u.Scheme]
		}
	}
	return e
}

// MaxMessageBytes bounds one message from an upstream, as go-sdk bounds
// a line of stdio and an event of a stream: a JSON answer over HTTP is cut
// there too (its read fails).
const MaxMessageBytes = mcp.DefaultMaxEventSize

// headers sends an upstream's configured headers with every request,
// bounds the body of each answer that is not an event stream to
// MaxMessageBytes, and, when w is not nil, has w watch each answer (see
// watchBody).
type headers struct {
	h    map[string]string
	base http.RoundTripper
	w    *watch
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.h {
			r.Header.Set(k, v)
		}
	}
	list := h.w != nil && listsTools(r)
	resp, err := h.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if !stream {
		resp.Body = &boundedBody{ReadCloser: resp.Body, left: MaxMessageBytes}
	}
	if h.w != nil {
		size, _ := r.Context().Value(answerSizeKey{}).(*atomic.Int64)
		resp.Body = &watchBody{ReadCloser: resp.Body, w: h.w, list: list, size: size, stream: stream}
	}
	return resp, nil
}

// boundedBody fails a read past its bound.
type boundedBody struct {
	io.ReadCloser
	left int
}

// errMessageTooLarge: an upstream sent a message over MaxMessageBytes.
var errMessageTooLarge = fmt.Errorf("an upstream's answer is over %d bytes", MaxMessageBytes)

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errMessageTooLarge
	}
	if len(p) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	if b.left < 0 {
		return n, errMessageTooLarge
	}
	return n, err
}

// Discover connects to s, lists its tools (every page) and disconnects,
// all within ctx, and returns the cache entry of what it found. version
// is folio's, given to the upstream as the client's.
func Discover(ctx context.Context, s Server, version string) (Entry, error) {
	return discover(ctx, s, version, nil)
}

// discover is Discover, its requests and session traced and measured by
// in.
func discover(ctx context.Context, s Server, version string, in *telemetry.Instruments) (Entry, error) {
	w := &watch{}
	cs, err := connect(ctx, s, mcp.NewClient(&mcp.Implementation{Name: "folio", Version: version}, nil), slog.New(slog.DiscardHandler), w, in, nil)
	if err != nil {
		return Entry{}, err
	}
	defer cs.Close()
	return entryOf(ctx, s, cs, w)
}

// Refresh discovers every one of servers at once, each on a connection of
// its own within opt.Timeout, and writes what it found to the cache at
// opt.CachePath (an upstream that failed keeps the entry it had; entries
// of upstreams not among servers go). It returns each upstream's entry,
// or why it has none. opt.Telemetry, when set, traces and measures the
// discoveries' requests and sessions.
func Refresh(ctx context.Context, servers []Server, opt Options) ([]Entry, []error, error) {
	found := make([]Entry, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
			defer cancel()
			found[i], errs[i] = discover(ctx, s, opt.Version, opt.Telemetry)
			if errs[i] != nil && ctx.Err() == context.DeadlineExceeded {
				errs[i] = fmt.Errorf("did not start and list its tools within %v", opt.Timeout)
			}
		})
	}
	wg.Wait()
	return found, errs, storeFound(opt.CachePath, servers, servers, found, errs)
}

// storeFound writes to the cache at path what discovering servers found
// (found[i], unless errs[i]): an upstream that failed keeps the entry it
// had, and only the configured upstreams keep theirs.
func storeFound(path string, configured, servers []Server, found []Entry, errs []error) error {
	return UpdateCache(path, func(c *Cache) {
		for i, s := range servers {
			if errs[i] == nil {
				c.Upstreams[s.Name] = found[i]
			}
		}
		c.Keep(configured)
	})
}

// MaxEntryBytes bounds what is kept of one upstream's tools, as JSON: an
// upstream that advertises more is left out.
const MaxEntryBytes = 16 << 20

// cut is s cut to at most n bytes, at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// entryOf lists the tools of s (every page, up to one more than MaxTools
// and at most MaxEntryBytes of them) over the session cs, as a cache
// entry: each tool's definition as it came on the wire, which w watches.
// cachingProtocol is the first MCP version whose results carry caching
// hints (SEP-2549).
const cachingProtocol = "2026-07-28"

func entryOf(ctx context.Context, s Server, cs *mcp.ClientSession, w *watch) (Entry, error) {
	e := Entry{Fingerprint: s.Fingerprint(), Tools: []json.RawMessage{}, Fetched: time.Now().UTC().Truncate(time.Second)}
	if info := cs.InitializeResult(); info != nil {
		e.Protocol = cut(info.ProtocolVersion, 100)
		if info.ServerInfo != nil {
			e.Server, e.Version = cut(info.ServerInfo.Name, 100), cut(info.ServerInfo.Version, 100)
		}
	}
	// Pages are walked by hand, not by cs.Tools, to read their caching
	// hints; an upstream that pages on without end stops at MaxTools, or
	// at as many pages.
	size, cursor, named := 0, "", map[string]bool{}
pages:
	for range MaxTools + 1 {
		page, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return Entry{}, fmt.Errorf("upstream %s: tools/list: %w", s.Name, err)
		}
		if e.Protocol >= cachingProtocol && (e.ToolsTTLMs == nil || page.TTLMs < *e.ToolsTTLMs) {
			// Only the 2026-07-28 era has caching hints: an older
			// upstream's missing ttlMs reads as 0, and says nothing.
			ttl := max(page.TTLMs, 0)
			e.ToolsTTLMs = &ttl
		}
		for _, tool := range page.Tools {
			var b json.RawMessage
			if !named[tool.Name] {
				b = w.definition(tool.Name)
			}
			named[tool.Name] = true
			if b == nil {
				// Not read off the wire, or a name given twice (the
				// wire's is the first's): as go-sdk took it.
				b, _ = json.Marshal(tool)
			}
			if size += len(b); size > MaxEntryBytes {
				// Each page is bounded (MaxMessageBytes), but not how
				// many pages there are: what is kept is.
				return Entry{}, fmt.Errorf("upstream %s: tools/list: its tools come to over %d bytes", s.Name, MaxEntryBytes)
			}
			e.Tools = append(e.Tools, b)
			if len(e.Tools) > MaxTools {
				// One more than are offered says there were more.
				break pages
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return e, nil
}
