// Command fscompare reads one 1 MiB file through folio serve and through
// @modelcontextprotocol/server-filesystem with the same go-sdk client over
// stdio, and prints the latency of each call and the tokens of each
// answer. Run it with bench/fscompare.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/tokencount"
)

// options are fscompare's flags.
type options struct {
	folioBin, fsServer string
	n, budget, size    int
}

// folioRun is what folio's reads measured: the file's lines, the tokens
// of each page first read (every page, or the samples) and how long those
// reads took, and the latencies of the continuation pages.
type folioRun struct {
	lines      int
	pageTokens []int
	whole      time.Duration
	latencies  []time.Duration
}

// fsRun is what server-filesystem's reads measured: the lines of its head
// read (as many as a folio page holds) and their latencies, and those of
// its whole reads, with the tokens of one.
type fsRun struct {
	pageLines   int
	headLat     []time.Duration
	wholeLat    []time.Duration
	wholeTokens int
}

func main() {
	o := parseFlags()
	dir, err := os.MkdirTemp("", "fscompare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	text := goSource(o.size)
	path := filepath.Join(dir, "big.go")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
	// Settled, as a file being read usually is: folio may trust the
	// version it remembers of it (see fsview.TimeGranularity).
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond)
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	folio := connect(ctx, exec.Command(o.folioBin, "serve", "--root", dir, "--log-level", "error", "--max-file-bytes", "0"))
	defer folio.Close()
	f := measureFolio(ctx, folio, o, text, counter)

	node, err := exec.LookPath("node")
	if err != nil {
		log.Fatal(err)
	}
	fs := connect(ctx, exec.Command(node, o.fsServer, dir))
	defer fs.Close()
	s := measureFilesystem(ctx, fs, o, path, text, counter, f)
	if slices.Max(f.pageTokens) > o.budget {
		log.Fatalf("folio: a page of %d tokens, over the budget of %d", slices.Max(f.pageTokens), o.budget)
	}
	report(o, text, counter, f, s)
}

// parseFlags reads fscompare's flags; the two programs compared are
// required.
func parseFlags() options {
	var o options
	flag.StringVar(&o.folioBin, "folio", "", "the folio binary")
	flag.StringVar(&o.fsServer, "filesystem", "", "server-filesystem's dist/index.js")
	flag.IntVar(&o.n, "n", 50, "calls per measurement")
	flag.IntVar(&o.budget, "max-tokens", 2000, "folio's page budget")
	flag.IntVar(&o.size, "size", 1<<20, "bytes of Go source in the file")
	flag.Parse()
	if o.folioBin == "" || o.fsServer == "" {
		log.Fatal("usage: fscompare -folio BIN -filesystem INDEX.JS")
	}
	return o
}

// measureFolio reads the file through folio: every page (or, past
// sampleAbove, the pages that start at lines spread over it), timed as a
// whole, then each of their cursors once more, so that the page cache
// holds the file, and then -n continuation pages, each timed.
func measureFolio(ctx context.Context, folio *mcp.ClientSession, o options, text string, counter pager.Counter) folioRun {
	var r folioRun
	var cursors []string
	start := time.Now()
	r.lines = strings.Count(text, "\n")
	if o.size <= sampleAbove {
		cursors, r.pageTokens = readEveryPage(ctx, folio, o.budget, text, counter)
	} else {
		cursors, r.pageTokens = samplePages(ctx, folio, o.budget, r.lines, counter)
	}
	r.whole = time.Since(start)
	// Each page once first, so that both servers read from the page cache.
	for _, c := range cursors {
		callText(ctx, folio, "read", map[string]any{"path": "big.go", "max_tokens": o.budget, "cursor": c})
	}
	for i := range o.n {
		t0 := time.Now()
		callText(ctx, folio, "read", map[string]any{"path": "big.go", "max_tokens": o.budget, "cursor": cursors[(i*7)%len(cursors)]})
		r.latencies = append(r.latencies, time.Since(t0))
	}
	return r
}

// readEveryPage reads every page of the file, in order, and stops unless
// they rebuild text; it gives the cursors it followed and the tokens of
// each page.
func readEveryPage(ctx context.Context, folio *mcp.ClientSession, budget int, text string, counter pager.Counter) (cursors []string, pageTokens []int) {
	read := func(cursor string) (pager.Page, error) {
		args := map[string]any{"path": "big.go", "max_tokens": budget}
		if cursor != "" {
			args["cursor"] = cursor
			cursors = append(cursors, cursor)
		}
		return pager.Page{JSON: []byte(callText(ctx, folio, "read", args))}, nil
	}
	var rebuilt strings.Builder
	for page, err := range remote.Follow("", read) {
		if err != nil {
			log.Fatalf("folio: %v", err)
		}
		pageTokens = append(pageTokens, counter.Count(string(page.JSON)))
		p, err := page.Decode()
		if err != nil {
			log.Fatalf("folio: %v", err)
		}
		rebuilt.WriteString(p.Content)
	}
	if rebuilt.String() != text {
		log.Fatalf("folio: the pages do not rebuild the file (%d bytes, file %d)", rebuilt.Len(), len(text))
	}
	return cursors, pageTokens
}

// samplePages reads the pages that start at lines spread over the file
// of lines lines, the last near its end (too many pages to read them
// all); it gives their next cursors and their tokens.
func samplePages(ctx context.Context, folio *mcp.ClientSession, budget, lines int, counter pager.Counter) (cursors []string, pageTokens []int) {
	for k := range samples {
		line := 1 + k*(lines-5000)/(samples-1)
		answer := callText(ctx, folio, "read", map[string]any{"path": "big.go", "max_tokens": budget, "line": line, "format": "json"})
		p, err := pager.Page{JSON: []byte(answer)}.Decode()
		if err != nil || p.NextCursor == nil {
			log.Fatalf("folio: the page at line %d: %v", line, err)
		}
		cursors = append(cursors, *p.NextCursor)
		pageTokens = append(pageTokens, counter.Count(answer))
	}
	return cursors, pageTokens
}

// measureFilesystem reads the file at path through server-filesystem:
// its head of as many lines as one of folio's pages holds (f says how
// many pages), once and then -n times, each timed, and then -n whole
// reads, each timed, the first checked against text (none past 8 MiB:
// the head says enough).
func measureFilesystem(ctx context.Context, fs *mcp.ClientSession, o options, path, text string, counter pager.Counter, f folioRun) fsRun {
	// server-filesystem's head: the first lines, as many as a page holds.
	r := fsRun{pageLines: f.lines / len(f.pageTokens)}
	if o.size > sampleAbove {
		// As many lines as hold a page's tokens, by the first MiB.
		head := text[:1<<20]
		r.pageLines = o.budget * strings.Count(head, "\n") / counter.Count(head)
	}
	callText(ctx, fs, "read_text_file", map[string]any{"path": path, "head": max(r.pageLines, 1)})
	for range o.n {
		t0 := time.Now()
		callText(ctx, fs, "read_text_file", map[string]any{"path": path, "head": max(r.pageLines, 1)})
		r.headLat = append(r.headLat, time.Since(t0))
	}
	n := o.n
	if o.size > 8<<20 {
		n = 0 // whole reads of a large file: the head says enough
	}
	for i := range n {
		t0 := time.Now()
		answer := callText(ctx, fs, "read_text_file", map[string]any{"path": path})
		r.wholeLat = append(r.wholeLat, time.Since(t0))
		if i == 0 {
			if answer != text {
				log.Fatalf("server-filesystem's answer differs from the file (%d bytes, file %d)", len(answer), len(text))
			}
			r.wholeTokens = counter.Count(answer)
		}
	}
	return r
}

// report prints the file, a table of each call's latency at p50 and p99
// and its tokens, and what reading the file through folio took.
func report(o options, text string, counter pager.Counter, f folioRun, s fsRun) {
	if o.size <= sampleAbove {
		fmt.Printf("file: %d bytes of Go source, %d tokens (o200k_base)\n", len(text), counter.Count(text))
	} else {
		fmt.Printf("file: %d bytes of Go source\n", len(text))
	}
	fmt.Printf("%-44s %9s %9s %12s\n", "call (stdio, same go-sdk client)", "p50 ms", "p99 ms", "tokens")
	fmt.Printf("%-44s %9.2f %9.2f %12d\n", fmt.Sprintf("folio read, continuation page (%d)", o.budget), ms(f.latencies, 50), ms(f.latencies, 99), slices.Max(f.pageTokens))
	fmt.Printf("%-44s %9.2f %9.2f\n", fmt.Sprintf("server-filesystem read_text_file head %d", s.pageLines), ms(s.headLat, 50), ms(s.headLat, 99))
	if len(s.wholeLat) > 0 {
		fmt.Printf("%-44s %9.2f %9.2f %12d\n", "server-filesystem read_text_file (whole)", ms(s.wholeLat, 50), ms(s.wholeLat, 99), s.wholeTokens)
	}
	if o.size <= sampleAbove {
		fmt.Printf("folio, every page of the file: %d pages in %v (%.1f ms a page), %d tokens in all\n",
			len(f.pageTokens), f.whole.Round(time.Millisecond), float64(f.whole.Microseconds())/1000/float64(len(f.pageTokens)), sum(f.pageTokens))
	} else {
		fmt.Printf("folio, %d pages that start at lines spread over the file, their first read: %v\n", len(f.pageTokens), f.whole.Round(time.Millisecond))
	}
}

// sampleAbove is the file size above which not every page is read: the
// cursors measured are those of pages that start at lines spread over the
// file (samples of them).
const (
	sampleAbove = 64 << 20
	samples     = 20
)

func connect(ctx context.Context, cmd *exec.Cmd) *mcp.ClientSession {
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fscompare", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		log.Fatalf("%s: %v", cmd.Path, err)
	}
	return cs
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) string {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		log.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if res.IsError {
		log.Fatalf("%s: %s", tool, b.String())
	}
	return b.String()
}

// goSource is size bytes of the Go distribution's net/http sources, over
// and over as need be.
func goSource(size int) string {
	root, err := mcptest.GoRoot()
	if err != nil {
		log.Fatal(err)
	}
	var sb strings.Builder
	filepath.WalkDir(filepath.Join(root, "src", "net", "http"), func(p string, d os.DirEntry, err error) error {
		if err == nil && sb.Len() < size && strings.HasSuffix(p, ".go") {
			data, _ := os.ReadFile(p)
			sb.Write(data)
		}
		return nil
	})
	if sb.Len() == 0 {
		log.Fatal("no Go source in GOROOT")
	}
	return strings.Repeat(sb.String(), size/sb.Len()+1)[:size]
}

func ms(d []time.Duration, pct int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[min(len(s)*pct/100, len(s)-1)].Microseconds()) / 1000
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
