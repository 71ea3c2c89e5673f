// Command countcompare times `folio count` against the fastest JavaScript
// tokenizers, gpt-tokenizer and tiktoken's WebAssembly build, each a whole
// process counting the o200k_base tokens of one file (4 MiB of CJK-heavy
// text, and of Go source; -size), in interleaved runs, and checks that all
// give the same count (it exits with status 1 when they do not). The
// JavaScript ones also time their count alone, once loaded (without node's
// start and the vocabulary's load): folio's whole process is held to that
// too. Run it with bench/countcompare.sh.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/folio-mcp/folio/internal/corpus"
)

// options are countcompare's flags.
type options struct {
	folioBin, modules, script string
	size, runs                int
}

// impl is one tokenizer compared: its name, and the command that counts
// the tokens of a file with it.
type impl struct {
	name string
	cmd  func(file string) *exec.Cmd
}

// timings are what the runs of each impl (by index) measured: the time
// of each whole process, the time of the count alone as the JavaScript
// ones report it (ms), and the count.
type timings struct {
	times    [][]time.Duration
	counting [][]float64
	counts   []string
}

func main() {
	o := parseFlags()
	node, err := exec.LookPath("node")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "countcompare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	impls := []impl{
		{"folio", func(file string) *exec.Cmd {
			return exec.Command(o.folioBin, "count", "--tokenizer", "o200k_base", file)
		}},
		{"gpt-tokenizer", func(file string) *exec.Cmd { return exec.Command(node, o.script, "gpt-tokenizer", file) }},
		{"tiktoken-wasm", func(file string) *exec.Cmd { return exec.Command(node, o.script, "tiktoken", file) }},
	}
	differ := false
	fmt.Printf("%-5s %-14s %10s %8s %8s %8s %11s %11s\n", "text", "tokenizer", "tokens", "proc ms", "count ms", "MB/s", "vs process", "vs count")
	for _, kind := range []string{"cjk", "go"} {
		text, err := corpus.Text(kind, o.size)
		if err != nil {
			log.Fatal(err)
		}
		file := filepath.Join(dir, kind+".txt")
		if err := os.WriteFile(file, text, 0o644); err != nil {
			log.Fatal(err)
		}
		t := timeRuns(impls, file, o)
		if n, err := strconv.Atoi(t.counts[0]); err != nil || n <= 0 {
			log.Fatalf("folio counts %q tokens in %s text", t.counts[0], kind)
		}
		if !printRows(kind, len(text), impls, t) {
			differ = true
		}
	}
	if differ {
		os.Exit(1)
	}
}

// parseFlags reads countcompare's flags; the folio binary, the
// node_modules and count.mjs are required.
func parseFlags() options {
	var o options
	flag.StringVar(&o.folioBin, "folio", "", "the folio binary")
	flag.StringVar(&o.modules, "modules", "", "the node_modules that hold gpt-tokenizer and tiktoken")
	flag.StringVar(&o.script, "script", "", "count.mjs")
	flag.IntVar(&o.size, "size", 4<<20, "bytes of each text")
	flag.IntVar(&o.runs, "n", 7, "interleaved runs of each process")
	flag.Parse()
	if o.folioBin == "" || o.modules == "" || o.script == "" {
		log.Fatal("usage: countcompare -folio BIN -modules DIR -script count.mjs")
	}
	return o
}

// timeRuns runs each impl on file, interleaved, -n times after a first
// run that warms the caches, and gives what the runs measured.
func timeRuns(impls []impl, file string, o options) timings {
	t := timings{
		times:    make([][]time.Duration, len(impls)),
		counting: make([][]float64, len(impls)), // ms of the count alone
		counts:   make([]string, len(impls)),
	}
	for run := range o.runs + 1 { // the first run warms the caches
		for i, impl := range impls {
			cmd := impl.cmd(file)
			cmd.Env = append(os.Environ(), "COUNTCOMPARE_MODULES="+o.modules)
			cmd.Stderr = os.Stderr
			t0 := time.Now()
			out, err := cmd.Output()
			d := time.Since(t0)
			if err != nil {
				log.Fatalf("%s: %v", impl.name, err)
			}
			// folio prints "TOKENS  PATH"; count.mjs "TOKENS MS".
			fields := strings.Fields(string(out) + " ? ?")
			t.counts[i] = fields[0]
			if run > 0 {
				t.times[i] = append(t.times[i], d)
				if i > 0 {
					alone, err := strconv.ParseFloat(fields[1], 64)
					if err != nil {
						log.Fatalf("%s: %q", impl.name, out)
					}
					t.counting[i] = append(t.counting[i], alone)
				}
			}
		}
	}
	return t
}

// printRows prints a row for each impl on the text of kind (size bytes),
// its medians and how they compare with folio's, and says whether every
// impl counted what folio did (logging each that did not).
func printRows(kind string, size int, impls []impl, t timings) (agree bool) {
	agree = true
	folio := median(t.times[0])
	for i, impl := range impls {
		m := median(t.times[i])
		if i == 0 {
			fmt.Printf("%-5s %-14s %10s %8.1f %8s %8.1f\n", kind, impl.name, t.counts[i], ms(m), "", float64(size)/m.Seconds()/1e6)
			continue
		}
		slices.Sort(t.counting[i])
		alone := t.counting[i][len(t.counting[i])/2]
		fmt.Printf("%-5s %-14s %10s %8.1f %8.1f %8.1f %10.1fx %10.1fx\n", kind, impl.name, t.counts[i], ms(m), alone,
			float64(size)/(alone/1000)/1e6, float64(m)/float64(folio), alone/ms(folio))
		if t.counts[i] != t.counts[0] {
			log.Printf("%s counts %s tokens in %s text, folio %s", impl.name, t.counts[i], kind, t.counts[0])
			agree = false
		}
	}
	return agree
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
