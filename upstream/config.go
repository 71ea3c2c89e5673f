package upstream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Server is one configured upstream, its ${VAR}s expanded.
type Server struct {
	Name string
	// Transport is Stdio (Command, Args, Env, Cwd), or HTTP or SSE (URL,
	// Headers).
	Transport string
	Command   string
	Args      []string
	Env       map[string]string
	Cwd       string
	URL       string
	Headers   map[string]string
	// OAuth, for an HTTP server, gets folio a token of its own when the
	// server requires one.
	OAuth *OAuth
	// AlwaysListed names the server's tools (by their own names) that
	// tools/list offers even in search mode; AllListed offers them all.
	AlwaysListed []string
	AllListed    bool
	// OnDemand, when set, overrides the gateway's Options.OnDemand for
	// this server; IdleTimeout, when set, its Options.IdleTimeout (zero:
	// never stopped for being idle). Neither is part of the fingerprint:
	// changing them restarts nothing.
	OnDemand    *bool
	IdleTimeout *time.Duration
}

// Listed reports whether the server's tool original is always listed.
func (s Server) Listed(original string) bool {
	return s.AllListed || slices.Contains(s.AlwaysListed, original)
}

// entry is a server as the file gives it.
type entry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// OAuth: see Server.OAuth.
	OAuth *oauthEntry `json:"oauth"`
	// AlwaysListed is true (every tool) or the names of tools that
	// tools/list offers even in search mode.
	AlwaysListed json.RawMessage `json:"alwaysListed"`
	// StartOnDemand and IdleTimeoutMs: see Server.OnDemand and
	// Server.IdleTimeout.
	StartOnDemand *bool  `json:"startOnDemand"`
	IdleTimeoutMs *int64 `json:"idleTimeoutMs"`
}

// ErrConfig is the error of a configuration that cannot be used; its
// message names the server and the field.
var ErrConfig = errors.New("upstreams")

// serverName is what a server's name may be: it prefixes its tools' names.
var serverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`) })

// Parse reads an mcpServers file: {"mcpServers":{"NAME":{…}}}, each entry
// either {"command","args","env","cwd"} (stdio; "type":"stdio" optional) or
// {"type":"http","url","headers","oauth"} ("sse" for the older HTTP
// transport, without "oauth"), and optionally "alwaysListed" (true, or
// tool names: see Server). ${VAR} in args, env, url and headers is
// replaced by the variable's value from lookup (os.LookupEnv in folio); an
// unset variable is an error. Other members of an entry (other clients'
// settings) are ignored. The servers come back sorted by name; two whose
// names make ambiguous prefixes are refused (see CheckNames).
func Parse(data []byte, lookup func(string) (string, bool)) ([]Server, error) {
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%w: not an mcpServers file: %v", ErrConfig, err)
	}
	if file.MCPServers == nil {
		return nil, fmt.Errorf(`%w: no "mcpServers" object`, ErrConfig)
	}
	var out []Server
	for name, raw := range file.MCPServers {
		s, err := parseServer(name, raw, lookup)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	if err := CheckNames(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Load reads and parses the mcpServers file at path, expanding ${VAR} from
// folio's environment.
func Load(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	servers, err := Parse(data, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return servers, nil
}

func parseServer(name string, raw json.RawMessage, lookup func(string) (string, bool)) (Server, error) {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: server %q, %s: %s", ErrConfig, name, field, fmt.Sprintf(format, args...))
	}
	if !serverName().MatchString(name) {
		return Server{}, bad("name", "use 1 to 32 letters, digits and _ . - (it prefixes the server's tools: %s__tool)", name)
	}
	var e entry
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		return Server{}, bad("entry", "%v", err)
	}
	expand := func(field, v string) (string, error) {
		out, err := expandVars(v, lookup)
		if err != nil {
			return "", bad(field, "%v", err)
		}
		return out, nil
	}
	kind, ok := transportNames[e.Type]
	if !ok {
		return Server{}, bad("type", "%q is not a transport folio speaks: use \"stdio\", \"http\" or \"sse\"", e.Type)
	}
	s := Server{Name: name, Transport: kind}
	if err := transports[kind].parse(&s, e, expand, bad); err != nil {
		return Server{}, err
	}
	if len(e.AlwaysListed) > 0 {
		if json.Unmarshal(e.AlwaysListed, &s.AllListed) != nil && json.Unmarshal(e.AlwaysListed, &s.AlwaysListed) != nil {
			return Server{}, bad("alwaysListed", "want true, or an array of the server's tool names")
		}
	}
	s.OnDemand = e.StartOnDemand
	if ms := e.IdleTimeoutMs; ms != nil {
		if *ms < 0 || *ms > maxIdleTimeoutMs {
			return Server{}, bad("idleTimeoutMs", "want 0 (never stop it for being idle) to %d milliseconds", int64(maxIdleTimeoutMs))
		}
		d := time.Duration(*ms) * time.Millisecond
		s.IdleTimeout = &d
	}
	return s, nil
}

// maxIdleTimeoutMs bounds an idle timeout: a week.
const maxIdleTimeoutMs = 7 * 24 * 3600 * 1000

// varRef is one ${NAME} in a value.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// expandVars replaces each ${NAME} in v by the variable's value.
func expandVars(v string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := varRef().ReplaceAllStringFunc(v, func(ref string) string {
		name := ref[2 : len(ref)-1]
		val, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("${%s} is not set in folio's environment", missing[0])
	}
	return out, nil
}

// Fingerprint is a stable hash of the server's configuration after ${VAR}
// expansion: any edit to its entry (or to a variable it uses) changes it.
// It is the hex SHA-256 of a canonical JSON array of the fields in a fixed
// order, maps as sorted [key, value] pairs, so that it neither depends on
// Go's map order nor shows a secret it was made from.
func (s Server) Fingerprint() string {
	pairs := func(m map[string]string) [][2]string {
		out := [][2]string{}
		for k, v := range m {
			out = append(out, [2]string{k, v})
		}
		slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		return out
	}
	args := s.Args
	if args == nil {
		args = []string{}
	}
	fields := []any{"folio upstream 1", s.Name, s.Transport, s.Command, args, pairs(s.Env), s.Cwd, s.URL, pairs(s.Headers)}
	if o := s.OAuth; o != nil {
		fields = append(fields, []any{o.Issuer, o.ClientID, o.SecretEnv, o.SecretFile, o.Scopes})
	}
	b, _ := json.Marshal(fields)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
