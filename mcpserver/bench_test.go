package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/folio-mcp/folio/fold"
	"github.com/folio-mcp/folio/fold/boltstore"
	"github.com/folio-mcp/folio/fold/redisstore"
	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/redistest"
	"github.com/folio-mcp/folio/internal/upstreamtest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/telemetry"
	"github.com/folio-mcp/folio/tokens"
	"github.com/folio-mcp/folio/upstream"
	"github.com/folio-mcp/folio/wire"
)

// realText is 1 MiB of real Go source from the Go distribution.
func realText(b *testing.B, size int) string {
	b.Helper()
	var sb strings.Builder
	filepath.WalkDir(mcptest.GoSource(b, "net", "http"), func(p string, d os.DirEntry, err error) error {
		if err != nil || sb.Len() >= size || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, _ := os.ReadFile(p)
		sb.Write(data)
		return nil
	})
	if sb.Len() < size {
		b.Skip("not enough Go source in GOROOT")
	}
	return sb.String()[:size]
}

// BenchmarkContinuationHTTP reads continuation pages (2,000 tokens) of a
// 1 MiB file over Streamable HTTP on loopback, from 1 and from 8 clients
// at once, and reports the median and p99 latency of a call and the pages
// served per second: in each protocol era, a session's (2025-11-25) and
// requests without one (2026-07-28).
//
// With FOLIO_BENCH_TELEMETRY=on the server traces and measures every
// request (spans batched to an exporter that drops them, metrics kept for
// a reader), for the cost of telemetry: compare with benchstat.
func BenchmarkContinuationHTTP(b *testing.B) {
	e := newEnv(b)
	text := realText(b, 1<<20)
	e.write(b, "big.go", text)
	tok := e.addToken(b, "bench")
	url := serveHTTP(b, e.server(b, serverOpts{telemetry: benchTelemetry(b)}))
	for _, mode := range []string{"session", "sessionless"} {
		dial := dialHTTP
		if mode == "session" {
			dial = dialSession
		}
		// Every cursor of the file, to read continuation pages anywhere in it.
		cs := dial(b, url, tok, nil)
		var cursors []string
		args := map[string]any{"path": "big.go", "max_tokens": 2000}
		for {
			r := call(b, cs, "read", args)
			p, err := pager.Decode([]byte(r.text))
			if err != nil {
				b.Fatal(r.text)
			}
			if !p.HasMore {
				break
			}
			cursors = append(cursors, *p.NextCursor)
			args["cursor"] = *p.NextCursor
		}
		for _, clients := range []int{1, 8} {
			b.Run(mode+"/clients="+string(rune('0'+clients)), func(b *testing.B) {
				sessions := make([]*mcp.ClientSession, clients)
				for i := range sessions {
					sessions[i] = dial(b, url, tok, nil)
				}
				lat := make([][]time.Duration, clients)
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				for c := range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := c; i < b.N; i += clients {
							t0 := time.Now()
							res, err := sessions[c].CallTool(context.Background(), toolCall("read", map[string]any{
								"path": "big.go", "max_tokens": 2000, "cursor": cursors[i%len(cursors)]}))
							if err != nil || res.IsError {
								b.Error(err, res)
								return
							}
							lat[c] = append(lat[c], time.Since(t0))
						}
					}()
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				all := slices.Concat(lat...)
				slices.Sort(all)
				if len(all) == 0 {
					return
				}
				b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(len(all))/elapsed.Seconds(), "pages/s")
			})
		}
	}
}

// BenchmarkGrep searches the Go distribution's src/net (about 440 files)
// and all its src (about 11,000) through the MCP tool: a literal, a
// regular expression and a case-insensitive one, each with few matches, as
// bench/grepcompare.sh compares them with ripgrep.
func BenchmarkGrep(b *testing.B) {
	for _, tree := range []string{"net", "src"} {
		b.Run(tree, func(b *testing.B) {
			dir := mcptest.GoSource(b)
			if tree != "src" {
				dir = mcptest.GoSource(b, tree)
			}
			e := newEnvAt(b, dir)
			cs := dialMemory(b, e.server(b, serverOpts{local: true}), nil)
			for _, tc := range []struct {
				name string
				args map[string]any
			}{
				{"literal", map[string]any{"pattern": "syscall.EINVAL", "literal": true}},
				{"regexp", map[string]any{"pattern": `func \(\w+ \*\w+\) Close\(`}},
				{"ignore_case", map[string]any{"pattern": "unexpected eof", "ignore_case": true}},
			} {
				b.Run(tc.name, func(b *testing.B) {
					for b.Loop() {
						if r := call(b, cs, "grep", tc.args); r.isError {
							b.Fatal(r.text)
						}
					}
				})
			}
		})
	}
}

// BenchmarkResultQueryHTTP folds a grep answer of about 1 MiB over HTTP on
// loopback, then reads 20 matches from its middle with result_query, per
// store: the latency a model sees for one slice.
func BenchmarkResultQueryHTTP(b *testing.B) {
	e := newEnv(b)
	var sb strings.Builder
	for i := 0; sb.Len() < 700<<10; i++ {
		fmt.Fprintf(&sb, "line %d holds a needle among some other words\n", i)
	}
	e.write(b, "big.txt", sb.String())
	tok := e.addToken(b, "bench")
	stores := map[string]func(b *testing.B) fold.Store{
		"memory": func(*testing.B) fold.Store { return fold.NewMemoryStore(1000, fold.DefaultStoreMaxBytes, nil) },
		"bolt": func(b *testing.B) fold.Store {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "h.db"), fold.DefaultStoreMaxBytes, nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
		"redis": func(b *testing.B) fold.Store {
			s, err := redisstore.Open(redistest.Shared(b).URL, nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
	}
	for _, name := range []string{"memory", "bolt", "redis"} {
		b.Run(name, func(b *testing.B) {
			store := stores[name](b)
			defer store.Close()
			cs := dialHTTP(b, serveHTTP(b, e.server(b, serverOpts{store: store})), tok, nil)
			r := call(b, cs, "grep", map[string]any{"pattern": "needle", "max_matches": 100000})
			m, _ := r.meta[wire.MetaResultHandle].(map[string]any)
			handle, _ := m["handle"].(string)
			if handle == "" {
				b.Fatalf("not folded: %.200s", r.text)
			}
			b.ReportMetric(m["bytes"].(float64), "answer-bytes")
			args := map[string]any{"handle": handle, "path": "matches", "offset": 7000}
			for b.Loop() {
				if r := call(b, cs, "result_query", args); r.isError {
					b.Fatal(r.text)
				}
			}
		})
	}
}

// BenchmarkListGoSrc lists the Go distribution's src recursively (about
// 14,000 entries, 0.9 MB of JSON, folded).
func BenchmarkListGoSrc(b *testing.B) {
	e := newEnvAt(b, mcptest.GoSource(b))
	cs := dialMemory(b, e.server(b, serverOpts{local: true}), nil)
	for b.Loop() {
		if r := call(b, cs, "list", map[string]any{"recursive": true}); r.raw.StructuredContent == nil {
			b.Fatalf("not folded: %.200s", r.text)
		}
	}
}

// BenchmarkResourcesList100k pages resources/list over HTTP through a
// directory of 100,000 files: one op is the whole listing.
func BenchmarkResourcesList100k(b *testing.B) {
	e := newEnv(b)
	for i := range 100_000 {
		os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("f%06d.md", i)), []byte("x\n"), 0o644)
	}
	tok := e.addToken(b, "alice")
	cs := dialHTTP(b, serveHTTP(b, e.server(b, serverOpts{})), tok, nil)
	for b.Loop() {
		if n := len(listAllResources(b, cs)); n != 100_000 {
			b.Fatalf("%d files listed", n)
		}
	}
}

// BenchmarkReferenceCall calls an upstream tool that takes an array: with
// one row inline, with a 1 MiB array inline, and with the same array by
// reference (folio resolves it, checks it against the tool's schema and
// sends it on). p50 in ms.
func BenchmarkReferenceCall(b *testing.B) {
	bin := upstreamtest.Binary(b)
	dir := b.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	g, err := upstream.Start(ctx, []upstream.Server{{Name: "dst", Transport: upstream.Stdio, Command: bin, Args: []string{"-datatools"}}},
		upstream.Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	e := newEnv(b)
	tok := e.addToken(b, "alice")
	s := e.server(b, serverOpts{gateway: g})
	cs := dialHTTP(b, serveHTTP(b, s), tok, nil)
	listing := corpus.Listing(17500)
	owner := fold.Owner{Session: cs.ID(), Subject: "alice", Grant: grant(tokens.Hash(tok), nil)}
	folded, err := s.cfg.Fold.Fold(ctx, owner, listing, nil)
	if err != nil {
		b.Fatal(err)
	}
	var entries struct{ Entries []any }
	json.Unmarshal(listing, &entries)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"inline-1-row", map[string]any{"data": []any{map[string]any{"v": 1}}}},
		{"inline-1MiB", map[string]any{"data": entries.Entries}},
		{"reference-1MiB", map[string]any{"data_uri": fold.URI(folded.Handle, "/entries")}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t := time.Now()
				r := call(b, cs, "dst__ingest", tc.args)
				lat = append(lat, time.Since(t))
				if r.isError {
					b.Fatal(r.text)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// benchTelemetry is telemetry as an operator turns it on, when
// FOLIO_BENCH_TELEMETRY=on: spans batched to an exporter (one that drops
// them), metrics aggregated for a reader. Otherwise nil: off.
func benchTelemetry(b *testing.B) *telemetry.Instruments {
	if os.Getenv("FOLIO_BENCH_TELEMETRY") != "on" {
		return nil
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	in, err := (&telemetry.Telemetry{Tracer: tp, Meter: mp}).Instruments()
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkUpstreamCall is one call of a trivial upstream tool (fakemcp's
// echo, over stdio) through folio in process, its client over memory, as
// the gateway's cost is profiled (-cpuprofile): what folio adds is all
// but the upstream's own part.
func BenchmarkUpstreamCall(b *testing.B) {
	bin := upstreamtest.Binary(b)
	dir := b.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	g, err := upstream.Start(ctx, []upstream.Server{{Name: "up", Transport: upstream.Stdio, Command: bin, Args: []string{"-tools", "echo"}}},
		upstream.Options{CachePath: filepath.Join(dir, "cache.json"), Timeout: 10 * time.Second, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	e := newEnv(b)
	s := e.server(b, serverOpts{gateway: g, local: true, telemetry: benchTelemetry(b)})
	cs := dialMemory(b, s, nil)
	args := map[string]any{"text": "hello"}
	call(b, cs, "up__echo", args) // starts the upstream
	for b.Loop() {
		if r := call(b, cs, "up__echo", args); r.isError {
			b.Fatal(r.text)
		}
	}
}
