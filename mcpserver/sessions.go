package mcpserver

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/folio-mcp/folio/reader"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the session caps.
const (
	DefaultMaxSessions           = 1000
	DefaultMaxSessionsPerSubject = 100
)

// sessionIDHeader names an HTTP session, in requests and in the answer
// that opens it.
const sessionIDHeader = "Mcp-Session-Id"

// sessions knows who opened each HTTP session, and caps them.
type sessions struct {
	mu sync.Mutex
	// opener is the caller that opened each live session, by session ID.
	opener map[string]sessionOpener
	// opening counts the sessions being opened, in all and by subject.
	opening   int
	openingBy map[string]int
}

type sessionOpener struct {
	subject   string
	tokenHash string // "" without a tokens file
}

// sessionlessProtocol is the first MCP version without sessions: its
// requests carry it in Mcp-Protocol-Version, and keep nothing after their
// answer.
const sessionlessProtocol = "2026-07-28"

// limitSessions refuses a request that would open a session past the caps:
// MaxSessions in all, MaxSessionsPerSubject for one subject. It runs after
// the token check, so that the subject is known. A session is opened by a
// POST with no session ID in a protocol that has sessions.
func (s *Server) limitSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Stateless || r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" ||
			r.Header.Get("Mcp-Protocol-Version") >= sessionlessProtocol {
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
	t := &s.sessions
	t.mu.Lock()
	defer t.mu.Unlock()
	live := map[string]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss.ID()] = true
	}
	mine := t.openingBy[subject]
	for id, who := range t.opener {
		switch {
		case !live[id]:
			delete(t.opener, id)
		case who.subject == subject:
			mine++
		}
	}
	switch {
	case len(t.opener)+t.opening >= s.cfg.MaxSessions:
		return fmt.Sprintf("folio has its most sessions open (%d): end sessions you no longer use (HTTP DELETE), or wait for idle ones to close after %v", s.cfg.MaxSessions, sessionTimeout)
	case mine >= s.cfg.MaxSessionsPerSubject:
		return fmt.Sprintf("%s has its most sessions open (%d): end sessions you no longer use (HTTP DELETE), or wait for idle ones to close after %v", subject, s.cfg.MaxSessionsPerSubject, sessionTimeout)
	}
	t.opening++
	t.openingBy[subject]++
	return ""
}

// opened ends what admit began: the session id (if one was opened) is who's.
func (s *Server) opened(who sessionOpener, id string) {
	t := &s.sessions
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opening--
	if t.openingBy[who.subject]--; t.openingBy[who.subject] == 0 {
		delete(t.openingBy, who.subject)
	}
	if id != "" {
		t.opener[id] = who
	}
}

// openerOf is who opened the HTTP session ss; ok is false for a session
// of another transport.
func (s *Server) openerOf(ss *mcp.ServerSession) (sessionOpener, bool) {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	who, ok := s.sessions.opener[ss.ID()]
	return who, ok
}
