package docsearch

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func FuzzWords(f *testing.F) {
	f.Add("Hello, World! İstanbul ÀB 語 x1_y2")
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if got := Words(s); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	})
}
