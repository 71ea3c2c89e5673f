package bpe

import (
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/corpus"
)

func text(b *testing.B, kind string, size int) string {
	return string(corpus.For(b, kind, size))
}

// BenchmarkCount counts 1 MiB of each corpus with each encoding.
func BenchmarkCount(b *testing.B) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		e := load(b, name)
		for _, kind := range corpus.Kinds() {
			s := text(b, kind, 1<<20)
			b.Run(name+"/"+kind, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					e.Count(s)
				}
			})
		}
	}
}

// BenchmarkRuns counts long runs of one character, which are one piece
// each, against prose of the same length.
func BenchmarkRuns(b *testing.B) {
	e := load(b, O200kBase)
	prose := text(b, "markdown", 1<<20)
	for _, tc := range []struct {
		name string
		s    string
	}{
		{"a-200000", strings.Repeat("a", 200000)},
		{"prose-200000", prose[:200000]},
		{"spaces-100000", strings.Repeat(" ", 100000)},
		{"prose-100000", prose[:100000]},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.s)))
			for b.Loop() {
				e.Count(tc.s)
			}
		})
	}
}

// BenchmarkLoad loads each encoding's vocabulary.
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				load(b, name)
			}
		})
	}
}
