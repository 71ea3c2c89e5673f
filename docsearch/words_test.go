package docsearch

import (
	"context"
	"strings"
	"testing"
)

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
