package outline

import (
	"strconv"
	"strings"
	"unicode"
)

// builder makes a Doc as a parser finds its blocks and headings, in the
// order of the document: a heading closes the open sections of its level
// or deeper, and opens one.
type builder struct {
	src    []byte
	lines  []line
	title  string
	blocks []Block
	secs   []Section
	open   []int // sections not yet closed, outermost first
	seen   map[string]int
}

// add appends a block of lines [from, to) of kind k.
func (p *builder) add(k Kind, from, to int, text string) {
	section := -1
	if len(p.open) > 0 {
		section = p.open[len(p.open)-1]
	}
	p.blocks = append(p.blocks, Block{Span: p.span(from, to), Kind: k, Section: section, Text: text})
}

// span is lines [from, to) as a Span.
func (p *builder) span(from, to int) Span {
	return Span{Start: p.lines[from].start, End: p.lines[to-1].next, First: from + 1, Last: to}
}

// heading records a heading of lines [from, to), its title already read
// as text: its block, and the section it opens (see openSection).
func (p *builder) heading(from, to, level int, title, id string) {
	p.openSection(from, level, title, id)
	if p.title == "" && level == 1 {
		p.title = title
	}
	p.add(Heading, from, to, title+"\n")
}

// openSection starts a section at line from, which closes the open sections of
// its level or deeper. id is the anchor the document gives it, "" for the
// one GitHub makes of its title.
func (p *builder) openSection(from, level int, title, id string) {
	for len(p.open) > 0 && p.secs[p.open[len(p.open)-1]].Level >= level {
		p.close(p.open[len(p.open)-1], from)
		p.open = p.open[:len(p.open)-1]
	}
	parent := -1
	if len(p.open) > 0 {
		parent = p.open[len(p.open)-1]
	}
	p.secs = append(p.secs, Section{Span: Span{Start: p.lines[from].start, First: from + 1}, Level: level, Title: title, Anchor: p.anchor(title, id), Parent: parent})
	p.open = append(p.open, len(p.secs)-1)
}

// eachBlock reads the document's blocks from line i on: block reads the one
// that starts at a line that is not blank, and returns the line after it.
func (p *builder) eachBlock(i int, block func(int) int) {
	for i < len(p.lines) {
		if p.blank(i) {
			i++
			continue
		}
		i = block(i)
	}
}

// close ends section s before line i.
func (p *builder) close(s, i int) {
	if i < len(p.lines) {
		p.secs[s].End, p.secs[s].Last = p.lines[i].start, i
	} else {
		p.secs[s].End, p.secs[s].Last = len(p.src), len(p.lines)
	}
}

// doc closes the sections still open and gives the document.
func (p *builder) doc() *Doc {
	for _, s := range p.open {
		p.close(s, len(p.lines))
	}
	return &Doc{Title: p.title, Sections: p.secs, Blocks: p.blocks}
}

// anchor is id, or the fragment GitHub makes of a heading's title: lower case,
// spaces as "-", punctuation but "-" and "_" dropped, "-1", "-2"… after a
// repeat.
func (p *builder) anchor(title, id string) string {
	if id != "" {
		return id
	}
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	a := b.String()
	if p.seen == nil {
		p.seen = map[string]int{}
	}
	n := p.seen[a]
	p.seen[a] = n + 1
	if n > 0 {
		a += "-" + strconv.Itoa(n)
	}
	return a
}

// text is line i's text, without a trailing "\r".
func (p *builder) text(i int) string {
	l := p.lines[i]
	return strings.TrimSuffix(string(p.src[l.start:l.end]), "\r")
}

// blank reports whether line i holds only spaces and tabs.
func (p *builder) blank(i int) bool { return strings.Trim(p.text(i), " \t") == "" }
