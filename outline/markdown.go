package outline

import (
	"bytes"
	"strings"
)

// Markdown reads the structure of a Markdown (or MDX) document as
// CommonMark and GitHub read it: ATX and Setext headings, fenced and
// indented code, GitHub's tables, lists and block quotes (a heading in
// one heads no section), HTML blocks, front matter (its title) and
// thematic breaks; JSX and HTML tags are dropped from the text. Its
// sections are checked against goldmark's headings (on real docs, and
// fuzzed), but for the columns of tabs inside quotes and items and for
// lists inside block quotes, which it reads roughly.
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
	case isHTML(t):
		k, _ := htmlStart(t)
		return p.html(i, k)
	case isQuote(t):
		return p.quote(i)
	case thematicBreak(t):
		p.add(Meta, i, i+1, "")
		return i + 1
	case i+1 < len(p.lines) && strings.Contains(t, "|") && delimiterRow(p.text(i+1), len(tableCells(t))):
		return p.table(i)
	case mdListMarker(t) > 0:
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

// list reads a list: its items (and the items in them), the lines
// indented under an item, and the lines of running text that go on with
// an item's text without the indent (CommonMark's lazy lines), across
// blank lines while the next line is an item or indented under one.
// Headings in it head no section of the document.
func (p *mdParser) list(i int) int {
	r := listReader{p: p, start: i}
	j := i
	for j < len(p.lines) {
		next, end := r.line(j)
		if end {
			break
		}
		j = next
	}
	j = min(j, len(p.lines))
	p.add(List, i, j, r.b.String())
	return j
}

// A listReader reads one list, line by line.
type listReader struct {
	p     *mdParser
	start int             // the list's first line
	b     strings.Builder // the list's text
	cols  []int           // the column each open item's text starts at, outermost first
	lazy  bool            // the line before is running text, which a lazy line continues
}

// line reads line j of the list: the next line to read, or end if line j
// is past the list.
func (r *listReader) line(j int) (next int, end bool) {
	p := r.p
	t := p.text(j)
	if p.blank(j) {
		return r.blank(j)
	}
	ind := indent(t)
	depth := 0 // how many open items t is indented under
	for depth < len(r.cols) && ind >= r.cols[depth] {
		depth++
	}
	content := strings.TrimLeft(t, " \t")
	outer := 0 // the column of the item t is in
	if depth > 0 {
		outer = r.cols[depth-1]
	}
	_, _, isItem := item(content, ind)
	isItem = isItem && ind-outer < 4
	switch {
	case j > r.start && depth < len(r.cols) && r.lazy && !p.interrupts(t) && !isItem:
		// a lazy line, running text whatever it looks like: the items
		// stay open
		r.write(t)
		return j + 1, false
	case depth == 0 && !isItem:
		return j, true
	}
	content, done := r.items(content, ind, depth, outer)
	if done {
		return j + 1, false
	}
	if open := fence(content); open != "" {
		return r.code(j, open) + 1, false
	}
	r.lazy = runningText(content)
	r.write(content)
	return j + 1, false
}

// blank reads the blank lines from line j: the list goes on past them if
// the next line is an item or indented under one (and the last line
// before them is no empty item).
func (r *listReader) blank(j int) (next int, end bool) {
	p := r.p
	k := j
	for k < len(p.lines) && p.blank(k) {
		k++
	}
	if k == len(p.lines) || mdListMarker(p.text(k)) == 0 && (indent(p.text(k)) < r.cols[0] || emptyItem(p.text(j-1))) {
		return j, true
	}
	r.lazy = false
	return k, false
}

// items closes the items a line at column ind is not indented under
// (depth of them stay open, the innermost at column outer) and opens
// those its content starts: the content left, or done if the line was
// taken whole (a setext underline, or running text going on).
func (r *listReader) items(content string, ind, depth, outer int) (rest string, done bool) {
	r.cols = r.cols[:depth]
	if depth > 0 && r.lazy && setextLevel(content) > 0 {
		r.lazy = false // the item's text underlined: a heading in it
		return "", true
	}
	goesOn := depth > 0 && r.lazy && !r.p.interrupts(content) // the item's text goes on
	for col, text, ok := item(content, ind); ok; col, text, ok = item(content, col) {
		r.cols = append(r.cols, col)
		content, goesOn = text, false
	}
	if goesOn {
		r.write(content)
		return "", true
	}
	if depth > 0 && len(r.cols) == depth && ind-outer >= 4 {
		content = "    " + content // indented code in the item
	}
	return content, false
}

// code reads code inside an item, from the line after j that opened it
// with fence open to its closing fence or the first line not indented
// under the item (its blank lines do not end the list): the last line it
// takes.
func (r *listReader) code(j int, open string) int {
	p := r.p
	for j++; j < len(p.lines); j++ {
		if !p.blank(j) && indent(p.text(j)) < r.cols[len(r.cols)-1] {
			j--
			break
		}
		if closes(strings.TrimLeft(p.text(j), " "), open) {
			break
		}
		r.b.WriteString(p.text(j))
		r.b.WriteByte('\n')
	}
	r.lazy = false
	return j
}

// write adds a line of running text to the list's text.
func (r *listReader) write(t string) {
	r.b.WriteString(inline(strings.TrimSpace(t)))
	r.b.WriteByte('\n')
}

// item reads the list item marker t starts with (t's first byte at
// column col): the column the item's text starts at, its text (indented
// code keeps the columns of its indent past the fourth); ok is false if t
// starts none.
func item(t string, col int) (textCol int, text string, ok bool) {
	m := itemMarker(t)
	if m == 0 || m < len(t) && t[m] != ' ' && t[m] != '\t' {
		return 0, "", false
	}
	col += m
	w, k := 0, m // the columns of the spaces after the marker; the bytes
	for ; k < len(t) && (t[k] == ' ' || t[k] == '\t'); k++ {
		if t[k] == '\t' {
			w += 4 - (col+w)%4
		} else {
			w++
		}
	}
	switch {
	case k == len(t):
		return col + 1, "", true
	case w > 4:
		return col + 1, strings.Repeat(" ", w-1) + t[k:], true
	}
	return col + w, t[k:], true
}

// runningText reports whether t, a line of a block's content, is running
// text that a lazy line may go on with: not blank, not a heading, a fence,
// indented code, a break or an empty item, whether quoted or in an item
// or not.
func runningText(t string) bool {
	for {
		if q, ok := quoted(t); ok {
			t = q
		} else if _, text, ok := item(strings.TrimLeft(t, " "), 0); ok && indent(t) < 4 && text != "" {
			t = text
		} else {
			break
		}
	}
	return strings.Trim(t, " \t") != "" && indent(t) < 4 && atxLevel(t) == 0 && fence(t) == "" && !thematicBreak(t) && !emptyItem(t)
}

// quote reads a block quote: its lines that start with ">", and the
// lines of running text that follow one without it (CommonMark's lazy
// lines), to a blank line or a line that starts another block (a list
// item too, even one that could not end a paragraph). Headings
// in it head no section of the document.
func (p *mdParser) quote(i int) int {
	j := i
	var b strings.Builder
	text := false // the line before holds running text, which a lazy line continues
	for ; j < len(p.lines) && !p.blank(j); j++ {
		t := p.text(j)
		if q, ok := quoted(t); ok {
			t = q
			// the quote's text goes on, unless the line underlines it as a
			// heading or starts another block
			text = text && setextLevel(t) == 0 && (strings.Trim(t, " \t") != "" && !p.interrupts(t) || runningText(t)) ||
				!text && runningText(t)
		} else if !text || p.interrupts(t) || mdListMarker(t) > 0 {
			break
		} // else a lazy line, running text whatever it looks like
		b.WriteString(inline(strings.TrimSpace(t)))
		b.WriteByte('\n')
	}
	p.add(Paragraph, i, j, b.String())
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
	for j < len(p.lines) && !p.blank(j) {
		if level := setextLevel(p.text(j)); level > 0 {
			var title []string
			for k := i; k < j; k++ {
				title = append(title, strings.TrimSpace(p.text(k)))
			}
			p.heading(i, j+1, level, strings.TrimSpace(inline(strings.Join(title, " "))), "")
			return j + 1
		}
		if p.interrupts(p.text(j)) {
			break
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
	return atxLevel(t) > 0 || fence(t) != "" || interruptingHTML(t) || isQuote(t) || thematicBreak(t) ||
		(mdListMarker(t) > 0 && indent(t) < 4 && interruptsParagraph(t) && !strings.HasPrefix(strings.TrimSpace(t), "---"))
}

// emptyItem reports whether t is list items' markers alone ("-", "1. -"):
// a line after it belongs to it only when indented past them.
func emptyItem(t string) bool {
	n := 0
	for {
		m := mdListMarker(t[n:])
		if m == 0 {
			return n > 0 && strings.TrimSpace(t[n:]) == ""
		}
		n += m
	}
}

// quoted is the text of the block quote line t (">" after at most 3
// spaces, and the space after it if there is one, a tab counting as the
// columns it spans), and whether t is one.
func quoted(t string) (string, bool) {
	lead := len(t) - len(strings.TrimLeft(t, " "))
	if lead > 3 || lead == len(t) || t[lead] != '>' {
		return "", false
	}
	return strings.TrimPrefix(expandTabs(t[lead+1:], lead+1), " "), true
}

// expandTabs is t, which starts at column col, with the tabs of its
// indent as the spaces they span.
func expandTabs(t string, col int) string {
	if !strings.HasPrefix(strings.TrimLeft(t, " "), "\t") {
		return t
	}
	var b strings.Builder
	i := 0
	for ; i < len(t) && (t[i] == ' ' || t[i] == '\t'); i++ {
		n := 1
		if t[i] == '\t' {
			n = 4 - col%4
		}
		b.WriteString(strings.Repeat(" ", n))
		col += n
	}
	return b.String() + t[i:]
}

// isHTML reports whether t starts an HTML block.
func isHTML(t string) bool {
	_, ok := htmlStart(t)
	return ok
}

// interruptingHTML reports whether t starts an HTML block that may end a
// paragraph.
func interruptingHTML(t string) bool {
	k, ok := htmlStart(t)
	return ok && k.interrupts
}

// isQuote reports whether t is a line of a block quote.
func isQuote(t string) bool {
	_, ok := quoted(t)
	return ok
}
