package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/haproxytest"
	"github.com/folio-mcp/folio/internal/redistest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/tokencount"
)

// replicas is a team's folio: n serve --http processes sharing a tokens
// file, a cursor key file and a Redis handle store, behind HAProxy.
type replicas struct {
	procs []*serveProc
	proxy *haproxytest.Proxy
	token string
}

// startReplicas starts n replicas serving dir, the first alone (it makes
// the key file the others read), and HAProxy in front of them. A replica
// the test kills is not waited for.
func startReplicas(t testing.TB, dir string, n int) *replicas {
	redis := redistest.Shared(t)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	r := &replicas{token: strings.TrimSpace(folio(t, "", "token", "add", "--tokens", tokens, "--subject", "team").stdout)}
	args := []string{"--root", dir, "--http", "127.0.0.1:0", "--tokens", tokens, "--handle-store", redis.URL,
		"--cursor-key-file", filepath.Join(t.TempDir(), "cursor.key")}
	var hosts []string
	for range n {
		p, err := startProc(t, nil, args...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			p.cmd.Process.Kill()
			<-p.done
		})
		u, err := url.Parse(p.endpoint)
		if err != nil {
			t.Fatal(err)
		}
		r.procs, hosts = append(r.procs, p), append(hosts, u.Host)
	}
	r.proxy = haproxytest.Start(t, hosts...)
	return r
}

// replicaOf records which replica answered each request of one client.
type replicaOf struct {
	next http.RoundTripper
	last atomic.Value // the ReplicaHeader of the latest answer
}

func (r *replicaOf) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err == nil {
		r.last.Store(res.Header.Get(haproxytest.ReplicaHeader))
	}
	return res, err
}

// client is one client of the replicas, in the 2026-07-28 era (the go-sdk
// client's own choice), and what records where its requests went.
func (r *replicas) client(t testing.TB) (*mcp.ClientSession, *replicaOf) {
	hc := remote.HTTPClient(r.token)
	rec := &replicaOf{next: hc.Transport}
	hc.Transport = rec
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "http://" + r.proxy.Addr + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("through HAProxy the client speaks %s", v)
	}
	return cs, rec
}

// retryPause is how long a client of replicas waits before it sends a
// failed request again, as docs/operations.md says: long enough for a
// replica that died to be gone, refusing what the load balancer tries it
// with.
const retryPause = 250 * time.Millisecond

// callRetry calls a tool as docs/operations.md tells a client of replicas
// to: a request that fails in transport (its replica died under it) is sent
// once more after retryPause, and a load balancer gives it to another. It
// reports the retries made.
func callRetry(cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, int, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		return res, 0, nil
	}
	time.Sleep(retryPause)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	return res, 1, err
}

// replicaText is a file of n lines in several scripts, so that pages cut
// at many kinds of boundary.
func replicaText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d: exact pages through any replica, 中文, émigré, 🙂 %s\n", i, strings.Repeat("ab", i%17))
	}
	return b.String()
}

// TestReplicasBehindHAProxy: two replicas behind HAProxy serve 2026-07-28
// clients whose requests alternate between them: every page exact and in
// budget, handles folded by one read through the other; then one replica
// is killed (SIGKILL) while four clients read: each request succeeds with
// at most one retry, no page is wrong and no handle lost.
func TestReplicasBehindHAProxy(t *testing.T) {
	dir := t.TempDir()
	text := replicaText(3000)
	write(t, dir, "docs/big.md", text)
	manyFiles(t, dir, 600)
	r := startReplicas(t, dir, 2)
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 400

	// Both up: pages alternate, and a handle folded by one replica is
	// read through the other.
	cs, rec := r.client(t)
	served := map[string]int{}
	args := map[string]any{"path": "docs/big.md", "max_tokens": budget}
	var got strings.Builder
	for {
		res, _, err := callRetry(cs, "read", args)
		if err != nil || res.IsError {
			t.Fatalf("read: %v %v", err, res)
		}
		served[rec.last.Load().(string)]++
		page := res.Content[0].(*mcp.TextContent).Text
		if n := counter.Count(page); n > budget {
			t.Errorf("a page of %d tokens, over the budget of %d", n, budget)
		}
		p, err := pager.Decode([]byte(page))
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(p.Content)
		if !p.HasMore {
			break
		}
		args["cursor"] = *p.NextCursor
	}
	if got.String() != text {
		t.Fatal("the pages through both replicas do not give back the file")
	}
	if len(served) != 2 || served["r0"] == 0 || served["r1"] == 0 {
		t.Errorf("pages served by replica: %v", served)
	}
	res, _, err := callRetry(cs, "list", map[string]any{"path": ".", "recursive": true, "details": true})
	if err != nil {
		t.Fatal(err)
	}
	handle, foldedBy := foldedHandle(t, res), rec.last.Load().(string)
	readBy := map[string]bool{}
	for range 4 {
		text := queryText(t, cs, map[string]any{"handle": handle, "path": "entries", "offset": 100, "limit": 1})
		if !strings.Contains(text, "a-file-with-a-rather-long-name") {
			t.Errorf("result_query: %s", text)
		}
		readBy[rec.last.Load().(string)] = true
	}
	if !readBy[map[string]string{"r0": "r1", "r1": "r0"}[foldedBy]] {
		t.Errorf("folded by replica %s, read by %v only", foldedBy, readBy)
	}

	// One replica dies in the middle of a run.
	const clients = 4
	var (
		pages, retries atomic.Int64
		kill           sync.Once
		killedAt       atomic.Int64
		wg             sync.WaitGroup
	)
	killAfter := int64(clients * 20)
	for c := range clients {
		wg.Go(func() {
			cs, _ := r.client(t)
			args := map[string]any{"path": "docs/big.md", "max_tokens": budget / 2}
			var got strings.Builder
			for i := 0; ; i++ {
				if pages.Add(1) == killAfter {
					kill.Do(func() {
						r.procs[0].cmd.Process.Kill()
						killedAt.Store(pages.Load())
					})
				}
				res, n, err := callRetry(cs, "read", args)
				retries.Add(int64(n))
				if err != nil || res.IsError {
					t.Errorf("client %d, page %d: failed after a retry: %v %v", c, i, err, res)
					return
				}
				p, err := pager.Decode([]byte(res.Content[0].(*mcp.TextContent).Text))
				if err != nil {
					t.Errorf("client %d, page %d: %v", c, i, err)
					return
				}
				got.WriteString(p.Content)
				if i%10 == 0 {
					q, n, err := callRetry(cs, "result_query", map[string]any{"handle": handle, "path": "entries", "offset": 100 + c, "limit": 1})
					retries.Add(int64(n))
					if err != nil || q.IsError {
						t.Errorf("client %d: the handle after page %d: %v %v", c, i, err, q)
					}
				}
				if !p.HasMore {
					break
				}
				args["cursor"] = *p.NextCursor
			}
			if got.String() != text {
				t.Errorf("client %d: the pages do not give back the file", c)
			}
		})
	}
	wg.Wait()
	if killedAt.Load() == 0 || pages.Load() < killedAt.Load()+clients*10 {
		t.Errorf("the replica was killed after page %d of %d: not in the middle of the run", killedAt.Load(), pages.Load())
	}
	t.Logf("%d pages by %d clients, a replica killed after %d; %d requests retried once", pages.Load(), clients, killedAt.Load(), retries.Load())
}

// BenchmarkReplicas: pages per second that eight clients read through
// HAProxy from one replica and from two (budget 400 tokens, a page each
// op, the 2026-07-28 era).
func BenchmarkReplicas(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "big.md"), []byte(replicaText(3000)), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			r := startReplicas(b, dir, n)
			b.SetParallelism(4) // 8 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				cs, _ := r.client(b)
				args := map[string]any{"path": "docs/big.md", "max_tokens": 400}
				for pb.Next() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: args})
					if err != nil || res.IsError {
						b.Errorf("read: %v %v", err, res)
						return
					}
					p, err := pager.Decode([]byte(res.Content[0].(*mcp.TextContent).Text))
					if err != nil {
						b.Error(err)
						return
					}
					if p.HasMore {
						args["cursor"] = *p.NextCursor
					} else {
						delete(args, "cursor")
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
