// Command grepcompare times folio's grep tool, called through folio serve
// over stdio by a go-sdk client, against ripgrep run as a process on the
// same tree (the Go distribution's src by default), in interleaved rounds,
// and checks that both find the same lines: it exits with status 1 when
// they do not, and stops when ripgrep finds no line for a search. Run it
// with bench/grepcompare.sh.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/wire"
)

// A search: folio's grep arguments and ripgrep's flags for the same.
type search struct {
	name    string
	pattern string
	literal bool
	fold    bool
}

func main() {
	folioBin := flag.String("folio", "", "the folio binary")
	root := flag.String("root", "", "the tree to search (default: GOROOT/src)")
	rounds := flag.Int("n", 15, "interleaved rounds per search")
	flag.Parse()
	if *folioBin == "" {
		log.Fatal("usage: grepcompare -folio BIN [-root DIR] [-n ROUNDS]")
	}
	if *root == "" {
		goroot, err := mcptest.GoRoot()
		if err != nil {
			log.Fatal(err)
		}
		*root = filepath.Join(goroot, "src")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	cmd := exec.Command(*folioBin, "serve", "--root", *root, "--log-level", "error")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "grepcompare", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	searches := []search{
		{"literal", "syscall.EINVAL", true, false},
		{"regexp", `func \(\w+ \*\w+\) Close\(`, false, false},
		{"ignore_case", "unexpected eof", false, true},
	}
	differ := false
	fmt.Printf("tree: %s\n", *root)
	fmt.Printf("%-12s %10s %10s %7s %9s %9s\n", "search", "folio ms", "rg ms", "ratio", "folio", "rg")
	for _, s := range searches {
		var folioLat, rgLat []time.Duration
		var folioHits, rgHits []string
		for i := range *rounds + 1 { // the first round warms the caches
			t0 := time.Now()
			hits := folioGrep(ctx, cs, s)
			d := time.Since(t0)
			t0 = time.Now()
			theirs := ripgrep(rg, *root, s)
			e := time.Since(t0)
			if i > 0 {
				folioLat, rgLat = append(folioLat, d), append(rgLat, e)
			}
			folioHits, rgHits = hits, theirs
		}
		f, r := median(folioLat), median(rgLat)
		fmt.Printf("%-12s %10.1f %10.1f %6.1fx %9d %9d\n", s.name, ms(f), ms(r), float64(f)/float64(r), len(folioHits), len(rgHits))
		if len(rgHits) == 0 {
			log.Fatalf("%s: rg finds no line in %s, so there is nothing to compare: choose a -root where it does", s.name, *root)
		}
		slices.Sort(folioHits)
		slices.Sort(rgHits)
		if !slices.Equal(folioHits, rgHits) {
			differ = true
			for _, h := range folioHits {
				if _, found := slices.BinarySearch(rgHits, h); !found {
					fmt.Printf("  only folio: %s\n", h)
				}
			}
			for _, h := range rgHits {
				if _, found := slices.BinarySearch(folioHits, h); !found {
					fmt.Printf("  only rg:    %s\n", h)
				}
			}
		}
	}
	if differ {
		os.Exit(1)
	}
}

// folioGrep calls folio's grep and returns its matches as path:line.
func folioGrep(ctx context.Context, cs *mcp.ClientSession, s search) []string {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{
		"pattern": s.pattern, "literal": s.literal, "ignore_case": s.fold, "max_matches": 100000,
	}})
	if err != nil {
		log.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		log.Fatalf("grep: %s", text.String())
	}
	// The answer: a path, then its lines as N:text, files apart by an
	// empty line; a line that starts wire.NotePrefix is a note.
	var hits []string
	path := ""
	for line := range strings.Lines(text.String()) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, wire.NotePrefix):
			log.Printf("folio: %s", line)
		case line == "":
			path = ""
		case path == "":
			path = line
		default:
			n, _, ok := strings.Cut(line, ":")
			if _, err := strconv.Atoi(n); !ok || err != nil {
				log.Fatalf("not a grep line: %q", line)
			}
			hits = append(hits, path+":"+n)
		}
	}
	return hits
}

// ripgrep runs rg in root and returns its matches as path:line.
func ripgrep(rg, root string, s search) []string {
	args := []string{"--line-number", "--no-heading", "--with-filename", "--color", "never"}
	if s.literal {
		args = append(args, "--fixed-strings")
	}
	if s.fold {
		args = append(args, "--ignore-case")
	}
	cmd := exec.Command(rg, append(args, "--", s.pattern)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return nil // rg found no line
	}
	if err != nil {
		log.Fatalf("rg: %v", err)
	}
	var hits []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		path, rest, _ := strings.Cut(sc.Text(), ":")
		n, _, _ := strings.Cut(rest, ":")
		hits = append(hits, strings.TrimPrefix(path, "./")+":"+n)
	}
	return hits
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
