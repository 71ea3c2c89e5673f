package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/telemetry"
)

// State is where an upstream is in its life.
type State string

// An upstream's states, as Status and folio's /readyz and metrics tell them.
const (
	// StateStopped: no process and no connection, and nothing failing:
	// not started yet (an upstream started on demand whose tools the
	// cache gave), stopped for being idle, or removed.
	StateStopped State = "stopped"
	// StateStarting: its process is starting, or its connection is being
	// made.
	StateStarting State = "starting"
	// StateRunning: connected, its process (stdio) running.
	StateRunning State = "running"
	// StateBackingOff: it failed more than once in a row; it is not
	// started again before Status.RetryAt, and its calls until then are
	// answered that it is unavailable, and until when.
	StateBackingOff State = "backing_off"
	// StateFailed: its last start failed, or it exited unasked; the next
	// call or discovery starts it again.
	StateFailed State = "failed"
)

// States are every State, in the order of an upstream's life.
var States = []State{StateStopped, StateStarting, StateRunning, StateBackingOff, StateFailed}

// Status is one upstream's life as it stands.
type Status struct {
	Name      string `json:"name"`
	State     State  `json:"state"`
	Transport string `json:"transport"`
	// PID is the process of a running or starting stdio upstream.
	PID int `json:"pid,omitempty"`
	// Since is when the upstream came to its state.
	Since time.Time `json:"since,omitzero"`
	// OnDemand: not started before a call needs it; IdleTimeoutMs: after
	// how long without a call it is stopped (0: never).
	OnDemand      bool  `json:"on_demand"`
	IdleTimeoutMs int64 `json:"idle_timeout_ms"`
	// Starts counts its starts that succeeded; Exits, the times it exited
	// or its connection ended without folio asking; Failures, its
	// failures in a row (starts, exits, lost connections).
	Starts   int64 `json:"starts"`
	Exits    int64 `json:"exits"`
	Failures int   `json:"failures"`
	// LastError is why it last failed (kept after it recovers).
	LastError string `json:"last_error,omitempty"`
	// RetryAt is when an upstream backing off is tried again.
	RetryAt time.Time `json:"retry_at,omitzero"`
	// Tools is how many tools the catalog offers of it.
	Tools int `json:"tools"`
}

// UnavailableError is the error of a call to an upstream that is backing
// off: it is not started again before RetryAt. It is an ErrConnect.
type UnavailableError struct {
	Upstream  string
	Failures  int
	LastError string
	RetryAt   time.Time
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("upstream %s failed %d times in a row (last: %s); it is tried again at %s, in %s",
		e.Upstream, e.Failures, e.LastError, e.RetryAt.UTC().Format(time.RFC3339), time.Until(e.RetryAt).Round(time.Second))
}

// Is makes an UnavailableError an ErrConnect.
func (e *UnavailableError) Is(target error) bool { return target == ErrConnect }

// Backoff defaults: the wait after the second failure in a row, doubled
// with each failure after it up to the most.
const (
	DefaultBackoff    = time.Second
	DefaultBackoffMax = 5 * time.Minute
)

// lastErrorLen bounds the last error a Status tells.
const lastErrorLen = 500

// link is the one connection to an upstream, and its life: started on
// first use (or at once), stopped when idle, started again after it exits,
// not before its backoff when it keeps failing.
type link struct {
	server  Server
	fp      string // server's fingerprint
	client  *mcp.Client
	log     *slog.Logger
	watch   *watch // what is read off its connections
	timeout time.Duration
	// backoff and backoffMax: see Options.
	backoff, backoffMax time.Duration
	// startedForCall is told each start a call asked for.
	startedForCall func()

	// refreshMu guards refreshing (a discovery asked for by the upstream
	// runs) and again (another is asked for after it).
	refreshMu         sync.Mutex
	refreshing, again bool

	// connecting is held while connecting: one connection, however many
	// calls.
	connecting sync.Mutex

	// mu guards the rest.
	mu       sync.Mutex
	cs       *mcp.ClientSession
	cancel   context.CancelFunc
	closed   bool
	onDemand bool
	idle     time.Duration
	listed   Server // whose AlwaysListed and AllListed hold
	starting bool
	pid      int
	since    time.Time
	starts   int64
	exits    int64
	failures int
	lastErr  string
	retryAt  time.Time
	// busy counts the calls and discoveries using the link; idleRound
	// counts its changes, so that an idle timer set before one does
	// nothing.
	busy      int
	idleRound int
	idleTimer *time.Timer
	// telemetry traces and measures its connections' requests and
	// sessions (see connect).
	telemetry *telemetry.Instruments
}

// settle takes the settings of s that are not its fingerprint's: on
// demand, idle timeout, always listed; and opt's telemetry.
func (l *link) settle(s Server, opt Options) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.telemetry = opt.Telemetry
	l.onDemand, l.idle = opt.OnDemand, opt.IdleTimeout
	if s.OnDemand != nil {
		l.onDemand = *s.OnDemand
	}
	if s.IdleTimeout != nil {
		l.idle = *s.IdleTimeout
	}
	l.listed = s
}

// wait is how long the upstream is left alone after failures in a row:
// nothing after one, then backoff, doubled with each more up to
// backoffMax.
func (l *link) wait(failures int) time.Duration {
	if failures < 2 {
		return 0
	}
	n := failures - 2
	if n > 30 {
		return l.backoffMax
	}
	return min(l.backoff<<n, l.backoffMax)
}

// fail records a failure: err is why. l.mu is held.
func (l *link) fail(err error) {
	now := time.Now()
	l.failures++
	l.lastErr = cut(err.Error(), lastErrorLen)
	l.retryAt = now.Add(l.wait(l.failures))
	l.since = now
}

// succeeded records that the upstream answered on cs: its failures in a
// row end, unless cs has ended since (an answer just before a crash
// does not undo it).
func (l *link) succeeded(cs *mcp.ClientSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cs == cs {
		l.failures, l.retryAt = 0, time.Time{}
	}
}

// running reports whether the upstream is connected.
func (l *link) running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cs != nil
}

// session returns the live connection, connecting when there is none (or
// the last one died), within the timeout; a connection under way is given
// up when ctx ends. An upstream backing off is not tried: its error is an
// UnavailableError. forCall tells a start a call asked for.
func (l *link) session(ctx context.Context, forCall bool) (*mcp.ClientSession, error) {
	l.connecting.Lock()
	defer l.connecting.Unlock()
	l.mu.Lock()
	switch {
	case l.closed:
		l.mu.Unlock()
		return nil, fmt.Errorf("upstream %s is not configured any more, or folio is closing", l.server.Name)
	case l.cs != nil:
		cs := l.cs
		l.mu.Unlock()
		return cs, nil
	case time.Now().Before(l.retryAt):
		err := &UnavailableError{Upstream: l.server.Name, Failures: l.failures, LastError: l.lastErr, RetryAt: l.retryAt}
		l.mu.Unlock()
		return nil, err
	}
	l.starting, l.since = true, time.Now()
	in := l.telemetry
	l.mu.Unlock()
	// The context bounds the process's life; the timer only its start.
	life, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(l.timeout, cancel)
	given := context.AfterFunc(ctx, cancel)
	cs, err := connect(life, l.server, l.client, l.log, l.watch, in, func(pid int) {
		l.mu.Lock()
		l.pid = pid
		l.mu.Unlock()
	})
	if inTime, wanted := timer.Stop(), given(); (!inTime || !wanted) && err == nil {
		cs.Close()
		err = fmt.Errorf("upstream %s did not start within %v", l.server.Name, l.timeout)
		if !wanted {
			err = fmt.Errorf("upstream %s: the connection was given up: %w", l.server.Name, ctx.Err())
		}
	}
	l.mu.Lock()
	l.starting = false
	if err == nil && l.closed {
		err = fmt.Errorf("upstream %s is not configured any more, or folio is closing", l.server.Name)
		cs.Close()
	}
	if err != nil {
		l.pid = 0
		if ctx.Err() == nil {
			l.fail(err)
		} else {
			// The caller left: not the upstream's failure.
			l.since = time.Now()
		}
		l.mu.Unlock()
		cancel()
		return nil, err
	}
	l.cs, l.cancel = cs, cancel
	l.starts++
	l.since = time.Now()
	l.mu.Unlock()
	l.log.Info("upstream started", "upstream", l.server.Name, "pid", l.pidOf())
	go func() {
		cs.Wait()
		l.mu.Lock()
		if l.cs == cs {
			// Not ended by folio: it exited, or its connection did.
			l.cs, l.pid = nil, 0
			l.exits++
			l.fail(errors.New(map[bool]string{true: "its process exited", false: "its connection ended"}[l.server.Transport == Stdio]))
			l.log.Warn("upstream exited unasked: the next call starts it again", "upstream", l.server.Name, "failures_in_a_row", l.failures)
		}
		l.mu.Unlock()
		cancel()
	}()
	if forCall && l.startedForCall != nil {
		l.startedForCall()
	}
	return cs, nil
}

// pidOf is the upstream's process, 0 when it has none.
func (l *link) pidOf() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pid
}

// drop forgets cs, when it is still the link's, as a connection that
// failed (err), and ends it.
func (l *link) drop(cs *mcp.ClientSession, err error) {
	l.mu.Lock()
	cancel := func() {}
	if l.cs == cs {
		l.cs, l.pid = nil, 0
		cancel = l.cancel
		l.fail(err)
	}
	l.mu.Unlock()
	cs.Close()
	cancel()
}

// acquire marks the link in use: it is not stopped for being idle until
// release.
func (l *link) acquire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.busy++
	l.idleRound++
	if l.idleTimer != nil {
		l.idleTimer.Stop()
		l.idleTimer = nil
	}
}

// release ends a use (see acquire). When nothing else uses the link, it
// is stopped now (stopNow) or after its idle timeout (when it has one).
func (l *link) release(stopNow bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.busy--
	l.idleRound++
	if l.busy > 0 || l.cs == nil || l.closed {
		return
	}
	round := l.idleRound
	switch {
	case stopNow:
		go l.stopIdle(round, "started for a discovery only (on demand)")
	case l.idle > 0:
		l.idleTimer = time.AfterFunc(l.idle, func() { l.stopIdle(round, "idle") })
	}
}

// stopIdle stops the upstream when nothing has used it since round.
func (l *link) stopIdle(round int, why string) {
	l.mu.Lock()
	if round != l.idleRound || l.busy > 0 || l.cs == nil {
		l.mu.Unlock()
		return
	}
	cs, cancel, pid := l.cs, l.cancel, l.pid
	l.cs, l.pid, l.since = nil, 0, time.Now()
	l.mu.Unlock()
	l.log.Info("upstream stopped", "upstream", l.server.Name, "why", why, "pid", pid)
	cs.Close()
	cancel()
}

// close ends the link for good, and its connection (a stdio upstream's
// process group is gone when it returns).
func (l *link) close() {
	l.mu.Lock()
	l.closed = true
	l.idleRound++
	if l.idleTimer != nil {
		l.idleTimer.Stop()
	}
	cs, cancel := l.cs, l.cancel
	l.cs, l.pid, l.since = nil, 0, time.Now()
	l.mu.Unlock()
	if cs != nil {
		cs.Close()
		cancel()
	}
}

// status is the link's life as it stands; tools is what the catalog
// offers of it.
func (l *link) status(tools int) Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Status{Name: l.server.Name, Transport: l.server.Transport, PID: l.pid, Since: l.since, OnDemand: l.onDemand,
		IdleTimeoutMs: l.idle.Milliseconds(), Starts: l.starts, Exits: l.exits, Failures: l.failures, LastError: l.lastErr, Tools: tools}
	now := time.Now()
	switch {
	case l.closed:
		st.State = StateStopped
	case l.starting:
		st.State = StateStarting
	case l.cs != nil:
		st.State = StateRunning
	case l.failures > 0 && now.Before(l.retryAt):
		st.State, st.RetryAt = StateBackingOff, l.retryAt
	case l.failures > 0:
		st.State = StateFailed
	default:
		st.State = StateStopped
	}
	return st
}

// onDemandNow reports whether the upstream is started only when a call
// needs it.
func (l *link) onDemandNow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.onDemand
}

// listedNow reports whether the upstream's tool original is always listed
// (see Server.Listed).
func (l *link) listedNow(original string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.listed.Listed(original)
}
