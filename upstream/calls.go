package upstream

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/telemetry"
)

// ErrConnect is the error of a call whose upstream could not be reached.
var ErrConnect = errors.New("upstream unreachable")

// Round is what a client's retry of a call carries back to the upstream
// that answered it with input requests (input_required, SEP-2322): the
// client's responses, and the upstream's requestState unchanged.
type Round struct {
	InputResponses mcp.InputResponseMap
	RequestState   string
}

// Call calls tool on its upstream with args, connecting on first use.
// Cancelling ctx cancels the call upstream. When token is a progress
// token (a string or a number, as the caller sent it), the upstream is
// given one of folio's own, random, and the progress it notifies under
// that token, on this call's connection while the call runs, comes back
// through onProgress under token. An answer that asks for input
// (input_required) comes back as it is, for the client to answer; the
// client's retry carries round to the same upstream. size is the bytes of
// the answer's result as the upstream sent it.
func (g *Gateway) Call(ctx context.Context, tool Tool, args json.RawMessage, round Round, token any, onProgress func(*mcp.ProgressNotificationParams)) (res *mcp.CallToolResult, size int, err error) {
	l := g.link(tool.Upstream)
	if l == nil {
		return nil, 0, fmt.Errorf("%w: %s is not configured", ErrConnect, tool.Upstream)
	}
	l.acquire()
	defer l.release(false)
	cs, err := l.session(ctx, true)
	if unavailable := (*UnavailableError)(nil); errors.As(err, &unavailable) {
		return nil, 0, err
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	p := &mcp.CallToolParams{Name: tool.Original, Arguments: args, InputResponses: round.InputResponses, RequestState: round.RequestState}
	var route *progressRoute
	if isProgressToken(token) && onProgress != nil {
		raw := make([]byte, 16)
		rand.Read(raw)
		mine := progressPrefix + base64.RawURLEncoding.EncodeToString(raw)
		route = &progressRoute{from: cs, token: token, send: onProgress, moved: make(chan struct{}, 1)}
		g.progress.Store(mine, route)
		defer g.progress.Delete(mine)
		p.SetProgressToken(mine)
	}
	var span *telemetry.Span
	if g.opt.Telemetry != nil {
		ctx, span = g.startSpan(ctx, l, cs, p)
	}
	answered := new(atomic.Int64)
	res, err = cs.CallTool(context.WithValue(ctx, answerSizeKey{}, answered), p)
	// An answer that did not come is given up, for the connection to
	// forget (see watchedConn).
	answered.CompareAndSwap(0, -1)
	span.End(ctx, err == nil && res != nil && res.IsError, err)
	if route != nil {
		route.finish(ctx)
	}
	if err != nil && ctx.Err() == nil {
		if !upstreamsAnswer(err) {
			// Not the upstream's answer: the connection failed. The
			// next call makes another.
			l.drop(cs, err)
			return nil, 0, fmt.Errorf("%w: %s: %v", ErrConnect, tool.Upstream, err)
		}
	}
	if ctx.Err() == nil {
		l.succeeded(cs)
	}
	return res, int(max(answered.Load(), 0)), err
}

// codeRejected is the code of go-sdk's jsonrpc2.ErrRejected ("rejected by
// transport"), which its streamable HTTP client wraps around a request
// that failed on the way (the server gone, an exchange cut short, a
// status without a JSON-RPC error), so that go-sdk keeps the session.
const codeRejected = -32005

// transientStatuses are the HTTP statuses go-sdk's streamable client
// rejects a request with as passing (its isTransientHTTPStatus), each
// written last in the rejection: the server is there and said so.
var transientStatuses = []string{
	http.StatusText(http.StatusTooManyRequests),
	http.StatusText(http.StatusInternalServerError),
	http.StatusText(http.StatusBadGateway),
	http.StatusText(http.StatusServiceUnavailable),
	http.StatusText(http.StatusGatewayTimeout),
}

// upstreamsAnswer reports whether err, a call's, is the upstream's own
// answer, not a failure of the connection: a JSON-RPC error that is not
// go-sdk's rejection by the transport (which, when the upstream did answer
// with an error, wraps that error first), or a rejection for a passing
// status (rate limited, busy: the session holds, and the upstream is not
// backed off for it).
func upstreamsAnswer(err error) bool {
	rpc := (*jsonrpc.Error)(nil)
	if !errors.As(err, &rpc) {
		return false
	}
	if rpc.Code != codeRejected {
		return true
	}
	var unreached *url.Error
	if errors.As(err, &unreached) {
		return false
	}
	for _, status := range transientStatuses {
		if strings.HasSuffix(err.Error(), ": "+status) {
			return true
		}
	}
	return false
}

// startSpan starts the client span of the call p to l's upstream on cs,
// and puts its trace context in p's _meta, beside the progress token.
func (g *Gateway) startSpan(ctx context.Context, l *link, cs *mcp.ClientSession, p *mcp.CallToolParams) (context.Context, *telemetry.Span) {
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	op := telemetry.Operation{Method: "tools/call", Tool: p.Name, Transport: telemetry.TransportTCP, Meta: p.Meta}
	if l.server.Transport == Stdio {
		op.Transport = telemetry.TransportPipe
	}
	if r := cs.InitializeResult(); r != nil {
		op.ProtocolVersion = r.ProtocolVersion
	}
	ctx, span := g.opt.Telemetry.StartClient(ctx, op)
	if len(p.Meta) == 0 {
		p.Meta = nil // metrics only: no trace context to pass on
	}
	return ctx, span
}
