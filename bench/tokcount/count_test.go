package tokcount

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/tiktoken-go/tokenizer"
)

// texts reads the files that TestWriteTexts wrote into $TOKCOUNT_DIR.
func texts(b *testing.B) map[string]string {
	dir := os.Getenv("TOKCOUNT_DIR")
	if dir == "" {
		b.Skip("TOKCOUNT_DIR is not set: run ../tokcount.sh")
	}
	m := map[string]string{}
	for _, kind := range corpus.Kinds() {
		t, err := os.ReadFile(filepath.Join(dir, kind+".txt"))
		if err != nil {
			b.Fatal(err)
		}
		m[kind] = string(t)
	}
	return m
}

// TestWriteTexts writes $TOKCOUNT_BYTES (1 MiB by default) of each corpus
// into $TOKCOUNT_DIR, for this benchmark and tokcount.mjs to read the same
// bytes.
func TestWriteTexts(t *testing.T) {
	dir := os.Getenv("TOKCOUNT_DIR")
	if dir == "" {
		t.Skip("TOKCOUNT_DIR is not set: run ../tokcount.sh")
	}
	size := 1 << 20
	if s := os.Getenv("TOKCOUNT_BYTES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("TOKCOUNT_BYTES=%s: want a number of bytes", s)
		}
		size = n
	}
	for _, kind := range corpus.Kinds() {
		text, err := corpus.Text(kind, size)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, kind+".txt"), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkCount counts each text with folio's counter and with the old one,
// and checks that they agree (the old one drops DEL, which these texts do
// not hold).
func BenchmarkCount(b *testing.B) {
	m := texts(b)
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		folio, err := tokencount.New(enc)
		if err != nil {
			b.Fatal(err)
		}
		old, err := tokenizer.Get(tokenizer.Encoding(enc))
		if err != nil {
			b.Fatal(err)
		}
		for _, kind := range corpus.Kinds() {
			text := m[kind]
			if n, _ := old.Count(text); n != folio.Count(text) {
				b.Fatalf("%s %s: folio counts %d, tiktoken-go %d", enc, kind, folio.Count(text), n)
			}
			count := map[string]func(string) int{
				"folio":       folio.Count,
				"tiktoken-go": func(s string) int { n, _ := old.Count(s); return n },
			}
			for _, impl := range []string{"folio", "tiktoken-go"} {
				b.Run("enc="+enc+"/text="+kind+"/impl="+impl, func(b *testing.B) {
					b.SetBytes(int64(len(text)))
					for b.Loop() {
						count[impl](text)
					}
				})
			}
		}
	}
}
