package mcpserver

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/upstream"
)

// Defaults of the session caps.
const (
	DefaultMaxSessions           = 1000
	DefaultMaxSessionsPerSubject = 100
)

// sessionIDHeader names an HTTP session, in requests and in the answer
// that opens it.
const sessionIDHeader = "Mcp-Session-Id"

// sessionTable holds the state of every live session (see sessionState):
// made at a session's first request, dropped when it ends, both here. It
// also counts the HTTP sessions being opened, for the caps.
type sessionTable struct {
	mu   sync.Mutex
	of   map[*mcp.ServerSession]*sessionState
	byID map[string]*sessionState // those with an ID of their own
	// opening counts the sessions being opened, in all and by subject.
	opening   int
	openingBy map[string]int
}

// sessionState is what folio keeps of one session while it lasts.
type sessionState struct {
	// opener is who opened it, when it is an HTTP session.
	opener    sessionOpener
	hasOpener bool
	// connection names a session that has no ID of its own (stdio, or any
	// transport of one connection), once asked (see connectionID).
	connection string
	// catalog is the upstream tools it was given, once it asked.
	catalog *upstream.Catalog
	// subscribedWith is the hash of the token it last subscribed with,
	// so that resources/updated reaches it only while that token may
	// still see the file.
	subscribedWith string
	// tokenHash is the hash of the token its first request showed: whose
	// a listen stream of the sessionless era is.
	tokenHash string
}

type sessionOpener struct {
	subject   string
	tokenHash string // "" without a tokens file
}

func newSessionTable() *sessionTable {
	return &sessionTable{of: map[*mcp.ServerSession]*sessionState{}, byID: map[string]*sessionState{}, openingBy: map[string]int{}}
}

// count is how many sessions are open.
func (t *sessionTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.of)
}

// track makes the state of ss, unless it has one, with the hash of the
// token its request showed: the one place a state is made; the one place
// it is dropped is when ss ends.
func (t *sessionTable) track(ss *mcp.ServerSession, tokenHash string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.of[ss]; ok {
		return
	}
	st := &sessionState{tokenHash: tokenHash}
	t.of[ss] = st
	if id := ss.ID(); id != "" {
		t.byID[id] = st
	}
	go func() {
		ss.Wait()
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.of, ss)
		if id := ss.ID(); id != "" && t.byID[id] == st {
			delete(t.byID, id)
		}
	}()
}

// with calls fn with the state of ss under the table's lock, and reports
// whether ss has one (a session folio has not seen a request of has none).
func (t *sessionTable) with(ss *mcp.ServerSession, fn func(*sessionState)) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok := t.of[ss]
	if ok {
		fn(st)
	}
	return ok
}

// catalogs returns the upstream tools given to each session.
func (t *sessionTable) catalogs() map[*mcp.ServerSession]*upstream.Catalog {
	t.mu.Lock()
	defer t.mu.Unlock()
	given := map[*mcp.ServerSession]*upstream.Catalog{}
	for ss, st := range t.of {
		if st.catalog != nil {
			given[ss] = st.catalog
		}
	}
	return given
}

// sessionlessProtocol is the first MCP version without sessions: its
// requests carry it in Mcp-Protocol-Version, and keep nothing after their
// answer.
const sessionlessProtocol = "2026-07-28"

// protocolVersionHeader carries a request's protocol version over HTTP.
const protocolVersionHeader = "Mcp-Protocol-Version"

// limitSessions refuses a request that would open a session past the caps:
// MaxSessions in all, MaxSessionsPerSubject for one subject. It runs after
// the token check, so that the subject is known. A session is opened by a
// POST with no session ID in a protocol that has sessions.
func (s *Server) limitSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Stateless || r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" ||
			r.Header.Get(protocolVersionHeader) >= sessionlessProtocol {
			next.ServeHTTP(w, r)
			return
		}
		who := sessionOpener{subject: reader.LocalSubject}
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			who.subject = ti.UserID
			who.tokenHash, _ = ti.Extra[identityKey].(string)
		}
		if msg := s.admit(who.subject); msg != "" {
			s.log.Warn("session refused", "subject", who.subject, "reason", msg)
			http.Error(w, msg, http.StatusTooManyRequests)
			return
		}
		defer func() { s.opened(who, w.Header().Get(sessionIDHeader)) }()
		next.ServeHTTP(w, r)
	})
}

// admit counts a session being opened by subject, or says why it may not be.
func (s *Server) admit(subject string) string {
	t := s.sessions
	t.mu.Lock()
	defer t.mu.Unlock()
	open, mine := t.opening, t.openingBy[subject]
	for _, st := range t.of {
		if st.hasOpener {
			open++
			if st.opener.subject == subject {
				mine++
			}
		}
	}
	switch {
	case open >= s.cfg.MaxSessions:
		return fmt.Sprintf("folio has its most sessions open (%d): end sessions you no longer use (HTTP DELETE), or wait for idle ones to close after %v", s.cfg.MaxSessions, sessionTimeout)
	case mine >= s.cfg.MaxSessionsPerSubject:
		return fmt.Sprintf("%s has its most sessions open (%d): end sessions you no longer use (HTTP DELETE), or wait for idle ones to close after %v", subject, s.cfg.MaxSessionsPerSubject, sessionTimeout)
	}
	t.opening++
	t.openingBy[subject]++
	return ""
}

// opened ends what admit began: the session id, if one was opened (and
// lives still), is who's.
func (s *Server) opened(who sessionOpener, id string) {
	t := s.sessions
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opening--
	if t.openingBy[who.subject]--; t.openingBy[who.subject] == 0 {
		delete(t.openingBy, who.subject)
	}
	if st, ok := t.byID[id]; ok && id != "" {
		st.opener, st.hasOpener = who, true
	}
}

// openerOf is who opened the HTTP session ss; ok is false for a session
// of another transport.
func (s *Server) openerOf(ss *mcp.ServerSession) (who sessionOpener, ok bool) {
	s.sessions.with(ss, func(st *sessionState) { who, ok = st.opener, st.hasOpener })
	return who, ok
}
