// Package stdio is MCP's stdio transport: JSON-RPC messages, one per line,
// over a pair of streams, for folio's own clients (Server) and for its
// stdio upstreams (Client).
//
// It does what go-sdk's IOTransport does, batches of the protocol
// versions before 2025-06-18 included, but reads each message once: its
// envelope by its exact keys, its params and result passed on as they
// came. (go-sdk's reads a message up to four times over, each time into
// a new 32 KiB buffer: a quarter of the CPU a call through the gateway
// cost.) And it stays up whatever a client sends: a line that is not JSON
// is answered with a parse error, a message that is not JSON-RPC with an
// invalid request, a line over the bound with an error too, and the next
// line is read.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// DefaultMaxMessageBytes bounds one message (a line), as go-sdk bounds it.
const DefaultMaxMessageBytes = mcp.DefaultMaxLineLength

// Transport is a connection over a reader and a writer of lines.
type Transport struct {
	r io.ReadCloser
	w io.WriteCloser
	// max bounds a line (DefaultMaxMessageBytes when 0).
	max int
	// skipped, for a client's connection, is told the start of the first
	// line skipped.
	skipped func(line []byte)
	client  bool
	// unread, when not nil, is how many bytes written to w the client has
	// not yet read (ok false when w can no longer tell).
	unread func() (n int, ok bool)
}

// readWait bounds how long an answer waits for the client to read the
// notifications written before it (see Server).
const readWait = time.Second

// Server is the connection of a server to its client: messages read
// from r, written to w. Closing it closes r (w stays open, as go-sdk's
// StdioTransport leaves standard output). A line that is no message is
// answered with a JSON-RPC error, and the connection goes on.
//
// When r is a pipe or a socket (as a client's standard input is), it is
// read through the runtime's poller (its descriptor is left non-blocking:
// the read end of a pipe or a socket is the server's own): a blocking
// read would hold the thread and its processor, so that the goroutine a
// message is handed to would wait tens of microseconds for the scheduler
// to take the processor back.
//
// An answer written after a notification waits (at most readWait) until
// the client has read what was written before it, when w can tell (a pipe
// or a Unix socket, on Linux; see unreadOf): the official TypeScript SDK's
// client hands a notification to its handler a microtask after reading it,
// but an answer at once, forgetting the request's progress handler, so
// that a progress notice read in one chunk with its answer is dropped
// (modelcontextprotocol/typescript-sdk#2580). Read apart, each is handled
// in turn. The client loses no time by it: the answer comes after the
// notice in the stream, read first anyway.
func Server(r io.ReadCloser, w io.Writer) *Transport {
	if f, ok := r.(*os.File); ok {
		r = pollable(f)
	}
	t := &Transport{r: r, w: nopCloser{w}}
	if f, ok := w.(*os.File); ok {
		t.unread = unreadOf(f)
	}
	return t
}

// pollable is f, made non-blocking and so read through the poller, when
// it is a pipe or a socket; otherwise (a terminal, a file) f itself.
func pollable(f *os.File) io.ReadCloser {
	info, err := f.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	// A File made of a descriptor already non-blocking is pollable. It
	// is made of a duplicate, so that each File owns its own descriptor:
	// two owning one, the first closed (or collected) would close the
	// other's, or a descriptor since given to another file.
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return f
	}
	return &ownedFile{File: os.NewFile(uintptr(fd), f.Name()), origin: f}
}

// readDeadliner is a file read through the poller, whose reads a
// deadline stops.
type readDeadliner interface {
	io.Reader
	SetReadDeadline(time.Time) error
}

// ownedFile is a duplicate of origin that closes origin too.
type ownedFile struct {
	*os.File
	origin *os.File
}

func (f *ownedFile) Close() error {
	return errors.Join(f.File.Close(), f.origin.Close())
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Client is the connection of a client to its server (a stdio upstream),
// read from r and written to w; closing it closes both. A line that cannot be a message (it starts with neither "{" nor "[{",
// as a banner some servers print first) is skipped, and skipped, when not
// nil, is told of the first; a line that can be one but is not ends the
// connection, as go-sdk's does.
func Client(r io.ReadCloser, w io.WriteCloser, skipped func(line []byte)) *Transport {
	return &Transport{r: r, w: w, skipped: skipped, client: true}
}

// WithMaxMessageBytes bounds a line to n bytes in place of
// DefaultMaxMessageBytes.
func (t *Transport) WithMaxMessageBytes(n int) *Transport {
	t.max = n
	return t
}

// Connect starts reading.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	max := t.max
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	c := &conn{
		t:      t,
		max:    max,
		r:      bufio.NewReaderSize(t.r, 64<<10),
		closed: make(chan struct{}),
	}
	if f, ok := t.r.(readDeadliner); ok && f.SetReadDeadline(time.Time{}) == nil {
		// Read through the poller: Read reads itself (a deadline stops
		// it when its context ends, closing the file when the connection
		// closes), saving a goroutine's handoff (and a thread's wakeup)
		// a message.
		c.deadline = f
		return c, nil
	}
	// A read that Close cannot stop: a goroutine reads.
	c.incoming = make(chan incoming)
	go c.readLoop()
	return c, nil
}

// incoming is what the read loop hands Read: the messages of a line, or
// the error that ended the reading.
type incoming struct {
	msgs []jsonrpc.Message
	err  error
}

// conn is a connection of a Transport.
type conn struct {
	t   *Transport
	max int
	r   *bufio.Reader
	// told: skipped was told.
	told bool
	// deadline, when not nil, is the file Read reads itself; otherwise
	// readLoop reads, and hands Read what it read on incoming.
	deadline readDeadliner
	// stop stops Read's reading when the context it last had (stopCtx)
	// ends, unless a later context (a later stopGen) came.
	stop     func() bool
	stopCtx  context.Context
	stopMu   sync.Mutex
	stopGen  int
	incoming chan incoming
	closed   chan struct{}
	// queue is the rest of the last batch read (Read is not concurrent).
	queue []jsonrpc.Message

	writeMu sync.Mutex
	// noticed: a notification was written, and no answer since (writeMu
	// is held).
	noticed bool

	mu sync.Mutex
	// initialize is the id of the initialize request, once one passed;
	// version the protocol version its answer gave.
	initialize jsonrpc.ID
	version    string
	// batches are the batches whose answers are not all written, by the
	// ids of their requests.
	batches map[jsonrpc.ID]*batch

	closeOnce sync.Once
	closeErr  error
}

// batch is the answers to a batch of requests, written together once the
// last is.
type batch struct {
	left    int
	answers []*jsonrpc.Response
	at      map[jsonrpc.ID]int
}

// firstVersionWithoutBatches is the protocol version that dropped
// JSON-RPC batches.
const firstVersionWithoutBatches = "2025-06-18"

func (c *conn) SessionID() string { return "" }

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue = c.queue[1:]
		return msg, nil
	}
	if c.deadline != nil {
		return c.readItself(ctx)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case in := <-c.incoming:
		if in.err != nil {
			return nil, in.err
		}
		c.queue = in.msgs[1:]
		return in.msgs[0], nil
	case <-c.closed:
		return nil, io.EOF
	}
}

// readItself is Read of a file read through the poller.
func (c *conn) readItself(ctx context.Context) (jsonrpc.Message, error) {
	if ctx != c.stopCtx {
		// A new context: the last one's stop, if it came, is undone.
		if c.stop != nil {
			c.stop()
		}
		c.stopMu.Lock()
		c.stopGen++
		gen := c.stopGen
		c.deadline.SetReadDeadline(time.Time{})
		c.stopMu.Unlock()
		c.stopCtx = ctx
		c.stop = context.AfterFunc(ctx, func() {
			c.stopMu.Lock()
			if c.stopGen == gen {
				c.deadline.SetReadDeadline(time.Now())
			}
			c.stopMu.Unlock()
		})
	}
	msgs, err := c.next()
	switch {
	case err == nil:
		c.queue = msgs[1:]
		return msgs[0], nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	select {
	case <-c.closed:
		return nil, io.EOF
	default:
		return nil, err
	}
}

// next reads lines until one holds messages, answering (on a server's
// connection) or skipping (on a client's) those that do not; an error
// ends the reading.
func (c *conn) next() ([]jsonrpc.Message, error) {
	for {
		line, err := c.readLine(c.r)
		switch {
		case errors.Is(err, errTooLong) && !c.t.client:
			c.answer(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message over %d bytes", c.max))
			continue
		case err != nil:
			return nil, err
		case len(line) == 0:
			continue
		case c.t.client && !message(line):
			if !c.told && c.t.skipped != nil {
				c.told = true
				c.t.skipped(line[:min(len(line), 200)])
			}
			continue
		}
		msgs, err := c.decode(line)
		switch {
		case err == nil:
			return msgs, nil
		case c.t.client:
			return nil, fmt.Errorf("%w: %.200q", err, line)
		}
		c.refuse(err)
	}
}

// readLoop hands Read what next reads, until an error or Close.
func (c *conn) readLoop() {
	for {
		var in incoming
		in.msgs, in.err = c.next()
		select {
		case c.incoming <- in:
		case <-c.closed:
			return
		}
		if in.err != nil {
			return
		}
	}
}

// errTooLong: a line is over the bound.
var errTooLong = errors.New("a line over the bound")

// readLine reads the next line, without its end or the white space
// around it, into memory of its own. A line over the bound is passed to
// its end and errTooLong returned. A line longer than the reader's
// buffer is kept in copies of its parts until its end, then joined into
// one slice of its size: grown by append, a 3.7 MB line cost 19 MB of
// allocations (append grows a large slice by a quarter at a time), now
// twice its size.
func (c *conn) readLine(r *bufio.Reader) ([]byte, error) {
	var parts [][]byte
	size := 0
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			if size <= c.max+2 { // room for "\r\n"
				parts = append(parts, bytes.Clone(chunk))
			} else {
				parts = nil
			}
			continue
		}
		if err != nil && (err != io.EOF || size == 0) {
			return nil, err
		}
		// The line's end, or the stream's (the last line may have none).
		if size > c.max+2 {
			return nil, errTooLong
		}
		line := make([]byte, 0, size)
		for _, part := range parts {
			line = append(line, part...)
		}
		if line = bytes.TrimSpace(append(line, chunk...)); len(line) > c.max {
			return nil, errTooLong
		}
		return line, nil
	}
}

// message reports whether a line can be a message or a batch: it starts
// with "{", or with "[" and then "{" or "]" (after white space).
func message(line []byte) bool {
	if line[0] == '{' {
		return true
	}
	if line[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(line[1:], " \t\r\n")
	return len(rest) > 0 && (rest[0] == '{' || rest[0] == ']')
}

// decode reads a line's messages, and notes what the connection learns
// from them: a batch's requests, the initialize request.
func (c *conn) decode(line []byte) ([]jsonrpc.Message, error) {
	msgs, isBatch, err := decodeLine(line)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if isBatch {
		if c.version >= firstVersionWithoutBatches || newProtocol(msgs) {
			return nil, &invalidMessage{why: "a batch: JSON-RPC batches are not supported from protocol version " + firstVersionWithoutBatches + " on"}
		}
		b := &batch{at: map[jsonrpc.ID]int{}}
		for _, msg := range msgs {
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				if _, twice := b.at[req.ID]; twice || c.batches[req.ID] != nil {
					return nil, &invalidMessage{why: fmt.Sprintf("a batch with the id %v twice or of a request not yet answered", req.ID.Raw())}
				}
				b.at[req.ID] = len(b.answers)
				b.answers = append(b.answers, nil)
			}
		}
		if b.left = len(b.answers); b.left > 0 {
			if c.batches == nil {
				c.batches = map[jsonrpc.ID]*batch{}
			}
			for id := range b.at {
				c.batches[id] = b
			}
		}
	}
	for _, msg := range msgs {
		c.saw(msg)
	}
	return msgs, nil
}

// saw notes an initialize request and the protocol version its answer
// gives, whichever way they pass; c.mu is held.
func (c *conn) saw(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "initialize" && m.IsCall() {
			c.initialize = m.ID
		}
	case *jsonrpc.Response:
		if c.initialize.IsValid() && m.ID == c.initialize && m.Error == nil {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(m.Result, &r)
			c.version = r.ProtocolVersion
		}
	}
}

// newProtocol reports whether a request of a batch says, in its _meta,
// that it is of a protocol version without batches.
func newProtocol(msgs []jsonrpc.Message) bool {
	for _, msg := range msgs {
		req, ok := msg.(*jsonrpc.Request)
		if !ok || len(req.Params) == 0 || req.Params[0] != '{' {
			continue
		}
		meta := member(req.Params, "_meta")
		if meta == nil || meta[0] != '{' {
			continue
		}
		if v, err := jsonString(member(meta, mcp.MetaKeyProtocolVersion)); err == nil && v >= firstVersionWithoutBatches {
			return true
		}
	}
	return false
}

// member is the value of key in the object obj (valid JSON), or nil.
func member(obj []byte, key string) []byte {
	members, err := jsonvalue.Elements(obj)
	if err != nil {
		return nil
	}
	for _, m := range members {
		if m.Key == key {
			return obj[m.Start:m.End]
		}
	}
	return nil
}

// refuse answers a line that is no message, or a batch refused.
func (c *conn) refuse(err error) {
	var inv *invalidMessage
	if errors.As(err, &inv) {
		c.answer(inv.id, jsonrpc.CodeInvalidRequest, inv.Error())
		return
	}
	c.answer(jsonrpc.ID{}, jsonrpc.CodeParseError, "a line that is not JSON")
}

// answer writes an error answer: to the id, or to a null id (as JSON-RPC
// asks when the id could not be read; go-sdk leaves an invalid id out).
func (c *conn) answer(id jsonrpc.ID, code int64, message string) {
	wire := struct {
		Version string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: message}}
	data, err := json.Marshal(wire)
	if err != nil {
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.t.w.Write(append(data, '\n'))
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.saw(msg)
	var answers []*jsonrpc.Response
	inBatch := false
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		if b := c.batches[resp.ID]; b != nil {
			inBatch = true
			delete(c.batches, resp.ID)
			b.answers[b.at[resp.ID]] = resp
			if b.left--; b.left == 0 {
				answers = b.answers
			}
		}
	}
	c.mu.Unlock()
	var data []byte
	var err error
	switch {
	case !inBatch:
		data, err = jsonrpc.EncodeMessage(msg)
	case answers == nil:
		return nil
	default:
		data, err = encodeBatch(answers)
	}
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, answer := msg.(*jsonrpc.Response); answer && c.noticed {
		c.noticed = false
		c.awaitRead(ctx)
	}
	_, err = c.t.w.Write(append(data, '\n'))
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && c.t.unread != nil {
		c.noticed = true
	}
	return err
}

// awaitRead waits until the client has read every byte written to it, at
// most readWait, and no longer than ctx or the connection; c.writeMu is
// held (what else is to be written would be read after anyway).
func (c *conn) awaitRead(ctx context.Context) {
	deadline := time.Now().Add(readWait)
	for pause := 10 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		if n, ok := c.t.unread(); !ok || n == 0 || ctx.Err() != nil || time.Now().After(deadline) {
			return
		}
		select {
		case <-c.closed:
			return
		case <-time.After(pause):
		}
	}
}

// encodeBatch is the answers to a batch, as one JSON array.
func encodeBatch(answers []*jsonrpc.Response) ([]byte, error) {
	out := []byte{'['}
	for i, a := range answers {
		data, err := jsonrpc.EncodeMessage(a)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, data...)
	}
	return append(out, ']'), nil
}

func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		// Closed first, so that a Read the closing ends says io.EOF.
		close(c.closed)
		c.closeErr = errors.Join(c.t.r.Close(), c.t.w.Close())
	})
	return c.closeErr
}
