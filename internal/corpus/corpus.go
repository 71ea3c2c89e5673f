// Package corpus gives benchmarks and tests real text of a known kind and
// size: Go source and Markdown from the Go distribution (on every machine
// that builds folio), CJK-heavy Markdown made from a fixed list of
// phrases, and listing-like JSON answers.
package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Kinds lists the kinds Text knows.
func Kinds() []string { return []string{"go", "markdown", "cjk"} }

// ErrUnavailable is returned when the Go distribution's files cannot be
// read.
var ErrUnavailable = errors.New("corpus unavailable")

// Text returns size bytes or a little less of text of the given kind, cut
// at a line end.
func Text(kind string, size int) ([]byte, error) {
	var buf bytes.Buffer
	switch kind {
	case "go":
		root, err := goroot()
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(root, "src/cmd/compile/internal/ssa/rewriteAMD64.go"))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		buf.Write(b)
	case "markdown":
		root, err := goroot()
		if err != nil {
			return nil, err
		}
		for buf.Len() < size {
			n := buf.Len()
			filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") && buf.Len() < size {
					b, _ := os.ReadFile(path)
					buf.Write(b)
				}
				return nil
			})
			if buf.Len() == n {
				return nil, fmt.Errorf("%w: no Markdown under %s", ErrUnavailable, root)
			}
		}
	case "cjk":
		writeCJK(&buf, size)
	default:
		return nil, fmt.Errorf("unknown corpus kind %q (want one of %s)", kind, strings.Join(Kinds(), ", "))
	}
	b := buf.Bytes()
	if len(b) > size {
		b = b[:bytes.LastIndexByte(b[:size], '\n')+1]
	}
	return b, nil
}

// For is Text for a test or benchmark: it skips tb when the Go
// distribution's files cannot be read, and fails it on any other error.
func For(tb testing.TB, kind string, size int) []byte {
	tb.Helper()
	b, err := Text(kind, size)
	if errors.Is(err, ErrUnavailable) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// File is the file at rel (a slash path) in the Go distribution; it skips
// tb when the distribution cannot be read.
func File(tb testing.TB, rel string) []byte {
	tb.Helper()
	root, err := goroot()
	if err == nil {
		var b []byte
		if b, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			return b
		}
	}
	tb.Skip(err)
	return nil
}

func goroot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("%w: go env GOROOT: %v", ErrUnavailable, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// cjkPhrases are the words and punctuation the CJK text is made of: Chinese,
// Japanese and Korean prose about files and pages, with the ASCII that such
// documents carry (identifiers, numbers, paths).
var cjkPhrases = []string{
	"文件", "服务器", "令牌", "预算", "页面", "内容", "版本", "哈希", "游标", "读取", "返回",
	"每一页", "都不超过", "字节", "完全一致", "模型", "上下文", "目录", "配置", "错误", "重试",
	"这是一个", "用于", "的", "和", "在", "中", "我们", "可以", "通过", "命令行", "代码",
	"ファイル", "サーバー", "トークン", "ページ", "を読み込みます", "は", "が", "の", "です", "ます",
	"設定", "変更", "されました", "ディレクトリ", "エージェント", "予算内", "に収まる",
	"파일", "서버", "토큰", "페이지", "를", "읽습니다", "버전", "설정", "변경되었습니다",
	"，", "。", "、", "「", "」", "（", "）", "：", "！", "？", "・", "…",
	" `max_tokens` ", " `folio read` ", " README.md ", " 2,000 ", " 64 ", " BLAKE3 ", " v1.8.0 ",
}

// writeCJK writes Markdown paragraphs and headings of CJK phrases, the same
// text each time.
func writeCJK(buf *bytes.Buffer, size int) {
	x := uint32(2463534242) // xorshift32
	next := func(n int) int {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return int(x % uint32(n))
	}
	for line := 0; buf.Len() < size; line++ {
		switch {
		case line%12 == 0:
			buf.WriteString("\n## ")
		case line%5 == 0:
			buf.WriteString("- ")
		}
		for n := 8 + next(40); n > 0; n-- {
			buf.WriteString(cjkPhrases[next(len(cjkPhrases))])
		}
		buf.WriteString("。\n")
	}
}

// Listing is a listing-like JSON answer of n entries, about 60 bytes each,
// for the handle stores' tests and benchmarks.
func Listing(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"uri":"file:///src","entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"path":"dir%d/file%05d.go","type":"file","size":%d}`, i%7, i, i*13)
	}
	b.WriteString(`],"truncated":false}`)
	return []byte(b.String())
}
