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
)

func main() {
	folioBin := flag.String("folio", "", "the folio binary")
	fsServer := flag.String("filesystem", "", "server-filesystem's dist/index.js")
	n := flag.Int("n", 50, "calls per measurement")
	budget := flag.Int("max-tokens", 2000, "folio's page budget")
	size := flag.Int("size", 1<<20, "bytes of Go source in the file")
	flag.Parse()
	if *folioBin == "" || *fsServer == "" {
		log.Fatal("usage: fscompare -folio BIN -filesystem INDEX.JS")
	}
	dir, err := os.MkdirTemp("", "fscompare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	text := goSource(*size)
	path := filepath.Join(dir, "big.go")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
	// Settled, as a file being read usually is: folio may trust the
	// version it remembers of it (see fsview.TimeGranularity).
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond)
	counter, err := pager.NewCounter(pager.O200kBase)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	folio := connect(ctx, exec.Command(*folioBin, "serve", "--root", dir, "--log-level", "error", "--max-file-bytes", "0"))
	defer folio.Close()
	var cursors []string
	var pageTokens []int
	start := time.Now()
	read := func(cursor string) (pager.Page, error) {
		args := map[string]any{"uri": "big.go", "max_tokens": *budget}
		if cursor != "" {
			args["cursor"] = cursor
			cursors = append(cursors, cursor)
		}
		return pager.Page{JSON: []byte(callText(ctx, folio, "read", args))}, nil
	}
	lines := strings.Count(text, "\n")
	if *size <= sampleAbove {
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
	} else {
		// Too many pages to read them all: the cursors of pages that
		// start at lines spread over the file, the last near its end.
		for k := range samples {
			line := 1 + k*(lines-5000)/(samples-1)
			answer := callText(ctx, folio, "read", map[string]any{"uri": "big.go", "max_tokens": *budget, "line": line, "format": "json"})
			p, err := pager.Page{JSON: []byte(answer)}.Decode()
			if err != nil || p.NextCursor == nil {
				log.Fatalf("folio: the page at line %d: %v", line, err)
			}
			cursors = append(cursors, *p.NextCursor)
			pageTokens = append(pageTokens, counter.Count(answer))
		}
	}
	whole := time.Since(start)
	// Each page once first, so that both servers read from the page cache.
	for _, c := range cursors {
		callText(ctx, folio, "read", map[string]any{"uri": "big.go", "max_tokens": *budget, "cursor": c})
	}
	var folioLat []time.Duration
	for i := range *n {
		t0 := time.Now()
		callText(ctx, folio, "read", map[string]any{"uri": "big.go", "max_tokens": *budget, "cursor": cursors[(i*7)%len(cursors)]})
		folioLat = append(folioLat, time.Since(t0))
	}

	node, err := exec.LookPath("node")
	if err != nil {
		log.Fatal(err)
	}
	fs := connect(ctx, exec.Command(node, *fsServer, dir))
	defer fs.Close()
	// server-filesystem's head: the first lines, as many as a page holds.
	pageLines := lines / len(pageTokens)
	if *size > sampleAbove {
		// As many lines as hold a page's tokens, by the first MiB.
		head := text[:1<<20]
		pageLines = *budget * strings.Count(head, "\n") / counter.Count(head)
	}
	callText(ctx, fs, "read_text_file", map[string]any{"path": path, "head": max(pageLines, 1)})
	var headLat []time.Duration
	for range *n {
		t0 := time.Now()
		callText(ctx, fs, "read_text_file", map[string]any{"path": path, "head": max(pageLines, 1)})
		headLat = append(headLat, time.Since(t0))
	}
	var fsLat []time.Duration
	var fsTokens int
	if *size > 8<<20 {
		*n = 0 // whole reads of a large file: the head says enough
	}
	for i := range *n {
		t0 := time.Now()
		answer := callText(ctx, fs, "read_text_file", map[string]any{"path": path})
		fsLat = append(fsLat, time.Since(t0))
		if i == 0 {
			if answer != text {
				log.Fatalf("server-filesystem's answer differs from the file (%d bytes, file %d)", len(answer), len(text))
			}
			fsTokens = counter.Count(answer)
		}
	}
	if slices.Max(pageTokens) > *budget {
		log.Fatalf("folio: a page of %d tokens, over the budget of %d", slices.Max(pageTokens), *budget)
	}
	if *size <= sampleAbove {
		fmt.Printf("file: %d bytes of Go source, %d tokens (o200k_base)\n", len(text), counter.Count(text))
	} else {
		fmt.Printf("file: %d bytes of Go source\n", len(text))
	}
	fmt.Printf("%-44s %9s %9s %12s\n", "call (stdio, same go-sdk client)", "p50 ms", "p99 ms", "tokens")
	fmt.Printf("%-44s %9.2f %9.2f %12d\n", fmt.Sprintf("folio read, continuation page (%d)", *budget), ms(folioLat, 50), ms(folioLat, 99), slices.Max(pageTokens))
	fmt.Printf("%-44s %9.2f %9.2f\n", fmt.Sprintf("server-filesystem read_text_file head %d", pageLines), ms(headLat, 50), ms(headLat, 99))
	if len(fsLat) > 0 {
		fmt.Printf("%-44s %9.2f %9.2f %12d\n", "server-filesystem read_text_file (whole)", ms(fsLat, 50), ms(fsLat, 99), fsTokens)
	}
	if *size <= sampleAbove {
		fmt.Printf("folio, every page of the file: %d pages in %v (%.1f ms a page), %d tokens in all\n",
			len(pageTokens), whole.Round(time.Millisecond), float64(whole.Microseconds())/1000/float64(len(pageTokens)), sum(pageTokens))
	} else {
		fmt.Printf("folio, %d pages that start at lines spread over the file, their first read: %v\n", len(pageTokens), whole.Round(time.Millisecond))
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
