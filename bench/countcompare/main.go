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

func main() {
	folioBin := flag.String("folio", "", "the folio binary")
	modules := flag.String("modules", "", "the node_modules that hold gpt-tokenizer and tiktoken")
	script := flag.String("script", "", "count.mjs")
	size := flag.Int("size", 4<<20, "bytes of each text")
	runs := flag.Int("n", 7, "interleaved runs of each process")
	flag.Parse()
	if *folioBin == "" || *modules == "" || *script == "" {
		log.Fatal("usage: countcompare -folio BIN -modules DIR -script count.mjs")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "countcompare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	impls := []struct {
		name string
		cmd  func(file string) *exec.Cmd
	}{
		{"folio", func(file string) *exec.Cmd {
			return exec.Command(*folioBin, "count", "--tokenizer", "o200k_base", file)
		}},
		{"gpt-tokenizer", func(file string) *exec.Cmd { return exec.Command(node, *script, "gpt-tokenizer", file) }},
		{"tiktoken-wasm", func(file string) *exec.Cmd { return exec.Command(node, *script, "tiktoken", file) }},
	}
	differ := false
	fmt.Printf("%-5s %-14s %10s %8s %8s %8s %11s %11s\n", "text", "tokenizer", "tokens", "proc ms", "count ms", "MB/s", "vs process", "vs count")
	for _, kind := range []string{"cjk", "go"} {
		text, err := corpus.Text(kind, *size)
		if err != nil {
			log.Fatal(err)
		}
		file := filepath.Join(dir, kind+".txt")
		if err := os.WriteFile(file, text, 0o644); err != nil {
			log.Fatal(err)
		}
		times := make([][]time.Duration, len(impls))
		counting := make([][]float64, len(impls)) // ms of the count alone
		counts := make([]string, len(impls))
		for run := range *runs + 1 { // the first run warms the caches
			for i, impl := range impls {
				cmd := impl.cmd(file)
				cmd.Env = append(os.Environ(), "COUNTCOMPARE_MODULES="+*modules)
				cmd.Stderr = os.Stderr
				t0 := time.Now()
				out, err := cmd.Output()
				d := time.Since(t0)
				if err != nil {
					log.Fatalf("%s: %v", impl.name, err)
				}
				// folio prints "TOKENS  PATH"; count.mjs "TOKENS MS".
				fields := strings.Fields(string(out) + " ? ?")
				counts[i] = fields[0]
				if run > 0 {
					times[i] = append(times[i], d)
					if i > 0 {
						alone, err := strconv.ParseFloat(fields[1], 64)
						if err != nil {
							log.Fatalf("%s: %q", impl.name, out)
						}
						counting[i] = append(counting[i], alone)
					}
				}
			}
		}
		if n, err := strconv.Atoi(counts[0]); err != nil || n <= 0 {
			log.Fatalf("folio counts %q tokens in %s text", counts[0], kind)
		}
		folio := median(times[0])
		for i, impl := range impls {
			m := median(times[i])
			if i == 0 {
				fmt.Printf("%-5s %-14s %10s %8.1f %8s %8.1f\n", kind, impl.name, counts[i], ms(m), "", float64(len(text))/m.Seconds()/1e6)
				continue
			}
			slices.Sort(counting[i])
			alone := counting[i][len(counting[i])/2]
			fmt.Printf("%-5s %-14s %10s %8.1f %8.1f %8.1f %10.1fx %10.1fx\n", kind, impl.name, counts[i], ms(m), alone,
				float64(len(text))/(alone/1000)/1e6, float64(m)/float64(folio), alone/ms(folio))
			if counts[i] != counts[0] {
				log.Printf("%s counts %s tokens in %s text, folio %s", impl.name, counts[i], kind, counts[0])
				differ = true
			}
		}
	}
	if differ {
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
