package docsearch

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzWords checks Words against a plain reading of its contract: the
// fields of letters and digits of s in lower case, each run of CJK
// letters in them cut into its overlapping pairs.
func FuzzWords(f *testing.F) {
	f.Add("Hello, World! İstanbul ÀB 語 x1_y2")
	f.Add("建立索引时abc日本語のテキスト 한국어 文")
	f.Fuzz(func(t *testing.T, s string) {
		var want []string
		for _, field := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			rs := []rune(field)
			for i := 0; i < len(rs); {
				j := i + 1
				for j < len(rs) && isCJK(rs[j]) == isCJK(rs[i]) {
					j++
				}
				switch {
				case !isCJK(rs[i]) || j-i == 1:
					want = append(want, string(rs[i:j]))
				default:
					for k := i; k+1 < j; k++ {
						want = append(want, string(rs[k:k+2]))
					}
				}
				i = j
			}
		}
		if got := Words(s); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	})
}

func TestWordsCJK(t *testing.T) {
	for s, want := range map[string][]string{
		"建立索引时":          {"建立", "立索", "索引", "引时"},
		"用go建立索引":        {"用", "go", "建立", "立索", "索引"},
		"文":              {"文"},
		"日本語のテキスト":       {"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"},
		"한국어 검색":         {"한국", "국어", "검색"},
		"Index 索引, fast": {"index", "索引", "fast"},
	} {
		if got := Words(s); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestAnswerCJK asks in Chinese and in Japanese, without spaces, and gets
// the passage that answers from among others in the same script.
func TestAnswerCJK(t *testing.T) {
	docs := map[string]string{
		"zh/index.md": "# 索引\n\n建立索引时，服务器在后台读取每个文件。\n\n# 缓存\n\n缓存保存在内存中，重启后失效。\n",
		"zh/auth.md":  "# 认证\n\n每个请求都要带上令牌。\n",
		"ja/setup.md": "# 設定\n\n設定ファイルはホームディレクトリに置きます。\n\n# ログ\n\nログは標準エラーに書き出されます。\n",
	}
	ix := New()
	for path, text := range docs {
		ix.Put(path, "v1", []byte(text))
	}
	read := func(_ context.Context, path string) ([]byte, string, error) { return []byte(docs[path]), "v1", nil }
	for q, want := range map[string]string{
		"怎么建立索引？":     "建立索引时",
		"重启以后缓存还在吗":   "重启后失效",
		"ログはどこに出力される": "標準エラー",
		"設定ファイルの場所":   "ホームディレクトリ",
	} {
		hits, err := ix.Search(context.Background(), q, 1, nil)
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s: %v, %d hits", q, err, len(hits))
		}
		a, err := ix.Answer(context.Background(), Query{Text: q, MaxTokens: 200}, func(s string) int { return len(s) / 3 }, read)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(a.Text, want) {
			t.Errorf("%s: answer %q lacks %q", q, a.Text, want)
		}
	}
}
