package rank

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzWords checks Words with CJK against a plain reading of its
// contract: the fields of letters and digits of s in lower case, each run
// of CJK letters in them cut into its overlapping pairs; and without
// options, the fields alone.
func FuzzWords(f *testing.F) {
	f.Add("Hello, World! İstanbul ÀB 語 x1_y2")
	f.Add("建立索引时abc日本語のテキスト 한국어 文")
	f.Fuzz(func(t *testing.T, s string) {
		fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if got := Words(s, Options{}); !slices.Equal(got, fields) && len(got)+len(fields) > 0 {
			t.Fatalf("%q: %q, want %q", s, got, fields)
		}
		var want []string
		for _, field := range fields {
			rs := []rune(field)
			for i := 0; i < len(rs); {
				j := i + 1
				for j < len(rs) && IsCJK(rs[j]) == IsCJK(rs[i]) {
					j++
				}
				switch {
				case !IsCJK(rs[i]) || j-i == 1:
					want = append(want, string(rs[i:j]))
				default:
					for k := i; k+1 < j; k++ {
						want = append(want, string(rs[k:k+2]))
					}
				}
				i = j
			}
		}
		if got := Words(s, Options{CJK: true}); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	})
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		o    Options
		want []string
	}{
		{"建立索引时", Options{CJK: true}, []string{"建立", "立索", "索引", "引时"}},
		{"用go建立索引", Options{CJK: true}, []string{"用", "go", "建立", "立索", "索引"}},
		{"文", Options{CJK: true}, []string{"文"}},
		{"日本語のテキスト", Options{CJK: true}, []string{"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"}},
		{"한국어 검색", Options{CJK: true}, []string{"한국", "국어", "검색"}},
		{"Index 索引, fast", Options{CJK: true}, []string{"index", "索引", "fast"}},
		{"建立索引时", Options{}, []string{"建立索引时"}},
		{"readFile listDirectory", Options{CamelCase: true}, []string{"read", "file", "list", "directory"}},
		{"readFile", Options{}, []string{"readfile"}},
		{"HTTPServer getHTTPStatus", Options{CamelCase: true}, []string{"httpserver", "get", "httpstatus"}},
		{"github__create_pull_request", Options{CamelCase: true}, []string{"github", "create", "pull", "request"}},
		{"k8sPod v2Api", Options{CamelCase: true}, []string{"k8s", "pod", "v2api"}},
		{"éditerFichier ÉtéÀ", Options{CamelCase: true}, []string{"éditer", "fichier", "été", "à"}},
		{"An issue closes.", Options{CamelCase: true, CJK: true}, []string{"an", "issue", "closes"}},
	} {
		if got := Words(c.in, c.o); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q, %+v) = %q, want %q", c.in, c.o, got, c.want)
		}
	}
}
