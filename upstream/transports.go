package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/telemetry"
)

// Transports an upstream is reached by.
const (
	Stdio = "stdio"
	HTTP  = "http"
	// SSE is the older HTTP+SSE transport (protocol 2024-11-05).
	SSE = "sse"
)

// transport is how folio reaches upstreams of one kind: how their entry
// in the mcpServers file is read, and how folio connects to one. Adding a
// transport is adding a row to transports, and one to TestTransports
// (transports_test.go), which holds it to upstream/transporttest's checks.
type transport struct {
	// parse fills in s from the entry e, its ${VAR}s expanded by expand;
	// field errors are made by bad.
	parse func(s *Server, e entry, expand func(field, v string) (string, error), bad func(field, format string, args ...any) error) error
	// connect is the go-sdk transport to s, for as long as ctx lasts,
	// watched by w, and traced and measured by in (see connect); what the
	// upstream tells besides MCP goes to log; a process it starts is told
	// to started (when not nil) by its PID.
	connect func(ctx context.Context, s Server, log *slog.Logger, w *watch, in *telemetry.Instruments, started func(pid int)) mcp.Transport
}

// transports are the transports folio speaks, by the name Server.Transport
// gives them.
var transports = map[string]transport{
	Stdio: {parse: parseStdio, connect: func(ctx context.Context, s Server, log *slog.Logger, w *watch, in *telemetry.Instruments, started func(pid int)) mcp.Transport {
		cmd := exec.CommandContext(ctx, s.Command, s.Args...)
		cmd.Env = os.Environ()
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Dir = s.Cwd
		return in.ClientTransport(watchedTransport{&stdioTransport{cmd: cmd, name: s.Name, log: log, started: started}, w}, endpoint(s))
	}},
	// A streamable HTTP connection is neither watched nor traced by a
	// wrapper, which would hide what go-sdk tells it of the session (see
	// watchedTransport): both read its HTTP exchanges. Its event size is
	// given: go-sdk v1.8.0's streamable client reads a MaxEventSize of 0
	// as no bound at all (its SSE client as DefaultMaxEventSize).
	HTTP: {parse: parseHTTP, connect: func(_ context.Context, s Server, _ *slog.Logger, w *watch, in *telemetry.Instruments, _ func(int)) mcp.Transport {
		rt := in.ClientHTTP(headers{s.Headers, http.DefaultTransport, w}, endpoint(s))
		t := &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &http.Client{Transport: rt}, MaxEventSize: MaxMessageBytes}
		if s.OAuth != nil {
			h, err := s.OAuth.handler(s.URL)
			if err != nil {
				h = failing{err}
			}
			t.OAuthHandler = h
		}
		return t
	}},
	SSE: {parse: parseHTTP, connect: func(_ context.Context, s Server, _ *slog.Logger, w *watch, in *telemetry.Instruments, _ func(int)) mcp.Transport {
		t := watchedTransport{&mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: &http.Client{Transport: headers{s.Headers, http.DefaultTransport, nil}}}, w}
		return in.ClientTransport(t, endpoint(s))
	}},
}

// transportNames maps each "type" an entry may give to its transport:
// other clients' names for the same transports are taken too.
var transportNames = map[string]string{"": Stdio, Stdio: Stdio, HTTP: HTTP, "streamable-http": HTTP, "streamableHttp": HTTP, SSE: SSE}

func parseStdio(s *Server, e entry, expand func(field, v string) (string, error), bad func(field, format string, args ...any) error) error {
	if e.Command == "" {
		return bad("command", "a stdio server needs a command (or give \"type\":\"http\" and a url)")
	}
	if e.URL != "" || len(e.Headers) > 0 {
		return bad("url", "a stdio server takes no url or headers")
	}
	s.Command, s.Cwd = e.Command, e.Cwd
	for i, a := range e.Args {
		v, err := expand(fmt.Sprintf("args[%d]", i), a)
		if err != nil {
			return err
		}
		s.Args = append(s.Args, v)
	}
	var err error
	s.Env, err = expandAll("env", e.Env, expand)
	return err
}

// expandAll is m with its values expanded, nil when m is empty.
func expandAll(field string, m map[string]string, expand func(field, v string) (string, error)) (map[string]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for k, v := range m {
		var err error
		if out[k], err = expand(field+"."+k, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func parseHTTP(s *Server, e entry, expand func(field, v string) (string, error), bad func(field, format string, args ...any) error) error {
	if e.URL == "" {
		return bad("url", "an %s server needs a url", s.Transport)
	}
	if e.Command != "" || len(e.Args) > 0 || len(e.Env) > 0 || e.Cwd != "" {
		return bad("command", "an %s server takes no command, args, env or cwd", s.Transport)
	}
	var err error
	if s.URL, err = expand("url", e.URL); err != nil {
		return err
	}
	if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return bad("url", "%q is not an http:// or https:// URL", s.URL)
	}
	if s.Headers, err = expandAll("headers", e.Headers, expand); err != nil {
		return err
	}
	if e.OAuth == nil {
		return nil
	}
	if s.Transport != HTTP {
		return bad("oauth", "only an http server takes oauth")
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return bad("oauth", "an Authorization header would replace the token oauth gets: give one or the other")
		}
	}
	if s.OAuth, err = parseOAuth(e.OAuth); err != nil {
		return bad("oauth", "%v", err)
	}
	return nil
}
