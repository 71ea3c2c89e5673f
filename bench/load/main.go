// Command load puts folio serve under load: it starts the binary on
// loopback with a tokens file, and clients page through files over
// Streamable HTTP with budgets drawn between -min and -max tokens, each
// page counted again and each file rebuilt and compared byte for byte.
// It prints pages per second, the latency of a page at p50 and p99, the
// errors, the pages over budget and the server's peak RSS. Run it with
// bench/load.sh.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
)

func main() {
	bin := flag.String("folio", "", "the folio binary")
	clients := flag.Int("clients", 50, "clients paging at once")
	duration := flag.Duration("duration", 60*time.Second, "how long to page")
	minBudget := flag.Int("min", 150, "smallest page budget")
	maxBudget := flag.Int("max", 16000, "largest page budget")
	flag.Parse()
	if *bin == "" {
		log.Fatal("usage: load -folio BIN [-clients N] [-duration D] [-min T] [-max T]")
	}
	dir, err := os.MkdirTemp("", "folio-load")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := corpus(filepath.Join(dir, "root"))
	counter, err := pager.NewCounter(pager.O200kBase)
	if err != nil {
		log.Fatal(err)
	}

	tokens := filepath.Join(dir, "tokens.json")
	out, err := exec.Command(*bin, "token", "add", "--tokens", tokens, "--subject", "load").Output()
	if err != nil {
		log.Fatalf("token add: %v", err)
	}
	token := strings.TrimSpace(string(out))
	server := exec.Command(*bin, "serve", "--root", filepath.Join(dir, "root"), "--http", "127.0.0.1:0", "--tokens", tokens,
		"--cursor-key-file", filepath.Join(dir, "cursor.key"), "--max-sessions-per-subject", fmt.Sprint(*clients+10))
	stderr, _ := server.StderrPipe()
	if err := server.Start(); err != nil {
		log.Fatal(err)
	}
	defer server.Process.Kill()
	endpoint := listening(stderr)

	ctx := context.Background()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      []string
		over      int
		reads     int
	)
	deadline := time.Now().Add(*duration)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *clients {
		wg.Go(func() {
			c, err := remote.Dial(ctx, endpoint, token, "load")
			if err != nil {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
				return
			}
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for time.Now().Before(deadline) {
				f := files[rng.IntN(len(files))]
				budget := *minBudget + rng.IntN(*maxBudget-*minBudget+1)
				var got []byte
				var lat []time.Duration
				overHere, failed := 0, ""
				t := time.Now()
				for page, err := range c.Pages(ctx, f.name, budget, "", "") {
					lat = append(lat, time.Since(t))
					if err != nil {
						failed = fmt.Sprintf("%s at %d tokens: %v", f.name, budget, err)
						break
					}
					if counter.Count(string(page.JSON)) > budget {
						overHere++
					}
					p, _ := page.Decode()
					got = append(got, p.Content...)
					t = time.Now()
				}
				if failed == "" && !bytes.Equal(got, f.text) {
					failed = fmt.Sprintf("%s at %d tokens: the pages do not rebuild the file", f.name, budget)
				}
				mu.Lock()
				latencies = append(latencies, lat...)
				over += overHere
				reads++
				if failed != "" {
					errs = append(errs, failed)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(p*float64(len(latencies)-1))]
	}
	fmt.Printf("%d clients for %v, budgets %d to %d tokens, %d files\n", *clients, duration.Round(time.Second), *minBudget, *maxBudget, len(files))
	fmt.Printf("pages %d (%.0f/s), reads %d rebuilt and compared\n", len(latencies), float64(len(latencies))/elapsed.Seconds(), reads)
	fmt.Printf("page latency p50 %v, p99 %v\n", pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond))
	fmt.Printf("errors %d, pages over budget %d\n", len(errs), over)
	fmt.Printf("server peak RSS %s\n", peakRSS(server.Process.Pid))
	for _, e := range errs[:min(len(errs), 5)] {
		fmt.Println("  error:", e)
	}
	if reads == 0 {
		fmt.Println("no file was read")
	}
	if len(errs) > 0 || over > 0 || reads == 0 {
		os.Exit(1)
	}
}

type file struct {
	name string
	text []byte
}

// corpus writes the files to page under root: Go source from the Go
// distribution, and Markdown with CJK, emoji, quotes and CRLF lines.
func corpus(root string) []file {
	var files []file
	add := func(name string, text []byte) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, text, 0o644); err != nil {
			log.Fatal(err)
		}
		files = append(files, file{name, text})
	}
	goroot, err := mcptest.GoRoot()
	if err != nil {
		log.Fatal(err)
	}
	src := filepath.Join(goroot, "src", "net", "http")
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			if b, err := os.ReadFile(filepath.Join(src, e.Name())); err == nil {
				add("go/"+e.Name(), b)
			}
		}
	}
	for i := range 20 {
		var b strings.Builder
		for j := range 200 * (i + 1) {
			fmt.Fprintf(&b, "## 第%d节 \"quoted\" \\ back\\slash 🙂\r\n段落 %d: 中文文本与 English words, <tags> & more.\n\n", j, j)
		}
		add(fmt.Sprintf("docs/doc-%02d.md", i), []byte(b.String()))
	}
	if len(files) < 21 {
		log.Fatal("no Go source found under GOROOT")
	}
	return files
}

// listening reads the server's log until it says where it listens; if
// the server ends first, it stops with what the server logged.
func listening(r io.Reader) string {
	addr := regexp.MustCompile(`endpoint=(http://\S+)`)
	var logged []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := addr.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, r)
			return m[1]
		}
		logged = append(logged, sc.Text())
	}
	log.Fatalf("folio serve exited before listening:\n%s", strings.Join(logged, "\n"))
	return ""
}

// peakRSS is the peak resident set size of process pid, from Linux's
// /proc (VmHWM).
func peakRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "unknown"
}
