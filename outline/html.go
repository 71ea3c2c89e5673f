package outline

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// HTML reads the structure of an HTML document, or of a fragment of one
// (as Go's docs are): h1 to h6 (anchored by their id), and the blocks p,
// pre, lists, tables and blockquotes, each of the whole lines it touches,
// their text visible text only, entities decoded. Text outside any block
// is a paragraph to the next blank line or block; scripts, styles and
// comments are Meta. A leading comment holding JSON with a "Title" (as
// Go's docs begin) gives the title.
func HTML(src []byte) *Doc {
	p := &htmlParser{builder: builder{src: src, lines: splitLines(src)}, z: html.NewTokenizer(bytes.NewReader(src))}
	if len(p.lines) > 0 {
		p.parse()
	}
	return p.doc()
}

// htmlBlocks are the elements read as one block each, and what kind.
var htmlBlocks = map[string]Kind{
	"p": Paragraph, "pre": Code, "ul": List, "ol": List, "dl": List, "table": Table, "blockquote": Paragraph,
	"h1": Heading, "h2": Heading, "h3": Heading, "h4": Heading, "h5": Heading, "h6": Heading,
	"script": Meta, "style": Meta,
}

// htmlParser reads an HTML document a token at a time.
type htmlParser struct {
	builder
	z   *html.Tokenizer
	off int // of the token being read

	// The block being read: its element (and how deep in elements of its
	// name), where it started, its text and, for a heading, its id.
	tag   string
	depth int
	start int
	text  strings.Builder
	id    string
	// The loose text read outside blocks: where it starts (-1 for none)
	// and ends, and its text.
	looseStart  int
	looseEnd    int
	looseBuffer strings.Builder
}

// parse reads every token.
func (p *htmlParser) parse() {
	p.looseStart = -1
	for {
		tt := p.z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := len(p.z.Raw())
		p.token(tt)
		p.off += raw
	}
	p.flushLoose(len(p.src))
	if p.tag != "" {
		p.endBlock(len(p.src))
	}
}

// token reads one token at p.off.
func (p *htmlParser) token(tt html.TokenType) {
	switch tt {
	case html.StartTagToken, html.EndTagToken:
		name, hasAttr := p.z.TagName()
		p.tagToken(tt, string(name), hasAttr)
	case html.TextToken:
		p.textToken(string(p.z.Raw()))
	case html.CommentToken:
		p.comment(string(p.z.Text()))
	}
}

// tagToken opens or closes a block, or, inside one, breaks its text.
func (p *htmlParser) tagToken(tt html.TokenType, name string, hasAttr bool) {
	if p.tag == "" {
		if _, ok := htmlBlocks[name]; ok && tt == html.StartTagToken {
			p.flushLoose(p.off)
			p.tag, p.depth, p.start, p.id = name, 1, p.off, ""
			p.text.Reset()
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = p.z.TagAttr()
				if string(k) == "id" {
					p.id = string(v)
				}
			}
		}
		return
	}
	switch {
	case name == p.tag && tt == html.StartTagToken:
		p.depth++
	case name == p.tag && tt == html.EndTagToken:
		if p.depth--; p.depth == 0 {
			p.endBlock(p.off + len(p.z.Raw()))
		}
	case tt == html.StartTagToken && (name == "li" || name == "tr" || name == "br" || name == "dt" || name == "dd"):
		p.text.WriteByte('\n')
	case tt == html.StartTagToken && (name == "td" || name == "th"):
		p.text.WriteByte(' ')
	}
}

// textToken adds the text of raw, a text token as written, to the block
// being read, or to the loose text outside blocks (a blank line ends a
// loose paragraph).
func (p *htmlParser) textToken(raw string) {
	if p.tag != "" {
		p.text.WriteString(html.UnescapeString(raw))
		return
	}
	for pos := 0; pos < len(raw); {
		para, _, blank := strings.Cut(raw[pos:], "\n\n")
		if trimmed := strings.TrimSpace(para); trimmed != "" {
			if p.looseStart < 0 {
				p.looseStart = p.off + pos + strings.Index(para, trimmed)
			}
			p.looseBuffer.WriteString(html.UnescapeString(para))
			p.looseEnd = p.off + pos + len(para)
		}
		if !blank {
			break
		}
		p.flushLoose(p.looseEnd)
		pos += len(para) + 2
	}
}

// comment reads a comment outside blocks: the title of a leading
// JSON one, and a Meta block.
func (p *htmlParser) comment(t string) {
	if p.tag != "" {
		return
	}
	p.flushLoose(p.off)
	if len(p.blocks) == 0 && p.title == "" {
		var head struct{ Title string }
		if json.Unmarshal([]byte(strings.TrimSpace(t)), &head) == nil {
			p.title = head.Title
		}
	}
	p.block(Meta, p.off, p.off+len(p.z.Raw()), "", 0, "")
}

// endBlock ends the block being read at byte end.
func (p *htmlParser) endBlock(end int) {
	kind := htmlBlocks[p.tag]
	text := p.text.String()
	level := 0
	if kind == Heading {
		level = int(p.tag[1] - '0')
		text = strings.Join(strings.Fields(text), " ")
	}
	if kind == Meta {
		text = ""
	}
	p.block(kind, p.start, end, text, level, p.id)
	p.tag = ""
}

// flushLoose makes the loose text read so far a paragraph, ending at
// byte end.
func (p *htmlParser) flushLoose(end int) {
	if p.looseStart >= 0 {
		p.block(Paragraph, p.looseStart, max(end, p.looseStart+1), p.looseBuffer.String(), 0, "")
	}
	p.looseStart = -1
	p.looseBuffer.Reset()
}

// block adds a block of bytes [start, end), widened to whole lines; one
// that shares a line with the block before it joins that block, its text
// too (a heading joined by text becomes a paragraph: its section stays,
// and its words are searched with the text's).
func (p *htmlParser) block(kind Kind, start, end int, text string, level int, id string) {
	from, to := p.lineOf(start), p.lineOf(max(end-1, start))+1
	if n := len(p.blocks); n > 0 && p.blocks[n-1].Last > from {
		last := &p.blocks[n-1]
		joined := *last
		if to > last.Last {
			joined.Span = p.span(last.First-1, to)
		}
		if kind != Meta && strings.TrimSpace(text) != "" {
			joined.Text += text
			if joined.Kind == Heading || joined.Kind == Meta {
				joined.Kind = Paragraph
			}
		}
		*last = joined
		return
	}
	if kind == Heading {
		p.heading(from, to, level, text, id)
		return
	}
	p.add(kind, from, to, text)
}

// lineOf is the index of the line holding byte off.
func (p *htmlParser) lineOf(off int) int {
	i := sort.Search(len(p.lines), func(i int) bool { return p.lines[i].next > off })
	return min(i, len(p.lines)-1)
}
