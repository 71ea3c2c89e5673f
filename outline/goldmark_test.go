package outline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// goldmarkHeadings are the headings goldmark (CommonMark, with GitHub's
// tables if asked) finds in src at the top level (a heading inside a block quote
// or a list item heads no section of the document): each as "level line:
// text", the line "?" for an empty heading (goldmark keeps no position
// for one).
func goldmarkHeadings(src []byte, tables bool) []string {
	md := goldmark.New()
	if tables {
		md = goldmark.New(goldmark.WithExtensions(extension.Table))
	}
	doc := md.Parser().Parse(text.NewReader(src))
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok || n.Parent().Kind() != ast.KindDocument {
			return ast.WalkContinue, nil
		}
		line := "?"
		if h.Lines().Len() > 0 {
			line = fmt.Sprint(bytes.Count(src[:h.Lines().At(0).Start], []byte("\n")) + 1)
		}
		out = append(out, fmt.Sprintf("%d %s: %s", h.Level, line, strings.TrimSpace(string(h.Text(src)))))
		return ast.WalkContinue, nil
	})
	return out
}

// TestHeadingsAgainstGoldmark checks the sections Markdown finds in the
// docs fixture's Markdown against goldmark's headings: levels, lines and
// titles.
func TestHeadingsAgainstGoldmark(t *testing.T) {
	files, _ := filepath.Glob("../testdata/docsearch/corpus/*/*.md")
	more, _ := filepath.Glob("../testdata/docsearch/corpus/*/*/*/*.md")
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := goldmarkHeadings(blankFrontMatter(src), true)
		got := headings(Markdown(src))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", f, got, want)
		}
	}
}

// blankFrontMatter is src with its front matter (a "---" line first, up
// to the next) blanked, line for line: goldmark would read it as text.
func blankFrontMatter(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) == 0 || strings.TrimSpace(string(lines[0])) != "---" {
		return src
	}
	out := bytes.Clone(src)
	at := 0
	for i, l := range lines {
		for k := at; k < at+len(l)-1; k++ {
			out[k] = ' '
		}
		at += len(l)
		if i > 0 && strings.TrimSpace(string(l)) == "---" {
			break
		}
	}
	return out
}

// FuzzHeadingsGoldmark checks that the sections Markdown finds start
// where goldmark's headings do, at their levels. (Their titles are
// checked on real docs by TestHeadingsAgainstGoldmark: markup in a title
// is read more simply than CommonMark's emphasis rules.)
func FuzzHeadingsGoldmark(f *testing.F) {
	for _, s := range []string{"# a\n\ntext\n\nb\n---\n", "```\n# not\n```\n## yes `code`\n", "> # quoted\n\n- # listed\n", "Title\n===\n\n    # indented\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		if bytes.HasPrefix(src, []byte("---")) || strings.ContainsAny(s, "\r|\t") {
			// Front matter, which goldmark reads as text; "\r", which
			// goldmark does not always read as ending a line; "|", of
			// tables, which CommonMark does not have and goldmark's
			// extension reads otherwise than GitHub where they are
			// malformed (TestHeadingsAgainstGoldmark checks real ones);
			// tabs in indents, whose columns inside quotes and items
			// Markdown counts only roughly.
			return
		}
		want := levelsAndLines(goldmarkHeadings(src, false))
		got := levelsAndLines(headings(Markdown(src)))
		for i := range min(len(got), len(want)) {
			if strings.HasSuffix(got[i], " ?") || strings.HasSuffix(want[i], " ?") {
				got[i], want[i] = got[i][:1], want[i][:1] // a line not known: the level alone
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", s, got, want)
		}
	})
}

// headings are d's sections as goldmarkHeadings gives them.
func headings(d *Doc) []string {
	var out []string
	for _, s := range d.Sections {
		line := fmt.Sprint(s.First)
		if s.Title == "" {
			line = "?"
		}
		out = append(out, fmt.Sprintf("%d %s: %s", s.Level, line, s.Title))
	}
	return out
}

// levelsAndLines are headings without their titles.
func levelsAndLines(headings []string) []string {
	out := make([]string, len(headings))
	for i, h := range headings {
		out[i], _, _ = strings.Cut(h, ":")
	}
	return out
}

// BenchmarkGoldmarkParse weighs goldmark's parse of the docs fixture's
// Markdown (to its syntax tree alone, no Doc made of it) against
// Markdown's whole reading: what a reader built on goldmark would cost at
// least.
func BenchmarkGoldmarkParse(b *testing.B) {
	files, _ := filepath.Glob("../testdata/docsearch/corpus/*/*.md")
	more, _ := filepath.Glob("../testdata/docsearch/corpus/*/*/*/*.md")
	var docs [][]byte
	size := 0
	for _, f := range append(files, more...) {
		src, _ := os.ReadFile(f)
		docs, size = append(docs, src), size+len(src)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	b.Run("goldmark", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, d := range docs {
				md.Parser().Parse(text.NewReader(d))
			}
		}
	})
	b.Run("outline", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, d := range docs {
				Markdown(d)
			}
		}
	})
}
