package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// SessionLost is the error.type of a session whose connection ended
// under it: an upstream whose process exited, or whose connection broke,
// without folio closing it; a session folio serves whose connection
// failed.
const SessionLost = "session_lost"

// ErrSessionLost is the error of a session lost (see SessionLost): a
// session ended by an error that wraps it has SessionLost as its
// error.type.
var ErrSessionLost error = lostError{}

type lostError struct{}

func (lostError) Error() string     { return "the connection ended under the session" }
func (lostError) ErrorType() string { return SessionLost }

// Session is an MCP session under way, as its duration metric
// (mcp.server.session.duration or mcp.client.session.duration) tells
// it: End records it. A nil *Session records nothing.
type Session struct {
	in     *Instruments
	start  time.Time
	server bool

	mu  sync.Mutex
	op  Operation
	end bool
}

// StartSession starts a session: one folio serves (server) or one it
// has with an upstream. Of op, the session's metric takes
// ProtocolVersion, Transport, Network and NetworkVersion, and, of a
// client's session, Address and Port (server.address and server.port).
// It is nil when metrics are off.
func (in *Instruments) StartSession(op Operation, server bool) *Session {
	if in == nil || in.meter == nil {
		return nil
	}
	return &Session{in: in, start: time.Now(), server: server, op: op.bounded()}
}

// SetProtocolVersion gives the session the protocol version v, when it
// is learnt after the session starts.
func (s *Session) SetProtocolVersion(v string) {
	if s == nil || v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.op.ProtocolVersion = cut(v)
}

// End records the session's duration, once: err is what ended it (its
// error.type, as the conventions make one of an error), nil when the
// session ended as its peer or folio asked.
func (s *Session) End(ctx context.Context, err error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	op, done := s.op, s.end
	s.end = true
	s.mu.Unlock()
	if done {
		return
	}
	attrs := op.sessionAttributes(s.server)
	if err != nil {
		attrs = append(attrs, semconv.ErrorType(err))
	}
	seconds := time.Since(s.start).Seconds()
	if s.server {
		s.in.serverSession.Record(ctx, seconds, attrs...)
	} else {
		s.in.clientSession.Record(ctx, seconds, attrs...)
	}
}

// sessionAttributes are the attributes of a session's duration, as the
// conventions list them: a version a peer made up is Other.
func (op Operation) sessionAttributes(server bool) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if v := op.ProtocolVersion; v != "" {
		if !knownVersion(v) {
			v = Other
		}
		attrs = append(attrs, semconv.McpProtocolVersion(v))
	}
	if op.Transport != "" {
		attrs = append(attrs, semconv.NetworkTransportKey.String(op.Transport))
	}
	if op.Network != "" {
		attrs = append(attrs, semconv.NetworkProtocolName(op.Network))
		if op.NetworkVersion != "" {
			attrs = append(attrs, semconv.NetworkProtocolVersion(op.NetworkVersion))
		}
	}
	if !server && op.Address != "" {
		attrs = append(attrs, semconv.ServerAddress(op.Address))
		if op.Port > 0 {
			attrs = append(attrs, semconv.ServerPort(op.Port))
		}
	}
	return attrs
}
