package upstream

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// isProgressToken reports whether t is a progress token as MCP has them:
// a string or a number (as JSON decodes it, or as Go has it).
func isProgressToken(t any) bool {
	switch t.(type) {
	case string, float64, json.Number, int, int32, int64:
		return true
	}
	return false
}

// progressPrefix starts the progress tokens folio gives upstreams.
const progressPrefix = "folio-"

// progressRoute is where an upstream's progress for a forwarded call goes:
// only what comes from the connection the call went out on counts.
//
// go-sdk hands an upstream's notifications to a goroutine of their own,
// in order, but the answer that follows them straight to the call: a
// notice sent before the answer may be handled after it. So the notices
// are counted as they are read off the wire (read), and again once handled
// (handled); when the answer comes, the call waits until every notice
// read before it is handled (see finish), and then passes on the last one
// held back by the rate bound, if any: the caller has every notice the
// upstream sent before its answer (up to the bound), the last one always,
// all in order and before the answer.
type progressRoute struct {
	from  *mcp.ClientSession
	token any
	send  func(*mcp.ProgressNotificationParams)
	moved chan struct{} // a notice was handled

	// read and handled count the notices: read as the reader of the
	// upstream's connection sees them (never waiting on a lock, so that
	// a slow client keeps no other call's answer from being read),
	// handled once go-sdk has handed them on.
	read, handled atomic.Int64

	mu        sync.Mutex
	allowance float64   // notices that may be passed on now (see pass)
	last      time.Time // when allowance was last reckoned
	finished  bool      // the one that says the work is done was passed on
	held      *mcp.ProgressNotificationParams
	closed    bool // the call has its answer: nothing more goes on
}

// Bounds on the progress passed back to a caller.
const (
	// progressBurst notices of one call are passed on at once, and one
	// more each progressInterval after (but the first that says the
	// work is done, and the last before the answer, which always are).
	progressBurst    = 16
	progressInterval = 20 * time.Millisecond
	// progressMessageLen bounds a progress message passed on.
	progressMessageLen = 1000
	// progressDrainWait bounds how long an answer waits for the
	// notices read before it to be handled.
	progressDrainWait = time.Second
)

// sawProgress counts a progress notification read off an upstream's wire,
// when it is for a call in flight.
func (g *Gateway) sawProgress(token string) {
	if v, ok := g.progress.Load(token); ok {
		v.(*progressRoute).read.Add(1)
	}
}

// forwardProgress passes an upstream's progress notification back to the
// call it is about, under the caller's own token: only for a call in
// flight, from the upstream that call went to; within the rate bound (a
// notice over it is held, and passed on if it is still the last when the
// answer comes); its message cut to progressMessageLen.
func (g *Gateway) forwardProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := g.progress.Load(token)
	if !ok {
		return
	}
	r := v.(*progressRoute)
	defer r.handle()
	if req.Session != r.from {
		return
	}
	p := *req.Params
	p.ProgressToken = r.token
	p.Meta = nil
	if m := []rune(p.Message); len(m) > progressMessageLen {
		p.Message = string(m[:progressMessageLen]) + "…"
	}
	r.mu.Lock()
	done := p.Total > 0 && p.Progress >= p.Total && !r.finished
	if r.closed || (!r.pass() && !done) {
		if !r.closed {
			r.held = &p
		}
		r.mu.Unlock()
		return
	}
	r.finished, r.held = r.finished || done, nil
	r.mu.Unlock()
	// Sent unlocked: go-sdk hands a connection's notices on one at a
	// time, so they go out in order.
	r.send(&p)
}

// pass reports whether a notice may be passed on now, and takes it from
// the allowance: progressBurst at first, one more each progressInterval,
// never more than progressBurst. r.mu is held.
func (r *progressRoute) pass() bool {
	now := time.Now()
	if r.last.IsZero() {
		r.allowance = progressBurst
	} else {
		r.allowance = min(progressBurst, r.allowance+float64(now.Sub(r.last))/float64(progressInterval))
	}
	r.last = now
	if r.allowance < 1 {
		return false
	}
	r.allowance--
	return true
}

// handle counts a notice handled.
func (r *progressRoute) handle() {
	r.handled.Add(1)
	select {
	case r.moved <- struct{}{}:
	default:
	}
}

// finish is called once the call has its answer: it waits until every
// notice read before the answer is handled (at most progressDrainWait,
// and no longer than ctx), passes on the one held back, if any, and
// closes the route.
func (r *progressRoute) finish(ctx context.Context) {
	wait := time.NewTimer(progressDrainWait)
	defer wait.Stop()
wait:
	for r.handled.Load() < r.read.Load() {
		select {
		case <-r.moved:
		case <-wait.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	r.mu.Lock()
	held := r.held
	r.held, r.closed = nil, true
	r.mu.Unlock()
	if held != nil && ctx.Err() == nil {
		r.send(held)
	}
}
