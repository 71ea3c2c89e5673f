package reader

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/folio-mcp/folio/internal/corpus"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/toolerr"
)

// chunk cuts text into chunks through src, recounting each.
func chunk(t *testing.T, src io.Reader, counter pager.Counter, budget int, tight bool) [][]byte {
	t.Helper()
	var out [][]byte
	err := Chunks(context.Background(), src, ChunkRequest{Counter: counter, MaxTokens: budget, Tight: tight, Name: "-"}, func(c []byte, tokens int) error {
		if n := counter.Count(string(c)); n > budget || n != tokens {
			t.Fatalf("chunk %d counts %d tokens (it was given with %d), budget %d", len(out)+1, n, tokens, budget)
		}
		out = append(out, bytes.Clone(c))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestChunks: prose, code and CJK cut into chunks at several budgets,
// natural and tight, through readers that give a byte at a time or half
// of what is asked: every chunk within its budget, the chunks the text,
// and natural chunks ending where a person would, at a cost in fill
// that is logged.
func TestChunks(t *testing.T) {
	o200k, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range corpus.Kinds() {
		text := corpus.For(t, kind, 256<<10)
		for _, budget := range []int{64, 500, 2000} {
			fills := map[bool]float64{}
			for _, tight := range []bool{false, true} {
				var src io.Reader = bytes.NewReader(text)
				if budget == 64 {
					src = iotest.OneByteReader(src)
				} else if budget == 500 {
					src = iotest.HalfReader(src)
				}
				chunks := chunk(t, src, o200k, budget, tight)
				if got := bytes.Join(chunks, nil); !bytes.Equal(got, text) {
					t.Fatalf("%s at %d (tight %v): the chunks are not the text", kind, budget, tight)
				}
				tokens, natural := 0, 0
				for _, c := range chunks[:len(chunks)-1] {
					tokens += o200k.Count(string(c))
					if pager.EndsNaturally(c) {
						natural++
					}
				}
				fills[tight] = float64(tokens) / float64((len(chunks)-1)*budget)
				if !tight && kind != "cjk" && natural*10 < (len(chunks)-1)*9 {
					t.Errorf("%s at %d: %d of %d chunks end where a person would", kind, budget, natural, len(chunks)-1)
				}
			}
			t.Logf("%s at %d tokens: fill %.1f%% natural, %.1f%% tight", kind, budget, 100*fills[false], 100*fills[true])
			if fills[false] < 0.5 || fills[true] < fills[false] {
				t.Errorf("%s at %d: fill %.3f natural, %.3f tight", kind, budget, fills[false], fills[true])
			}
		}
	}
}

// TestNaturalCut: the ranks in order, each only in the chunk's second
// half, never inside "\r\n" or a code point.
func TestNaturalCut(t *testing.T) {
	for _, tc := range []struct{ chunk, want string }{
		{"First para.\n\nSecond para starts and goes on. More", "First para.\n\nSecond para starts and goes on. "},
		{"intro\n\nA long paragraph. It goes on and on\nand then a line\nand more words", "intro\n\nA long paragraph. It goes on and on\nand then a line\n"},
		{"One sentence here. Another one there! And a half", "One sentence here. Another one there! "},
		{"no sentence ends here at all just words", "no sentence ends here at all just "},
		{"abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"},
		{"line one\r\nline two\r\nline three\r", "line one\r\nline two\r\n"},
		{"短い文です。これは長い文で、まだ続いています", "短い文です。これは長い文で、"},
		{"まだ続いています。これは長い文で、まだ続いていますね", "まだ続いています。これは長い文で、"},
		{"これは長い文で、まだ続いていますね", "これは長い文で、まだ続いていますね"},
		{"a\n\n" + strings.Repeat("x", 40), "a\n\n" + strings.Repeat("x", 40)},
	} {
		if got := tc.chunk[:pager.NaturalCut([]byte(tc.chunk))]; got != tc.want {
			t.Errorf("NaturalCut(%q) = %q, want %q", tc.chunk, got, tc.want)
		}
	}
}

// TestChunksRefuse: text that is not text, or too much of it, is refused
// with the code a file's would get, naming where.
func TestChunksRefuse(t *testing.T) {
	o200k, _ := tokencount.New(tokencount.O200kBase)
	for _, tc := range []struct {
		text     string
		maxBytes int64
		code     string
	}{
		{"hello\x00world", 0, toolerr.CodeNotText},
		{"hello \xff world", 0, toolerr.CodeNotText},
		{strings.Repeat("word ", 1000), 1000, toolerr.CodeTooLarge},
	} {
		err := Chunks(context.Background(), strings.NewReader(tc.text), ChunkRequest{Counter: o200k, MaxTokens: 100, MaxBytes: tc.maxBytes, Name: "-"}, func([]byte, int) error { return nil })
		if e := toolerr.From(err); e == nil || e.Code != tc.code {
			t.Errorf("%.20q: %v, want %s", tc.text, err, tc.code)
		}
	}
	if err := Chunks(context.Background(), strings.NewReader(""), ChunkRequest{Counter: o200k, MaxTokens: 100}, func([]byte, int) error { return errors.New("a chunk of nothing") }); err != nil {
		t.Errorf("empty text: %v", err)
	}
}

// TestCount: counting a stream in windows gives what counting the text
// whole gives, with both byte-pair encodings and the estimate, on prose,
// code, CJK and text with CRLF and blank lines, whatever the reads' sizes.
func TestCount(t *testing.T) {
	texts := map[string]string{"mixed": strings.Repeat("Hello\r\n\r\nworld 42\n  indented\n\n\nx\n1\n", 100000)}
	for _, kind := range corpus.Kinds() {
		texts[kind] = string(corpus.For(t, kind, 3<<20))
	}
	for _, name := range tokencount.Names() {
		counter, err := tokencount.New(name)
		if err != nil {
			t.Fatal(err)
		}
		for kind, text := range texts {
			n, err := Count(context.Background(), iotest.HalfReader(strings.NewReader(text)), counter, 0, "-")
			if want := counter.Count(text); err != nil || n != want {
				t.Errorf("%s, %s: %d (%v), counted whole %d", name, kind, n, err, want)
			}
		}
	}
}
