package telemetry

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/sse"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// ClientHTTP wraps base, the RoundTripper of the HTTP client of one
// streamable HTTP connection folio makes to the MCP server at e, so that
// the connection is told as ClientTransport tells one, from its HTTP
// exchanges instead of its messages: a wrapper of a go-sdk streamable HTTP
// connection would hide what go-sdk tells it of its session (an
// unexported method), and the stream of the session's notices would never
// open. Of each exchange it reads:
//
//   - a POST's JSON-RPC request, from its body (GetBody), as far as its
//     method and id (go-sdk writes them first). go-sdk sends it in the
//     context its Write was given: a request under the span StartClient
//     made for it gives that span its id, the session (the POST's
//     Mcp-Session-Id) and e. Any other request (the handshake, tools/list)
//     is a span of its own, and is read whole: its body is encoded again,
//     by go-sdk's encoder, with the span's trace context in its _meta.
//   - the answer to a request it made a span of, which ends the span as
//     its last byte is read: the POST's JSON body, or its event in the
//     POST's event stream (or in the stream a GET with Last-Event-ID
//     resumes). An HTTP error that carries no JSON-RPC one ends it with
//     the status code as its error.type; a notifications/cancelled ends
//     the span of the request it names.
//   - the end of a session the server gave an id: go-sdk's DELETE of it
//     as the connection closes, SessionLost when the DELETE finds it gone
//     (404) or the server unreachable; or a POST in it answered 404, the
//     server's word that it is over (streamable HTTP, §2.5.3),
//     SessionLost. A connection without a session id (a stateless
//     server's) records no session: nothing on the wire says when it
//     ends.
//
// The RoundTripper serves one connection (one Connect of a
// StreamableClientTransport), whose session's duration runs from the
// call of ClientHTTP. A nil *Instruments gives base back; a nil base is
// http.DefaultTransport.
func (in *Instruments) ClientHTTP(base http.RoundTripper, e Endpoint) http.RoundTripper {
	if in == nil {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &clientHTTP{base: base, calls: newClientCalls(in, e)}
}

// clientHTTP is ClientHTTP's RoundTripper.
type clientHTTP struct {
	base  http.RoundTripper
	calls *clientCalls
	// heads are buffers the start of a POST's body is read into.
	heads sync.Pool
}

// Headers of the streamable HTTP transport.
const (
	sessionHeader     = "Mcp-Session-Id"
	lastEventIDHeader = "Last-Event-ID"
)

func (t *clientHTTP) RoundTrip(r *http.Request) (*http.Response, error) {
	session := r.Header.Get(sessionHeader)
	switch r.Method {
	case http.MethodPost:
		return t.post(r, session)
	case http.MethodDelete:
		resp, err := t.base.RoundTrip(r)
		if session != "" {
			t.calls.close(err != nil || resp.StatusCode == http.StatusNotFound)
		}
		return resp, err
	case http.MethodGet:
		resp, err := t.base.RoundTrip(r)
		if err == nil && r.Header.Get(lastEventIDHeader) != "" && t.calls.pending() {
			// A stream resumed: it may carry what the one it
			// resumes did not.
			resp.Body = t.calls.answers(resp, jsonrpc.ID{})
		}
		return resp, err
	}
	return t.base.RoundTrip(r)
}

// post sends r, a POST of a JSON-RPC message in the session named (if
// any).
func (t *clientHTTP) post(r *http.Request, session string) (*http.Response, error) {
	h := t.head(r)
	var own jsonrpc.ID // the request this exchange carries a span of its own of
	switch {
	case h.method == "":
		// A response, a batch, or what cannot be read.
	case !h.call:
		if h.method == methodCancelled && t.calls.pending() {
			if req := readRequest(r); req != nil {
				t.calls.cancelled(req.Params)
			}
		}
	case t.calls.claim(r.Context(), h.method, h.id, session):
	case r.Response != nil:
		// A redirect's: the request was seen. Its body is go-sdk's
		// again, without the trace context of a span of the
		// connection's own.
		if req := readRequest(r); req != nil {
			if meta, ok := t.calls.metaOf(req.ID); ok {
				if params, err := withMeta(req.Params, meta); len(meta) > 0 && err == nil {
					req.Params = params
					r = withBody(r, req)
				}
				own = req.ID
			}
		}
	default:
		req := readRequest(r)
		if req == nil {
			break
		}
		if t.calls.start(r.Context(), req, session) {
			r = withBody(r, req)
		}
		own = req.ID
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		if own.IsValid() {
			t.calls.finish(own, nil, err)
		}
		return resp, err
	}
	switch {
	case session != "" && resp.StatusCode == http.StatusNotFound:
		// The server's word that the session is over.
		if own.IsValid() {
			t.calls.finish(own, nil, statusError(resp.StatusCode))
		}
		t.calls.close(true)
	case own.IsValid():
		resp.Body = t.calls.answers(resp, own)
	}
	return resp, nil
}

// headSize is how much of a POST's body is read for its method and id:
// go-sdk writes them first, within its first 60 bytes or so.
const headSize = 256

// requestHead is what the start of a POST's body says of its message.
type requestHead struct {
	// method is the message's ("" for a response, or what is not one
	// JSON-RPC message); id its id's text, when call.
	method, id string
	call       bool
}

// head is what r's body says of its message, read from its start (its
// whole when it must be).
func (t *clientHTTP) head(r *http.Request) requestHead {
	if r.GetBody == nil {
		return requestHead{}
	}
	body, err := r.GetBody()
	if err != nil {
		return requestHead{}
	}
	defer body.Close()
	buf, _ := t.heads.Get().(*[headSize]byte)
	if buf == nil {
		buf = new([headSize]byte)
	}
	defer t.heads.Put(buf)
	n, err := io.ReadFull(body, buf[:])
	h, complete := readHead(buf[:n])
	if complete || err != nil {
		return h // the body, whole
	}
	rest, err := io.ReadAll(body)
	if err != nil {
		return requestHead{}
	}
	h, _ = readHead(append(buf[:n:n], rest...))
	return h
}

// readHead reads the method and the id of the JSON-RPC message whose body
// starts with b, its members in any order. complete is false when the
// members it needs may come after b.
func readHead(b []byte) (h requestHead, complete bool) {
	i := jsonvalue.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return requestHead{}, i < len(b) // a batch, or not JSON
	}
	i++
	gotID := false
	for !gotID || h.method == "" {
		i = jsonvalue.SkipSpace(b, i)
		if i >= len(b) {
			return requestHead{}, false
		}
		if b[i] == '}' {
			break
		}
		kind, start, final := memberKey(b, i)
		if start < 0 {
			return requestHead{}, final
		}
		if kind == responseMember {
			return requestHead{}, true // a response
		}
		if i = jsonvalue.SkipValue(b, start); i < 0 || i >= len(b) {
			return requestHead{}, false // cut within the value, or after it
		}
		switch kind {
		case idMember:
			gotID = true
			h.id, h.call = idValue(b[:i], start)
		case methodMember:
			var ok bool
			if h.method, ok = methodValue(b, start); !ok {
				return requestHead{}, true
			}
		}
		if i = jsonvalue.SkipSpace(b, i); i < len(b) && b[i] == ',' {
			i++
		}
	}
	if !h.call {
		h.id = ""
	}
	return h, true
}

// methodValue is the method whose value, whole in b, starts at b[start];
// ok is false when it is no string.
func methodValue(b []byte, start int) (string, bool) {
	end := jsonvalue.SkipString(b, start)
	if b[start] != '"' || end < 0 {
		return "", false
	}
	method, err := jsonvalue.DecodeString(b[start:end])
	return method, err == nil
}

// readRequest is the JSON-RPC request r's body carries, nil when it
// carries none.
func readRequest(r *http.Request) *jsonrpc.Request {
	if r.GetBody == nil {
		return nil
	}
	body, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil
	}
	req, _ := msg.(*jsonrpc.Request)
	return req
}

// withBody is r carrying req in its body in place of its own (which it
// closes: RoundTrip closes a request's body).
func withBody(r *http.Request, req *jsonrpc.Request) *http.Request {
	data, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return r
	}
	if r.Body != nil {
		r.Body.Close()
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = io.NopCloser(bytes.NewReader(data))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	r2.ContentLength = int64(len(data))
	return r2
}

// metaOf is the trace context put in the _meta of the request id (none
// when traces are off); ok when the connection made a span of it that is
// not answered yet.
func (c *clientCalls) metaOf(id jsonrpc.ID) (meta map[string]any, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if call := c.calls[id]; call != nil {
		return call.meta, true
	}
	return nil, false
}

// answers is resp's body, read for the answers of the requests c made
// spans of: own is the request resp answers (the zero ID for a resumed
// stream's).
func (c *clientCalls) answers(resp *http.Response, own jsonrpc.ID) io.ReadCloser {
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), eventStream)
	return &answerBody{ReadCloser: resp.Body, calls: c, own: own, status: resp.StatusCode, stream: stream}
}

// eventStream is the media type of a server-sent event stream.
const eventStream = "text/event-stream"

// maxAnswer bounds what answerBody keeps of one message, as go-sdk
// bounds an event.
const maxAnswer = mcp.DefaultMaxEventSize

// errNoResponse ends the span of a request whose answer ended without its
// response.
var errNoResponse = errors.New("the answer ended without the response")

// statusError is an HTTP answer that is no JSON-RPC one: its status code
// is its error.type, as the HTTP conventions have it.
type statusError int

func (e statusError) Error() string {
	return "HTTP " + strconv.Itoa(int(e)) + " " + http.StatusText(int(e))
}

// ErrorType is the status code.
func (e statusError) ErrorType() string { return strconv.Itoa(int(e)) }

// answerBody passes an answer's body on and ends the span of each request
// whose response it carries as the response's last byte passes: the
// whole body when it is JSON, each event's data when it is an event
// stream (split as upstream's watchBody splits them).
type answerBody struct {
	io.ReadCloser
	calls  *clientCalls
	own    jsonrpc.ID
	status int
	stream bool

	buf    bytes.Buffer // of a JSON body
	events sse.Splitter // of a stream
	// resumable: an event had an id, so that go-sdk resumes the stream
	// (with a GET) when it ends without the response.
	resumable bool
	done      bool
}

func (b *answerBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.done {
		return n, err
	}
	switch {
	case b.stream:
		// go-sdk fails the stream at maxAnswer: past it, nothing is kept.
		b.events.Write(p[:n], maxAnswer, b.event)
	case b.buf.Len() <= maxAnswer:
		b.buf.Write(p[:n])
	}
	if err != nil {
		b.end(err)
	}
	return n, err
}

func (b *answerBody) Close() error {
	if !b.done {
		b.end(nil)
	}
	return b.ReadCloser.Close()
}

// end is the end of the body: err is what ended the reading, nil when
// the body is closed before.
func (b *answerBody) end(err error) {
	b.done = true
	if !b.stream && b.buf.Len() <= maxAnswer {
		b.message(b.buf.Bytes())
	}
	b.buf = bytes.Buffer{}
	if !b.own.IsValid() {
		return
	}
	var why error
	switch {
	case b.status >= 300 && b.status < 400:
		return // a redirect: its follow-up carries the request again
	case b.status < 200 || b.status >= 300:
		why = statusError(b.status)
	case b.stream && b.resumable && err == io.EOF:
		return // go-sdk resumes the stream
	case err != nil && err != io.EOF:
		why = err
	default:
		why = errNoResponse
	}
	b.calls.finish(b.own, nil, why) // when its response did not end it
}

// event reads one event: a message event's data is one JSON-RPC message
// to go-sdk.
func (b *answerBody) event(e sse.Event) {
	b.resumable = b.resumable || e.ID
	if e.Message() {
		b.message(e.Data)
	}
}

// message reads one JSON-RPC message: a response ends its request's
// span.
func (b *answerBody) message(raw []byte) {
	if len(raw) == 0 {
		return
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		b.calls.finish(resp.ID, resp.Result, resp.Error)
	}
}
