package reader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

// FuzzLines holds a line read of any text, offset, limit and cut to lines
// split independently (strings.SplitAfter), and checks the footer's
// numbers: the lines given, the total, and where the next read starts.
func FuzzLines(f *testing.F) {
	f.Add("a\nb\r\nc", 2, 1, uint8(0))
	f.Add("x\n\n\ny", -2, 0, uint8(3))
	f.Add("中文🙂 long line here\nshort\n", 1, 0, uint8(4))
	f.Add("", 0, 0, uint8(1))
	fx := newFixture(f, pager.O200kBase)
	path := filepath.Join(fx.dir, "f.txt")
	f.Fuzz(func(t *testing.T, text string, offset, limit int, cut uint8) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || limit < 0 || limit > 1<<20 {
			return
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		maxChars := int(cut % 8) // 0: no cut
		l, err := fx.rd.ReadLines(context.Background(), LineRequest{Name: "f.txt", Offset: offset, Limit: limit, MaxLineChars: maxChars})
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		start := offset - 1
		switch {
		case offset < 0:
			start = max(len(lines)+offset, 0)
		case offset == 0:
			start = 0
		}
		if start > 0 && start >= len(lines) {
			if mcptest.Code(err) != toolerr.CodeInvalidArgument {
				t.Fatalf("offset %d of %d lines: %v", offset, len(lines), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		end := len(lines)
		if limit > 0 {
			end = min(end, start+limit)
		}
		var want strings.Builder
		var cuts []int
		for i, line := range lines[start:end] {
			body, ending := strings.CutSuffix(line, "\n")
			if ending {
				if b, crlf := strings.CutSuffix(body, "\r"); crlf {
					body = b
				}
			}
			if runes := []rune(body); maxChars > 0 && len(runes) > maxChars {
				cuts = append(cuts, start+i+1)
				line = string(runes[:maxChars]) + fmt.Sprintf("…[+%d characters]", len(runes)-maxChars) + line[len(body):]
			}
			want.WriteString(line)
		}
		if string(l.Text) != want.String() || l.Total != len(lines) || l.First != start+1 || l.Count != end-start || fmt.Sprint(l.Cut) != fmt.Sprint(cuts) {
			t.Fatalf("%q offset %d limit %d cut %d: got %q (first %d, count %d, total %d, cut %v), want %q (cut %v)",
				text, offset, limit, maxChars, l.Text, l.First, l.Count, l.Total, l.Cut, want.String(), cuts)
		}
		if next := l.Next(); (end < len(lines)) != (next == end+1) || (end == len(lines) && next != 0) {
			t.Fatalf("next %d after lines %d-%d of %d", next, start+1, end, len(lines))
		}
	})
}
