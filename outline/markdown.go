package outline

import (
	"bytes"
	"strings"
)

// Markdown reads the structure of a Markdown (or MDX) document as
// CommonMark and GitHub read it: ATX and Setext headings, fenced and
// indented code, GitHub's tables, lists, front matter (its title) and
// HTML comments; JSX and HTML tags are dropped from the text.
func Markdown(src []byte) *Doc {
	p := &mdParser{builder{src: src, lines: splitLines(src)}}
	p.parse()
	return p.doc()
}

// A line is one line of a document: its bytes [start, end), without the
// line break, and where the next line starts.
type line struct{ start, end, next int }

// splitLines cuts src at "\n" (a "\r" before it stays with the line's
// text, and is trimmed where text is read).
func splitLines(src []byte) []line {
	var lines []line
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			lines = append(lines, line{start, len(src), len(src)})
			break
		}
		lines = append(lines, line{start, start + end, start + end + 1})
		start += end + 1
	}
	return lines
}

// mdParser reads a Markdown document a block at a time.
type mdParser struct {
	builder
}

// parse reads every block.
func (p *mdParser) parse() {
	p.eachBlock(p.frontMatter(), p.block)
}

// block reads the block that starts at line i, and returns the line after
// it.
func (p *mdParser) block(i int) int {
	t := p.text(i)
	switch {
	case fence(t) != "":
		return p.fenced(i)
	case atxLevel(t) > 0:
		p.heading(i, i+1, atxLevel(t), strings.TrimSpace(inline(atxTitle(t))), "")
		return i + 1
	case strings.HasPrefix(strings.TrimLeft(t, " "), "<!--"):
		return p.comment(i)
	case i+1 < len(p.lines) && strings.Contains(t, "|") && delimiterRow(p.text(i+1)):
		return p.table(i)
	case listMarker(t) > 0:
		return p.list(i)
	case indent(t) >= 4:
		return p.indentedCode(i)
	}
	return p.paragraph(i)
}

// frontMatter reads a YAML front matter block at the start, if there is
// one, and returns the line after it.
func (p *mdParser) frontMatter() int {
	if len(p.lines) == 0 || p.text(0) != "---" {
		return 0
	}
	for j := 1; j < len(p.lines); j++ {
		switch t := p.text(j); {
		case t == "---" || t == "...":
			p.add(Meta, 0, j+1, "")
			return j + 1
		case strings.HasPrefix(t, "title:"):
			p.title = strings.Trim(strings.TrimSpace(strings.TrimPrefix(t, "title:")), `"'`)
		}
	}
	p.title = ""
	return 0 // never closed: not front matter
}

// fenced reads a fenced code block from its opening fence to its closing
// one, or to the end.
func (p *mdParser) fenced(i int) int {
	open := fence(p.text(i))
	j := i + 1
	for ; j < len(p.lines); j++ {
		if closes(p.text(j), open) {
			j++
			break
		}
	}
	var b strings.Builder
	for k := i + 1; k < j && k < len(p.lines); k++ {
		if k == j-1 && closes(p.text(k), open) {
			break
		}
		b.WriteString(p.text(k))
		b.WriteByte('\n')
	}
	p.add(Code, i, j, b.String())
	return j
}

// comment reads an HTML comment to the line that ends it.
func (p *mdParser) comment(i int) int {
	j := i
	for j < len(p.lines) && !strings.Contains(p.text(j), "-->") {
		j++
	}
	j = min(j+1, len(p.lines))
	p.add(Meta, i, j, "")
	return j
}

// table reads a table: its header, its delimiter row and its rows, to a
// blank line or a line without a cell.
func (p *mdParser) table(i int) int {
	j := i + 2
	for j < len(p.lines) && !p.blank(j) && strings.Contains(p.text(j), "|") {
		j++
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		if k == i+1 {
			continue // the delimiter row
		}
		b.WriteString(strings.Join(strings.Fields(inline(strings.ReplaceAll(p.text(k), "|", " "))), " "))
		b.WriteByte('\n')
	}
	p.add(Table, i, j, b.String())
	return j
}

// list reads a list: its items and their continuation lines, across blank
// lines while the next line is an item or indented.
func (p *mdParser) list(i int) int {
	j := i
	var b strings.Builder
	for j < len(p.lines) {
		if p.blank(j) {
			k := j
			for k < len(p.lines) && p.blank(k) {
				k++
			}
			if k == len(p.lines) || (listMarker(p.text(k)) == 0 && indent(p.text(k)) < 2) {
				break
			}
			j = k
			continue
		}
		t := p.text(j)
		if j > i && listMarker(t) == 0 && indent(t) < 2 && (atxLevel(t) > 0 || fence(t) != "") {
			break
		}
		if open := fence(strings.TrimLeft(t, " ")); open != "" {
			// Code inside an item: its blank lines do not end the list.
			for j++; j < len(p.lines) && !closes(strings.TrimLeft(p.text(j), " "), open); j++ {
				b.WriteString(p.text(j))
				b.WriteByte('\n')
			}
			j++
			continue
		}
		b.WriteString(inline(strings.TrimSpace(t)[listMarker(strings.TrimSpace(t)):]))
		b.WriteByte('\n')
		j++
	}
	j = min(j, len(p.lines))
	p.add(List, i, j, b.String())
	return j
}

// indentedCode reads code indented by four spaces, to the last indented
// line before a line that is not.
func (p *mdParser) indentedCode(i int) int {
	j, last := i, i
	for j < len(p.lines) && (p.blank(j) || indent(p.text(j)) >= 4) {
		if !p.blank(j) {
			last = j
		}
		j++
	}
	var b strings.Builder
	for k := i; k <= last; k++ {
		b.WriteString(p.text(k))
		b.WriteByte('\n')
	}
	p.add(Code, i, last+1, b.String())
	return last + 1
}

// paragraph reads running text to a blank line or a line that starts
// another block; underlined by "===" or "---", it is a Setext heading.
func (p *mdParser) paragraph(i int) int {
	j := i + 1
	for j < len(p.lines) && !p.blank(j) && !p.interrupts(p.text(j)) {
		if level := setextLevel(p.text(j)); level > 0 {
			var title []string
			for k := i; k < j; k++ {
				title = append(title, strings.TrimSpace(p.text(k)))
			}
			p.heading(i, j+1, level, strings.TrimSpace(inline(strings.Join(title, " "))), "")
			return j + 1
		}
		j++
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		b.WriteString(inline(strings.TrimSpace(p.text(k))))
		b.WriteByte('\n')
	}
	p.add(Paragraph, i, j, b.String())
	return j
}

// interrupts reports whether a line starts a block that ends a paragraph.
func (p *mdParser) interrupts(t string) bool {
	return atxLevel(t) > 0 || fence(t) != "" || strings.HasPrefix(strings.TrimLeft(t, " "), "<!--") ||
		(listMarker(t) > 0 && indent(t) < 4 && !strings.HasPrefix(strings.TrimSpace(t), "---"))
}
