// Command load puts folio serve under load: it starts the binary on
// loopback with a tokens file (with -oauth, an OAuth policy and an
// authorization server of its own, whose JWT each client shows), and
// clients page through files over
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
	"encoding/json"
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

	"github.com/go-jose/go-jose/v4"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/oauthtest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/remote"
	"github.com/folio-mcp/folio/tokencount"
)

// options are load's flags.
type options struct {
	bin                  string
	clients              int
	duration             time.Duration
	minBudget, maxBudget int
	oauth                bool
}

// tally is what the clients measured, under mu: the latency of each page,
// the errors, the pages over budget and the files read whole.
type tally struct {
	mu        sync.Mutex
	latencies []time.Duration
	errs      []string
	over      int
	reads     int
}

func main() {
	o := parseFlags()
	dir, err := os.MkdirTemp("", "folio-load")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := corpus(filepath.Join(dir, "root"))
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		log.Fatal(err)
	}

	var auth []string
	var token string
	if o.oauth {
		auth, token = oauthServer(dir)
	} else {
		auth, token = staticToken(o, dir)
	}
	defer cleanups.run()
	server, endpoint := startServer(o, dir, auth)
	defer server.Process.Kill()

	t, elapsed := runClients(o, endpoint, token, files, counter)
	report(o, len(files), t, elapsed, server.Process.Pid)
	if len(t.errs) > 0 || t.over > 0 || t.reads == 0 {
		os.Exit(1)
	}
}

// parseFlags reads load's flags; the folio binary is required.
func parseFlags() options {
	var o options
	flag.StringVar(&o.bin, "folio", "", "the folio binary")
	flag.IntVar(&o.clients, "clients", 50, "clients paging at once")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long to page")
	flag.IntVar(&o.minBudget, "min", 150, "smallest page budget")
	flag.IntVar(&o.maxBudget, "max", 16000, "largest page budget")
	flag.BoolVar(&o.oauth, "oauth", false, "callers show an OAuth JWT (folio serve --oauth) instead of a static token")
	flag.Parse()
	if o.bin == "" {
		log.Fatal("usage: load -folio BIN [-clients N] [-duration D] [-min T] [-max T]")
	}
	return o
}

// staticToken adds a token to a tokens file in dir, and gives serve's
// flags for it and the token.
func staticToken(o options, dir string) (flags []string, token string) {
	tokens := filepath.Join(dir, "tokens.json")
	out, err := exec.Command(o.bin, "token", "add", "--tokens", tokens, "--subject", "load").Output()
	if err != nil {
		log.Fatalf("token add: %v", err)
	}
	return []string{"--tokens", tokens}, strings.TrimSpace(string(out))
}

// oauthServer starts an authorization server on loopback and writes a
// policy trusting it in dir, and gives serve's flags for it and a JWT
// access token it signed.
func oauthServer(dir string) (flags []string, token string) {
	const resource = "http://127.0.0.1/mcp"
	key := oauthtest.NewSigner(cleanups, "k1", jose.ES256)
	is := oauthtest.New(cleanups, key)
	b, _ := json.Marshal(map[string]any{"resource": resource, "authorization_servers": []map[string]any{{"issuer": is.URL}}})
	policy := filepath.Join(dir, "oauth.json")
	if err := os.WriteFile(policy, b, 0o600); err != nil {
		log.Fatal(err)
	}
	token = key.Mint(cleanups, "at+jwt", is.Claims(resource, time.Now(), "exp", time.Now().Add(24*time.Hour).Unix()))
	return []string{"--oauth", policy}, token
}

// cleanups is what the program undoes as it ends, and how oauthtest
// reports a failure here: log.Fatal.
var cleanups = &undo{}

type undo struct{ fns []func() }

func (u *undo) Helper()                           {}
func (u *undo) Fatal(args ...any)                 { log.Fatal(args...) }
func (u *undo) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
func (u *undo) Cleanup(f func())                  { u.fns = append(u.fns, f) }

func (u *undo) run() {
	for _, f := range slices.Backward(u.fns) {
		f()
	}
}

// startServer starts folio serve on loopback with the flags of auth,
// serving dir/root (room for every client's session, and more); it gives
// the server's process and its endpoint.
func startServer(o options, dir string, auth []string) (server *exec.Cmd, endpoint string) {
	args := append([]string{"serve", "--root", filepath.Join(dir, "root"), "--http", "127.0.0.1:0",
		"--cursor-key-file", filepath.Join(dir, "cursor.key"), "--max-sessions-per-subject", fmt.Sprint(o.clients + 10)}, auth...)
	server = exec.Command(o.bin, args...)
	stderr, _ := server.StderrPipe()
	if err := server.Start(); err != nil {
		log.Fatal(err)
	}
	return server, listening(stderr)
}

// runClients has -clients clients page through files at endpoint until
// -duration is up, each file a budget drawn between -min and -max; it
// gives their tally and how long they took.
func runClients(o options, endpoint, token string, files []file, counter pager.Counter) (*tally, time.Duration) {
	ctx := context.Background()
	t := &tally{}
	deadline := time.Now().Add(o.duration)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range o.clients {
		wg.Go(func() {
			c, err := remote.Dial(ctx, endpoint, token, "load")
			if err != nil {
				t.mu.Lock()
				t.errs = append(t.errs, err.Error())
				t.mu.Unlock()
				return
			}
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for time.Now().Before(deadline) {
				f := files[rng.IntN(len(files))]
				budget := o.minBudget + rng.IntN(o.maxBudget-o.minBudget+1)
				lat, over, failed := readFile(ctx, c, f, budget, counter)
				t.add(lat, over, failed)
			}
		})
	}
	wg.Wait()
	return t, time.Since(start)
}

// readFile pages through f with budget, and gives the latency of each
// page, how many pages were over the budget, and what failed ("" when the
// pages rebuilt the file).
func readFile(ctx context.Context, c *remote.Client, f file, budget int, counter pager.Counter) (lat []time.Duration, over int, failed string) {
	var got []byte
	t := time.Now()
	for page, err := range c.Pages(ctx, f.name, budget, "", "") {
		lat = append(lat, time.Since(t))
		if err != nil {
			failed = fmt.Sprintf("%s at %d tokens: %v", f.name, budget, err)
			break
		}
		if counter.Count(string(page.JSON)) > budget {
			over++
		}
		p, _ := page.Decode()
		got = append(got, p.Content...)
		t = time.Now()
	}
	if failed == "" && !bytes.Equal(got, f.text) {
		failed = fmt.Sprintf("%s at %d tokens: the pages do not rebuild the file", f.name, budget)
	}
	return lat, over, failed
}

// add counts one file read: its pages' latencies, the pages over budget,
// and what failed, if anything.
func (t *tally) add(lat []time.Duration, over int, failed string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.latencies = append(t.latencies, lat...)
	t.over += over
	t.reads++
	if failed != "" {
		t.errs = append(t.errs, failed)
	}
}

// report prints what the clients measured in elapsed, and the peak RSS
// of the server, process pid.
func report(o options, files int, t *tally, elapsed time.Duration, pid int) {
	slices.Sort(t.latencies)
	pct := func(p float64) time.Duration {
		if len(t.latencies) == 0 {
			return 0
		}
		return t.latencies[int(p*float64(len(t.latencies)-1))]
	}
	fmt.Printf("%d clients for %v, budgets %d to %d tokens, %d files, %s\n", o.clients, o.duration.Round(time.Second), o.minBudget, o.maxBudget, files,
		map[bool]string{false: "a static token", true: "an OAuth JWT"}[o.oauth])
	fmt.Printf("pages %d (%.0f/s), reads %d rebuilt and compared\n", len(t.latencies), float64(len(t.latencies))/elapsed.Seconds(), t.reads)
	fmt.Printf("page latency p50 %v, p99 %v\n", pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond))
	fmt.Printf("errors %d, pages over budget %d\n", len(t.errs), t.over)
	fmt.Printf("server peak RSS %s\n", peakRSS(pid))
	for _, e := range t.errs[:min(len(t.errs), 5)] {
		fmt.Println("  error:", e)
	}
	if t.reads == 0 {
		fmt.Println("no file was read")
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
