package outline

import "strings"

// AsciiDoc reads the structure of an AsciiDoc document: headings ("= "
// the document's title, "== " to "====== " its sections, or Markdown's
// "#"), delimited blocks (listing and literal as code, tables, comments
// and passthroughs as meta, examples, sidebars and quotes as text), each
// with the block attribute lines ("[source,go]", ".Title") above it,
// attribute entries, lists and paragraphs.
func AsciiDoc(src []byte) *Doc {
	p := &adocParser{builder{src: src, lines: splitLines(src)}}
	p.eachBlock(0, p.block)
	return p.doc()
}

// adocParser reads an AsciiDoc document a block at a time.
type adocParser struct {
	builder
}

// adocDelimiters are the delimited blocks' fences, by the kind each block
// is read as.
var adocDelimiters = map[string]Kind{
	"----": Code, "....": Code, "|===": Table, "////": Meta, "++++": Meta,
	"====": Paragraph, "****": Paragraph, "____": Paragraph, "--": Paragraph,
}

// block reads the block that starts at line i (its attribute lines
// first), and returns the line after it.
func (p *adocParser) block(i int) int {
	from := i
	for i < len(p.lines) && isBlockAttribute(p.text(i)) {
		i++
	}
	if i == len(p.lines) || p.blank(i) {
		p.add(Meta, from, i, "")
		return i
	}
	t := p.text(i)
	if level := adocLevel(t); level > 0 {
		if from < i {
			p.add(Meta, from, i, "") // an anchor or a role of the section
		}
		p.heading(i, i+1, level, strings.TrimSpace(inline(strings.TrimLeft(t, "=# "))), "")
		return i + 1
	}
	if kind, ok := adocDelimiters[strings.TrimRight(t, " ")]; ok {
		return p.delimited(from, i, kind)
	}
	if strings.HasPrefix(t, ":") && strings.Count(t, ":") >= 2 && from == i {
		p.add(Meta, i, i+1, "")
		return i + 1
	}
	if listMarker(t) > 0 || strings.HasPrefix(t, ". ") || strings.HasPrefix(t, "* ") {
		return p.adocRun(from, i, List)
	}
	return p.adocRun(from, i, Paragraph)
}

// isBlockAttribute reports whether t is a block's attribute line: "[…]"
// or a block title (".Title").
func isBlockAttribute(t string) bool {
	t = strings.TrimRight(t, " ")
	return len(t) > 1 && (t[0] == '[' && t[len(t)-1] == ']' || t[0] == '.' && t[1] != '.' && t[1] != ' ')
}

// adocLevel is the level of the heading t, 0 for none: "= Title" is 1,
// "== Section" 2, as Markdown's "#" and "##".
func adocLevel(t string) int {
	n := 0
	for n < len(t) && (t[n] == '=' || t[n] == '#') && t[n] == t[0] {
		n++
	}
	if n == 0 || n > 6 || n >= len(t) || t[n] != ' ' {
		return 0
	}
	return n
}

// delimited reads a delimited block whose fence is line i (its attribute
// lines from line from), to the same fence, or the end.
func (p *adocParser) delimited(from, i int, kind Kind) int {
	fence := strings.TrimRight(p.text(i), " ")
	j := i + 1
	var b strings.Builder
	for ; j < len(p.lines) && strings.TrimRight(p.text(j), " ") != fence; j++ {
		t := p.text(j)
		if kind == Table {
			t = strings.Join(strings.Fields(strings.ReplaceAll(t, "|", " ")), " ")
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	j = min(j+1, len(p.lines))
	text := b.String()
	if kind == Meta {
		text = ""
	}
	p.add(kind, from, j, text)
	return j
}

// adocRun reads a paragraph or a list: lines to a blank line, a heading
// or a fence (a list's continuation "+" lines joining it on).
func (p *adocParser) adocRun(from, i int, kind Kind) int {
	j := i + 1
	for j < len(p.lines) && !p.blank(j) && adocLevel(p.text(j)) == 0 {
		if _, fence := adocDelimiters[strings.TrimRight(p.text(j), " ")]; fence {
			break
		}
		j++
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		t := strings.TrimSpace(p.text(k))
		if kind == List {
			t = strings.TrimPrefix(t[listMarker(t):], ". ")
		}
		if t != "+" {
			b.WriteString(inline(t))
			b.WriteByte('\n')
		}
	}
	p.add(kind, from, j, b.String())
	return j
}

// Text reads plain text: paragraphs at blank lines, no headings.
func Text(src []byte) *Doc {
	p := &builder{src: src, lines: splitLines(src)}
	p.eachBlock(0, func(i int) int {
		j := i
		var b strings.Builder
		for ; j < len(p.lines) && !p.blank(j); j++ {
			b.WriteString(strings.TrimSpace(p.text(j)))
			b.WriteByte('\n')
		}
		p.add(Paragraph, i, j, b.String())
		return j
	})
	return p.doc()
}
