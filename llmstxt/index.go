package llmstxt

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/folio-mcp/folio/outline"
	"github.com/folio-mcp/folio/wire"
)

// maxNote bounds a link's note, in characters.
const maxNote = 160

// tailRoom is what llms.txt's bound keeps for its last line.
const tailRoom = 160

// rootSection is the heading of the documents in the root itself.
const rootSection = "Docs"

// headText is the start of llms.txt: the H1, the summary as a blockquote
// when there is one, and a line on what follows.
func headText(h head) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", h.title)
	if h.summary != "" {
		fmt.Fprintf(&b, "> %s\n\n", h.summary)
	}
	fmt.Fprintf(&b, "Each link is a document of this tree, with the first sentence of its text; %s beside this file holds the documents whole.\n", FullName)
	return b.String()
}

// listFull reports whether llms.txt has reached its bound: the documents
// that follow are counted, not listed.
func (m *maker) listFull() bool { return m.unlisted > 0 }

// list adds the link line of the document rel, whose text is src, to its
// directory's section; or counts it, when the line would take llms.txt
// past its bound.
func (m *maker) list(rel string, src []byte) {
	if m.listFull() {
		m.unlisted++
		return
	}
	doc := outline.Of(rel, opening(src))
	title := titleOf(doc)
	if title == "" {
		title = path.Base(rel)
	}
	line := "- [" + escapeText(title) + "](" + m.opt.LinkPrefix + escapePath(rel) + ")"
	if note := bounded(firstSentence(oneLine(firstParagraph(doc))), maxNote); note != "" {
		line += ": " + note
	}
	dir := path.Dir(rel)
	s := m.byDir[dir]
	cost := len(line) + 1
	if s == nil {
		cost += len(sectionHeading(dir))
	}
	if len(m.headText)+m.listed+cost > m.opt.MaxIndexBytes-tailRoom {
		m.unlisted++
		return
	}
	if s == nil {
		s = &section{dir: dir}
		if m.byDir == nil {
			m.byDir = map[string]*section{}
		}
		m.byDir[dir] = s
		m.sections = append(m.sections, s)
	}
	s.lines = append(s.lines, line)
	m.listed += cost
}

// headBytes is how much of a document its title and first sentence are
// read from: they open it, and the outline of a long one costs its length.
const headBytes = 8 << 10

// opening is the start of src that its title and first sentence are
// read from: at most headBytes, cut after a line when one ends in its
// second half, else within a line, at a character.
func opening(src []byte) []byte {
	if len(src) <= headBytes {
		return src
	}
	if i := bytes.LastIndexByte(src[:headBytes], '\n'); i >= headBytes/2 {
		return src[:i+1]
	}
	end := headBytes
	for end > 0 && !utf8.RuneStart(src[end]) {
		end--
	}
	return src[:end]
}

// sectionHeading is the H2 (and the blank lines around it) of the
// section of the directory dir.
func sectionHeading(dir string) string {
	if dir == "." {
		dir = rootSection
	}
	return "\n## " + oneLine(dir) + "\n\n"
}

// index is llms.txt: its head, the section of the root's own documents,
// then the other directories' by their paths, component by component (a
// directory before those it holds), and a last line when documents were
// left out.
func (m *maker) index() []byte {
	var b strings.Builder
	b.WriteString(m.headText)
	slices.SortFunc(m.sections, func(x, y *section) int {
		switch {
		case x.dir == y.dir:
			return 0
		case x.dir == ".":
			return -1
		case y.dir == ".":
			return 1
		}
		return slices.Compare(strings.Split(x.dir, "/"), strings.Split(y.dir, "/"))
	})
	for _, s := range m.sections {
		writeSection(&b, s)
	}
	if m.unlisted > 0 {
		b.WriteString("\n" + wire.Note(fmt.Sprintf("%s stops at its bound of %d bytes: %d more documents are not listed.", IndexName, m.opt.MaxIndexBytes, m.unlisted)))
	}
	return []byte(b.String())
}

func writeSection(b *strings.Builder, s *section) {
	b.WriteString(sectionHeading(s.dir))
	for _, l := range s.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// oneLine is s with every run of white space made one space, trimmed.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// bounded is s cut to at most n characters, at a space when there is one
// in its second half, and marked "…" when cut.
func bounded(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, runes := 0, 0
	for runes < n-1 {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
		runes++
	}
	s = s[:cut]
	if sp := strings.LastIndexByte(s, ' '); sp > len(s)/2 {
		s = s[:sp]
	}
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}

// firstSentence is the first sentence of the one-line text s: up to a '.',
// '!' or '?' that ends the text or is followed by a space and a capital or
// a digit, or up to an ideographic full stop; else all of s.
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if i+1 == len(s) {
				return s
			}
			if s[i+1] == ' ' && startsSentence(s[i+2:]) {
				return s[:i+1]
			}
		}
	}
	if i := strings.Index(s, "。"); i >= 0 {
		return s[:i+len("。")]
	}
	return s
}

// startsSentence reports whether s starts as a sentence does: with a
// capital letter or a digit.
func startsSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// escapeText is s as a link's text: brackets and backslashes escaped.
func escapeText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// escapePath is the slash path p as a link's destination: ASCII letters,
// digits, "-._~/" and every non-ASCII byte as they are (a URL's path may
// carry UTF-8, and a model reads it better), any other byte as %XX.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= utf8.RuneSelf || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
