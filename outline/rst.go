package outline

import "strings"

// RST reads the structure of a reStructuredText document: headings (a
// title underlined, or over- and underlined, by a run of one punctuation
// character; levels in the order the styles first appear), literal blocks
// (after a paragraph ending in "::", or a code directive), lists, tables
// (grid and simple), comments, and paragraphs.
func RST(src []byte) *Doc {
	p := &rstParser{builder: builder{src: src, lines: splitLines(src)}, levels: map[string]int{}}
	p.eachBlock(0, p.block)
	return p.doc()
}

// rstParser reads a reStructuredText document a block at a time.
type rstParser struct {
	builder
	// levels are the heading styles seen (the character, and "+" for an
	// overline), by the level each was given.
	levels map[string]int
	// literal: the paragraph before ended in "::", so an indented block
	// next is code.
	literal bool
}

// block reads the block that starts at line i, and returns the line after
// it.
func (p *rstParser) block(i int) int {
	t := p.text(i)
	literal := p.literal
	p.literal = false
	switch {
	case p.overlined(i):
		return p.rstHeading(i, i+3, p.text(i+1), string(t[0])+"+")
	case p.underlined(i):
		return p.rstHeading(i, i+2, t, string(p.text(i + 1)[0]))
	case indent(t) > 0 && literal:
		return p.indented(i, Code, i)
	case strings.HasPrefix(t, ".. "), t == "..":
		return p.directive(i)
	case strings.HasPrefix(t, "+-") || strings.HasPrefix(t, "+="), isRule(t, '='):
		return p.rstTable(i)
	case listMarker(t) > 0 || strings.HasPrefix(t, "#. "):
		return p.rstList(i)
	}
	return p.rstParagraph(i)
}

// adornment reports whether t is a run of one punctuation character, at
// least as long as want.
func adornment(t string, want int) bool {
	t = strings.TrimRight(t, " \t")
	if len(t) < max(want, 2) || !strings.ContainsRune("=-~^\"'`#*+<>:._!$%&,/;?@\\|", rune(t[0])) {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// underlined reports whether line i is a title underlined by line i+1.
func (p *rstParser) underlined(i int) bool {
	t := strings.TrimSpace(p.text(i))
	return i+1 < len(p.lines) && t != "" && indent(p.text(i)) == 0 && !adornment(p.text(i), 1) &&
		adornment(p.text(i+1), len(t))
}

// overlined reports whether lines i to i+2 are a title over- and
// underlined by one run of one character.
func (p *rstParser) overlined(i int) bool {
	if i+2 >= len(p.lines) || !adornment(p.text(i), 2) {
		return false
	}
	over, title, under := strings.TrimSpace(p.text(i)), strings.TrimSpace(p.text(i+1)), strings.TrimSpace(p.text(i+2))
	return over == under && title != "" && len(over) >= len(title)
}

// rstHeading records the heading of lines [from, to) in a style: its level
// is the style's, or the next one down for a style not seen before.
func (p *rstParser) rstHeading(from, to int, title, style string) int {
	level, ok := p.levels[style]
	if !ok {
		level = min(len(p.levels)+1, 6)
		p.levels[style] = level
	}
	p.heading(from, to, level, strings.TrimSpace(title), "")
	return to
}

// indented reads the lines indented under line i (from line from), to the
// last indented one before a line that is not, as a block of kind k
// starting at line i.
func (p *rstParser) indented(i int, k Kind, from int) int {
	last := i
	for j := from; j < len(p.lines) && (p.blank(j) || indent(p.text(j)) > 0); j++ {
		if !p.blank(j) {
			last = j
		}
	}
	var b strings.Builder
	for j := from; j <= last; j++ {
		b.WriteString(strings.TrimSpace(p.text(j)))
		b.WriteByte('\n')
	}
	text := b.String()
	if k == Meta {
		text = ""
	}
	p.add(k, i, last+1, text)
	return last + 1
}

// directive reads a directive or a comment with its indented body: a code
// directive's body is code, a comment's or a target's nothing to read,
// any other's (a note, a warning) text.
func (p *rstParser) directive(i int) int {
	t := p.text(i)
	switch {
	case strings.HasPrefix(t, ".. code") || strings.HasPrefix(t, ".. sourcecode"):
		return p.indented(i, Code, i+1)
	case strings.Contains(t, "::") && !strings.HasPrefix(t, ".. _"):
		return p.indented(i, Paragraph, i)
	}
	return p.indented(i, Meta, i+1)
}

// isRule reports whether t is a simple table's rule: runs of c parted by
// spaces.
func isRule(t string, c byte) bool {
	t = strings.TrimSpace(t)
	return len(t) >= 3 && t[0] == c && strings.Trim(t, string(c)+" ") == "" && strings.Contains(t, " ")
}

// rstTable reads a grid table (to the first line that is no row of it)
// or a simple table (to a blank line).
func (p *rstParser) rstTable(i int) int {
	grid := strings.HasPrefix(p.text(i), "+")
	j := i + 1
	for j < len(p.lines) && !p.blank(j) && (!grid || strings.HasPrefix(p.text(j), "+") || strings.HasPrefix(p.text(j), "|")) {
		j++
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		if t := p.text(k); !strings.HasPrefix(t, "+") && !isRule(t, '=') && !isRule(t, '-') {
			b.WriteString(strings.Join(strings.Fields(strings.ReplaceAll(t, "|", " ")), " "))
			b.WriteByte('\n')
		}
	}
	p.add(Table, i, j, b.String())
	return j
}

// rstList reads a list: its items and their indented lines, across blank
// lines while the next line is an item or indented.
func (p *rstParser) rstList(i int) int {
	j, last := i, i
	var b strings.Builder
	for j < len(p.lines) {
		t := p.text(j)
		switch {
		case p.blank(j):
		case j > i && indent(t) == 0 && listMarker(t) == 0 && !strings.HasPrefix(t, "#. "):
			p.add(List, i, last+1, b.String())
			return last + 1
		default:
			b.WriteString(strings.TrimSpace(t))
			b.WriteByte('\n')
			last = j
		}
		j++
	}
	p.add(List, i, last+1, b.String())
	return last + 1
}

// rstParagraph reads running text to a blank line or a heading; ending in
// "::", it announces a literal block.
func (p *rstParser) rstParagraph(i int) int {
	j := i + 1
	for j < len(p.lines) && !p.blank(j) && !p.underlined(j) && !p.overlined(j) {
		j++
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		b.WriteString(strings.TrimSpace(p.text(k)))
		b.WriteByte('\n')
	}
	p.literal = strings.HasSuffix(strings.TrimSpace(p.text(j-1)), "::")
	p.add(Paragraph, i, j, b.String())
	return j
}
