package mcpserver

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zeebo/blake3"

	"github.com/folio-mcp/folio/audit"
	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/atomicfile"
	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/telemetry"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/upstream"
)

// counters caches the loaded vocabularies across tests.
var counters sync.Map

func counter(t testing.TB, name string) pager.Counter {
	t.Helper()
	if c, ok := counters.Load(name); ok {
		return c.(pager.Counter)
	}
	c, err := tokencount.New(name)
	if err != nil {
		t.Fatal(err)
	}
	counters.Store(name, c)
	return c
}

// env is a served directory and what serves it.
type env struct {
	dir    string
	fs     *fsview.FS
	ring   *cursor.Ring
	tokens string // path of the tokens file, "" without
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvAt(t, t.TempDir())
}

// newEnvAt serves the directory dir.
func newEnvAt(t testing.TB, dir string) *env {
	t.Helper()
	fs, err := fsview.Open([]string{dir}, fsview.Options{Deny: fsview.DefaultDeny(), MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	ring, err := cursor.NewRing(bytes.Repeat([]byte{9}, cursor.KeyLen))
	if err != nil {
		t.Fatal(err)
	}
	return &env{dir: dir, fs: fs, ring: ring}
}

func (e *env) write(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return fileuri.Of(p)
}

// addToken adds a token for subject to the env's tokens file.
func (e *env) addToken(t testing.TB, subject string, allow ...string) string {
	t.Helper()
	return e.addTokenWith(t, subject, allow, nil)
}

// addTokenTools adds a token for subject that may use only the tools.
func (e *env) addTokenTools(t testing.TB, subject string, tools ...string) string {
	t.Helper()
	return e.addTokenWith(t, subject, nil, tools)
}

func (e *env) addTokenWith(t testing.TB, subject string, allow, tools []string) string {
	t.Helper()
	if e.tokens == "" {
		e.tokens = filepath.Join(t.TempDir(), "tokens.json")
	}
	tok, err := tokens.Add(e.tokens, subject, allow, tools)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// setAllow rewrites the allow list of the i-th token in the env's tokens
// file, as an administrator editing it would.
func (e *env) setAllow(t testing.TB, i int, allow ...string) {
	t.Helper()
	var f struct {
		Tokens []map[string]any `json:"tokens"`
	}
	b, err := os.ReadFile(e.tokens)
	if err != nil || json.Unmarshal(b, &f) != nil || i >= len(f.Tokens) {
		t.Fatalf("tokens file: %v", err)
	}
	f.Tokens[i]["allow"] = allow
	b, _ = json.Marshal(f)
	if err := atomicfile.Write(e.tokens, b); err != nil {
		t.Fatal(err)
	}
}

type serverOpts struct {
	stateless bool
	counter   string
	// toolSearch is the gateway's search mode (auto when empty).
	toolSearch string
	// local serves without the tokens file, as stdio does.
	local bool
	// store keeps folded answers; a fresh memory store when nil.
	store fold.Store
	// threshold is the fold threshold; fold.DefaultThresholdBytes when 0.
	threshold int
	log       *slog.Logger
	// grepTimeout and maxAnswerBytes are the server's; its defaults when 0.
	grepTimeout    time.Duration
	maxAnswerBytes int
	bodyTimeout    time.Duration
	// tokensNow is the tokens file's clock; time.Now when nil.
	tokensNow func() time.Time
	// gateway offers upstream tools too.
	gateway *upstream.Gateway
	// telemetry traces and measures requests.
	telemetry *telemetry.Instruments
	// foldTTL is how long folded answers last; fold's default when 0.
	foldTTL time.Duration
	// noReferenceArgs keeps upstream schemas as they are.
	noReferenceArgs bool
	// docs indexes the served documents for search_docs.
	docs bool
	// audit is the audit log, none when nil.
	audit *audit.Log
}

func (e *env) server(t testing.TB, o serverOpts) *Server {
	t.Helper()
	if o.counter == "" {
		o.counter = tokencount.O200kBase
	}
	cfg := Config{FS: e.fs, Cursors: cursor.NewCodec(e.ring, time.Hour, time.Now), Counter: counter(t, o.counter), Stateless: o.stateless, Version: "test", Logger: o.log,
		GrepTimeout: o.grepTimeout, MaxAnswerBytes: o.maxAnswerBytes, BodyTimeout: o.bodyTimeout, Gateway: o.gateway, NoReferenceArgs: o.noReferenceArgs,
		ToolSearch: o.toolSearch, Telemetry: o.telemetry, Audit: o.audit}
	if o.store == nil {
		o.store = fold.NewMemoryStore(100, fold.DefaultStoreMaxBytes, nil)
	}
	fopt := fold.DefaultOptions()
	if o.threshold != 0 {
		fopt.ThresholdBytes = o.threshold
	}
	if o.foldTTL != 0 {
		fopt.TTL = o.foldTTL
	}
	folder, err := fold.New(bytes.Repeat([]byte{5}, fold.SecretLen), o.store, cfg.Counter, fopt)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Fold = folder
	if o.docs {
		cfg.Docs = docsearch.NewTree(e.fs, docsearch.TreeOptions{})
	}
	if e.tokens != "" && !o.local {
		tk, err := tokens.Open(e.tokens, cfg.Logger, o.tokensNow)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tokens = tk
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serveHTTP serves s on loopback and returns the /mcp endpoint.
func serveHTTP(t testing.TB, s *Server) string {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// dialHTTP connects a go-sdk client to endpoint with token ("" for none),
// in the era the client negotiates: 2026-07-28, sessionless.
func dialHTTP(t testing.TB, endpoint, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return dialHTTPEra(t, endpoint, token, "", opts)
}

// sessionEra is the last protocol version with sessions.
const sessionEra = "2025-11-25"

// dialSession connects as dialHTTP does, in the era of sessions.
func dialSession(t testing.TB, endpoint, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return dialHTTPEra(t, endpoint, token, sessionEra, opts)
}

func dialHTTPEra(t testing.TB, endpoint, token, era string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := tryDialHTTP(endpoint, token, era, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tryDialHTTP connects as dialHTTPEra does; era "" is the client's choice.
func tryDialHTTP(endpoint, token, era string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: remote.HTTPClient(token)}, &mcp.ClientSessionOptions{ProtocolVersion: era})
}

// dialMemory connects a client to s in memory, as stdio would, in the
// era the client negotiates: 2026-07-28.
func dialMemory(t testing.TB, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return dialMemoryEra(t, s, "", opts)
}

// dialMemoryEra connects as dialMemory does, in era ("" for the client's
// choice).
func dialMemoryEra(t testing.TB, s *Server, era string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// result is a tool answer, read the way a model would.
type result struct {
	text    string
	isError bool
	code    string
	meta    mcp.Meta
	raw     *mcp.CallToolResult
}

func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) result {
	t.Helper()
	res := mcptest.Call(t, cs, tool, args)
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", tool, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", tool, res.Content[0])
	}
	r := result{text: tc.Text, isError: res.IsError, meta: res.Meta, raw: res}
	if res.IsError {
		var body struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal([]byte(tc.Text), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
			t.Fatalf("%s: error body %q is not the contract's", tool, tc.Text)
		}
		r.code = body.Error.Code
	}
	return r
}

// hashOf is the version of the file at path, as pages give it.
func hashOf(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(b)
	return hex.EncodeToString(sum[:fsview.VersionLen])
}

// wantCode fails unless r is the error code.
func wantCode(t testing.TB, r result, code string) {
	t.Helper()
	if !r.isError || r.code != code {
		t.Fatalf("got %.500q, want error %s", r.text, code)
	}
}

func toolCall(name string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}
