package reader

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/tokencount"
)

// BenchmarkPageAt reads one 2,000-token page through a cursor near the
// start and near the end of a 16 MiB file: the two must cost the same. The
// file is left to settle first (fsview.TimeGranularity), so that its
// version is remembered and each read reads its window alone.
func BenchmarkPageAt(b *testing.B) {
	fx := newFixtureCap(b, tokencount.O200kBase, 0)
	line := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 4) + "\n"
	text := strings.Repeat(line, (16<<20)/len(line))
	os.WriteFile(filepath.Join(fx.dir, "big.md"), []byte(text), 0o644)
	time.Sleep(fsview.TimeGranularity + 100*time.Millisecond)
	f, err := fx.rd.fs.Regular("big.md")
	if err != nil {
		b.Fatal(err)
	}
	ver, _, err := fx.rd.fs.Hash(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	for _, at := range []struct {
		name   string
		offset int64
	}{{"start", 8000}, {"end", int64(len(text)) - 50000}} {
		cur, err := fx.rd.cursors.Encode(cursor.State{Offset: at.offset, Version: ver.Short(), Issued: *fx.clock}, f.URI, "alice")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(at.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := fx.rd.Page(context.Background(), PageRequest{Name: "big.md", Subject: "alice", MaxTokens: 2000, Cursor: cur}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLines reads lines of a 16 MiB log as an agent does, with the
// server's bounds: the first 2,000 lines, 2,000 lines from the middle, and
// the last 100. Each read scans the whole file once (to count its lines and
// hash it), so the three should cost about the same.
func BenchmarkLines(b *testing.B) {
	fx := newFixtureCap(b, tokencount.O200kBase, 0)
	line := "2026-12-01T06:00:00Z level=info request=123456 path=/api/v1/items status=200 took=12ms\n"
	n := (16 << 20) / len(line)
	os.WriteFile(filepath.Join(fx.dir, "app.log"), []byte(strings.Repeat(line, n)), 0o644)
	for _, at := range []struct {
		name   string
		offset int
	}{{"start", 1}, {"middle", n / 2}, {"tail", -100}} {
		b.Run(at.name, func(b *testing.B) {
			for b.Loop() {
				_, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: "app.log", Offset: at.offset, MaxLines: DefaultLines, MaxLineChars: MaxLineChars, MaxTokens: DefaultLineMaxTokens})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChunks cuts 16 MiB of Markdown into 2,000-token chunks from a
// stream, natural and tight, beside counting the same bytes whole: the
// throughput of read --format raw against that of count.
func BenchmarkChunks(b *testing.B) {
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	text := corpus.For(b, "markdown", 16<<20)
	b.Run("count", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			counter.Count(string(text))
		}
	})
	for _, tight := range []bool{false, true} {
		b.Run(map[bool]string{false: "natural", true: "tight"}[tight], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				err := Chunks(context.Background(), bytes.NewReader(text), ChunkRequest{Counter: counter, MaxTokens: 2000, Tight: tight}, func([]byte, int) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCountText counts 4 MiB of CJK-heavy text and of Go source as
// folio count does, its windows on every core (run with -cpu 1,2 to see
// what the second core adds).
func BenchmarkCountText(b *testing.B) {
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []string{"cjk", "go"} {
		text := corpus.For(b, kind, 4<<20)
		b.Run(kind, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := CountText(context.Background(), text, counter); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
