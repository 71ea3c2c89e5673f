package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/audit"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// auditRecords are the records of the audit log at path.
func auditRecords(t *testing.T, path string) []audit.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Record
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// addToken adds a token of subject to the tokens file, with its tools.
func addToken(t *testing.T, tokens, subject string, tools ...string) string {
	t.Helper()
	args := []string{"token", "add", "--tokens", tokens, "--subject", subject}
	for _, tool := range tools {
		args = append(args, "--tool", tool)
	}
	r := folio(t, "", args...)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// TestAuditLog: every tool call is a line of the audit log, whoever made
// it and however it went, its upstream named, its arguments kept only when
// asked; over stdio too.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "a.md", "audited\n")
	work := t.TempDir()
	tokens := filepath.Join(work, "tokens.json")
	alice := addToken(t, tokens, "alice", "read", "fake__*")
	upstreams := filepath.Join(work, "mcp.json")
	writeUpstreams(t, upstreams, map[string]any{"fake": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-tools", "echo"}}})
	log := filepath.Join(work, "audit.log")
	p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--tokens", tokens, "--audit-log", log,
		"--upstreams", upstreams, "--schema-cache", filepath.Join(work, "cache.json"), "--tool-search", "off")
	cs := dial(t, httpTransport(p.endpoint, alice))
	ctx := context.Background()
	for _, call := range []*mcp.CallToolParams{
		{Name: "read", Arguments: map[string]any{"path": "a.md", "max_tokens": 500}},
		{Name: "read", Arguments: map[string]any{"path": "missing.md", "max_tokens": 500}},
		{Name: "fake__echo", Arguments: map[string]any{"secret": "s3"}},
		{Name: "grep", Arguments: map[string]any{"pattern": "x"}},
	} {
		cs.CallTool(ctx, call)
	}
	cs.Close()
	got := auditRecords(t, log)
	want := []struct{ tool, upstream, outcome string }{{"read", "", "ok"}, {"read", "", "tool_error"}, {"fake__echo", "fake", "ok"}, {"grep", "", "refused"}}
	if len(got) != len(want) {
		t.Fatalf("%d records: %+v", len(got), got)
	}
	for i, w := range want {
		r := got[i]
		if r.Tool != w.tool || r.Upstream != w.upstream || r.Outcome != w.outcome || r.Subject != "alice" || r.Client != "test" || r.ArgBytes == 0 || r.Args != nil || r.Time.IsZero() {
			t.Errorf("record %d: %+v, want %+v", i, r, w)
		}
	}
	if got[0].AnswerBytes == 0 || !strings.Contains(got[3].Error, "unknown tool") {
		t.Errorf("an answer's size, a refusal's reason: %+v %+v", got[0], got[3])
	}
	if b, _ := os.ReadFile(log); strings.Contains(string(b), "s3") {
		t.Error("an argument's value is in the log without --audit-args")
	}

	// Over stdio, with the arguments.
	stdioLog := filepath.Join(work, "stdio.log")
	cmd := exec.Command(folioBin, "serve", "--root", dir, "--audit-log", stdioLog, "--audit-args")
	cmd.Env = testmain.Env(t)
	cs = dial(t, &mcp.CommandTransport{Command: cmd})
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "a.md", "max_tokens": 500}})
	cs.Close()
	if got := auditRecords(t, stdioLog); len(got) != 1 || got[0].Subject != "local" || !strings.Contains(string(got[0].Args), `"path":"a.md"`) {
		t.Errorf("over stdio with --audit-args: %+v", got)
	}
}

// TestRateLimits: past its rate, a subject's requests are refused with
// 429 and a Retry-After, and past its concurrency too; another subject is
// not held up, and a caller at its bound can still cancel its call.
func TestRateLimits(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "limited\n")
	work := t.TempDir()
	tokens := filepath.Join(work, "tokens.json")
	alice, bob := addToken(t, tokens, "alice"), addToken(t, tokens, "bob")

	p := startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--tokens", tokens, "--rate-per-subject", "1")
	if res := post(t, p.endpoint, alice); res.StatusCode != 200 {
		t.Fatalf("alice's first: %d", res.StatusCode)
	}
	if res := post(t, p.endpoint, alice); res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" {
		t.Errorf("alice's second within the second: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if res := post(t, p.endpoint, bob); res.StatusCode != 200 {
		t.Errorf("bob, while alice is at her bound: %d", res.StatusCode)
	}
	time.Sleep(1100 * time.Millisecond)
	if res := post(t, p.endpoint, alice); res.StatusCode != 200 {
		t.Errorf("alice after a second: %d", res.StatusCode)
	}

	upstreams := filepath.Join(work, "mcp.json")
	calls := filepath.Join(work, "calls.log")
	writeUpstreams(t, upstreams, map[string]any{"fake": map[string]any{"command": upstreamtest.Binary(t), "args": []string{"-calltools", "-calllog", calls}}})
	p = startServe(t, nil, "--root", dir, "--http", "127.0.0.1:0", "--tokens", tokens, "--concurrent-per-subject", "1",
		"--upstreams", upstreams, "--schema-cache", filepath.Join(work, "cache.json"), "--tool-search", "off")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		httpTransport(p.endpoint, alice), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// send posts body on alice's session.
	send := func(body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, p.endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+alice)
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read to the end: an answer's headers come before its request is
		// over on the server (an event stream), and until it is over it
		// counts against alice's bound.
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	const ping = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fake__block", Arguments: map[string]any{}})
		done <- err
	}()
	// The call is in flight once the upstream has it.
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(calls); !strings.Contains(string(b), "block"); b, _ = os.ReadFile(calls) {
		select {
		case err := <-done:
			t.Fatalf("the block call ended before it reached the upstream: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the block call did not reach the upstream")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res := send(ping); res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" {
		t.Errorf("alice's ping beside her blocked call: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if res := post(t, p.endpoint, bob); res.StatusCode != 200 {
		t.Errorf("bob, while alice has a call in flight: %d", res.StatusCode)
	}
	// A notification is no request: alice at her bound may still send one.
	if res := send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nothing"}}`); res.StatusCode != http.StatusAccepted {
		t.Errorf("alice's notification at her bound: %d", res.StatusCode)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked call did not end when cancelled")
	}
	for deadline = time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res := send(ping); res.StatusCode == 200 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("alice after her call was cancelled: %d", res.StatusCode)
		}
	}
	// The session still works once it is alone again.
	if _, isErr := readTool(t, cs, map[string]any{"path": "a.md", "max_tokens": 500}); isErr {
		t.Error("alice's session after the cancelled call")
	}
}
