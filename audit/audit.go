// Package audit is folio's audit log: one JSON line per tool call, who
// called what and how it went, written to standard error or to a file
// kept within a bound (rotated to one older file).
package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// Record is one tool call.
type Record struct {
	Time time.Time `json:"time"`
	// Subject is the caller ("local" over stdio and loopback HTTP without
	// tokens); ClientID the OAuth client its token was issued to, Client
	// the name its MCP client gave.
	Subject  string `json:"subject"`
	ClientID string `json:"client_id,omitempty"`
	Client   string `json:"client,omitempty"`
	// Tool is the tool called (the one call_tool named, in search mode),
	// Upstream its upstream server, if it is one's.
	Tool     string `json:"tool"`
	Upstream string `json:"upstream,omitempty"`
	// Outcome is "ok", "tool_error" (the tool answered with an error) or
	// "refused" (the call was refused before any tool answered; Error
	// says why).
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// Ms is how long the call took; ArgBytes and AnswerBytes the sizes of
	// its arguments (as JSON) and of its answer's text.
	Ms          float64 `json:"ms"`
	ArgBytes    int     `json:"arg_bytes"`
	AnswerBytes int     `json:"answer_bytes"`
	// Args are the call's arguments, only when the log is asked to keep
	// them (and then at most MaxArgBytes of them).
	Args json.RawMessage `json:"args,omitempty"`
}

// MaxArgBytes bounds the arguments a record keeps: larger ones are
// recorded as a JSON string saying how large they were. maxText bounds
// each of a record's strings that a client or an upstream chose (the
// tool's name, the error, the client's name): longer ones are cut.
const (
	MaxArgBytes = 16 << 10
	maxText     = 1 << 10
)

// Log writes records, one JSON line each. It is safe for concurrent use.
type Log struct {
	// Args: records keep their calls' arguments.
	Args bool

	mu   sync.Mutex
	w    io.Writer
	file *os.File // nil for standard error
	path string
	max  int64 // the file's bound; 0 for none
	size int64
}

// Open opens the log at path ("-" for standard error), appending. A file
// that would grow past maxBytes (0: no bound) is first renamed to
// path+".1", replacing the one before, and begun again: the log takes at
// most twice maxBytes on disk.
func Open(path string, maxBytes int64) (*Log, error) {
	if path == "-" {
		return &Log{w: os.Stderr}, nil
	}
	l := &Log{path: path, max: maxBytes}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

// open opens the file for appending, and learns its size.
func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	l.file, l.w, l.size = f, f, info.Size()
	return nil
}

// Write writes r as one line.
func (l *Log) Write(r Record) error {
	for _, s := range []*string{&r.Tool, &r.Upstream, &r.Error, &r.Client, &r.ClientID, &r.Subject} {
		*s = cut(*s)
	}
	if !l.Args {
		r.Args = nil
	} else if len(r.Args) > MaxArgBytes {
		r.Args, _ = json.Marshal(fmt.Sprintf("(%d bytes, over %d)", len(r.Args), MaxArgBytes))
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	var rotateErr error
	if l.file != nil && l.max > 0 && l.size > 0 && l.size+int64(len(b)) > l.max {
		rotateErr = l.rotate()
	}
	n, err := l.w.Write(b)
	l.size += int64(n)
	if err != nil {
		return err
	}
	return rotateErr
}

// rotate renames the file to path.1 and begins a new one. When it cannot,
// the log goes on in the file it has (past its bound, and says so), so
// that no record is lost for a failed rename.
func (l *Log) rotate() error {
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("audit log: not rotated: %w", err)
	}
	old := l.file
	if err := l.open(); err != nil {
		return err
	}
	return old.Close()
}

// Close closes the log's file; a nil log has none.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// cut is s within maxText bytes, cut at a character's start and marked.
func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	i := maxText
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
