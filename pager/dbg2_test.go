package pager

import (
	"testing"
	"unicode/utf8"
)

func TestDbgBoundary(t *testing.T) {
	for _, kind := range []string{"go", "markdown"} {
		text := corpus(t, kind, 1<<20)[:300000]
		for _, name := range []string{O200kBase, Cl100kBase} {
			c := counter(t, name)
			bad, n := 0, 0
			for p := 1; p < len(text)-1 && bad < 8; p++ {
				if !splitsAt(text, p) {
					continue
				}
				n++
				lo, hi := max(p-40, 0), min(p+40, len(text))
				for !utf8.RuneStart(text[lo]) {
					lo++
				}
				a := string(appendEscaped(nil, text[lo:p]))
				b := string(appendEscaped(nil, text[p:hi]))
				if c.Count(a)+c.Count(b) != c.Count(a+b) {
					bad++
					t.Logf("%q | %q", a, b)
				}
			}
			t.Log(kind, name, n, bad)
		}
	}
}
