package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/reader"
)

// BenchmarkReadSmallFile is the wall time of one `folio read` of one page
// of a small file: process start, vocabulary load, key file, read, fit.
func BenchmarkReadSmallFile(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "small.md")
	os.WriteFile(path, []byte(strings.Repeat("A small Markdown file.\n", 40)), 0o644)
	keyFile := filepath.Join(dir, "cursor.key")
	for _, tok := range []string{"o200k_base", "estimate"} {
		b.Run(tok, func(b *testing.B) {
			for b.Loop() {
				out, err := folioCmd(b, "read", "--tokenizer", tok, "--cursor-key-file", keyFile, "--max-tokens", "2000", path).Output()
				if err != nil || !bytes.Contains(out, []byte(`"content"`)) {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
}

// BenchmarkReadNearEnd reads one page 20 KB before the end of a 256 MiB
// file under /usr/bin/time -v and reports the peak RSS.
func BenchmarkReadNearEnd(b *testing.B) {
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		b.Skip("needs /usr/bin/time (Debian package time)")
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "big.md")
	line := []byte(strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 4) + "\n")
	f, _ := os.Create(path)
	for written := 0; written < 256<<20; written += len(line) {
		f.Write(line)
	}
	f.Close()
	keyFile := filepath.Join(dir, "cursor.key")
	ring, err := cursor.LoadKeyFile(keyFile)
	if err != nil {
		b.Fatal(err)
	}
	// Mint the cursor a reader of the whole file would hold near its end.
	fs, _ := fsview.Open([]string{"/"}, fsview.Options{})
	defer fs.Close()
	file, err := fs.Regular(path)
	if err != nil {
		b.Fatal(err)
	}
	ver, size, err := fs.Hash(context.Background(), file)
	if err != nil {
		b.Fatal(err)
	}
	cur, err := cursor.NewCodec(ring, 0, nil).Encode(cursor.State{Offset: size - 20000, Version: ver.Short(), Issued: time.Now()}, file.URI, reader.LocalSubject)
	if err != nil {
		b.Fatal(err)
	}
	rss := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	var peak int
	for b.Loop() {
		cmd := exec.Command(timeBin, "-v", folioBin, "read", "--max-file-bytes", "0", "--cursor-key-file", keyFile,
			"--max-tokens", "2000", "--cursor", cur, path)
		cmd.Env = testmain.Env(b)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(`"has_more":true`)) {
			b.Fatalf("%v %s %s", err, out, stderr.Bytes())
		}
		m := rss.FindSubmatch(stderr.Bytes())
		if m == nil {
			b.Fatalf("no RSS in %s", stderr.Bytes())
		}
		kb, _ := strconv.Atoi(string(m[1]))
		peak = max(peak, kb)
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
}
