package outline

import (
	"bytes"
	"path"
	"strings"

	"golang.org/x/net/html"
)

// A TextLine is a line of the text a reader sees of a document, and the
// line of the document it comes from.
type TextLine struct {
	// Text is the line, without its line break.
	Text string
	// Line is the line of the source its first character comes from,
	// counted from 1.
	Line int
}

// ReaderText is the text a reader sees of src, whole lines of the
// document at name, in lines that each name the line of src they come
// from, for the formats whose markup a reader does not see: HTML (.html,
// .htm, see HTMLText) and MDX (.mdx, see MDXText). ok is false for the
// others (Markdown, reStructuredText, AsciiDoc, plain text, source files),
// which are read as they are written.
func ReaderText(name string, src []byte) (lines []TextLine, ok bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm":
		return HTMLText(src), true
	case ".mdx":
		return MDXText(src), true
	}
	return nil, false
}

// HTMLText is the text a reader sees of src, HTML or a fragment of it
// (whole lines of a document), written as Markdown: headings as "## ",
// paragraphs and other blocks apart by a blank line, list items as "- "
// or "1. " (nested ones indented), pre as fenced code (its text as it is),
// code, kbd, samp and tt as code spans, tables as rows of "| " cells with
// a delimiter row under the first, line breaks where the source breaks its
// text's lines or has a br; every other tag dropped with its attributes
// (links' targets, images), entities decoded, runs of spaces made one
// (outside pre), and scripts, styles, templates, titles and comments left
// out. Elements the fragment opens and does not close end with it.
func HTMLText(src []byte) []TextLine {
	w := &htmlWriter{z: html.NewTokenizer(bytes.NewReader(src)), line: 1}
	for {
		tt := w.z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := string(w.z.Raw())
		switch tt {
		case html.TextToken:
			w.text(raw)
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := w.z.TagName()
			w.start(string(name))
		case html.EndTagToken:
			name, _ := w.z.TagName()
			w.end(string(name))
		}
		w.line += strings.Count(raw, "\n")
	}
	w.closeAll()
	// What the end of the text closes is on its last line, not after it.
	last := max(len(splitLines(src)), 1)
	for i := range w.out {
		w.out[i].Line = min(w.out[i].Line, last)
	}
	return w.out
}

// htmlWriter writes the text of an HTML fragment a token at a time.
type htmlWriter struct {
	z   *html.Tokenizer
	out []TextLine
	// cur is the line being written, which starts at source line curLine.
	cur     []byte
	curLine int
	// line is the source line being read.
	line int
	// gap owes a blank line before the next text; prefix is owed before
	// it too (a list item's marker, a heading's).
	gap    bool
	prefix string

	hidden int // depth in elements whose text is not shown
	pre    int // depth in pre elements
	fence  int // index in out of the open pre's fence
	dropNL bool
	spans  int // depth in elements whose line breaks are spaces (headings)
	code   *codeSpan
	lists  []htmlList
	table  *htmlTable
}

// codeSpan is inline code being gathered, to be written between as many
// backticks as it needs.
type codeSpan struct {
	text  strings.Builder
	depth int
}

// htmlList is an open list: ordered or not, and its items so far.
type htmlList struct {
	ordered bool
	items   int
}

// htmlTable is an open table: the cells of the row being written, and
// whether its first row (which the delimiter row follows) has ended.
type htmlTable struct {
	cells   int
	started bool
}

// Elements by what they do to the text.
var (
	htmlHidden = map[string]bool{"script": true, "style": true, "template": true, "title": true, "noscript": true}
	htmlParas  = map[string]bool{"p": true, "div": true, "section": true, "article": true, "header": true, "footer": true,
		"main": true, "nav": true, "aside": true, "figure": true, "figcaption": true, "blockquote": true, "hr": true,
		"address": true, "details": true, "summary": true, "form": true, "fieldset": true, "center": true, "dl": true,
		"body": true, "html": true, "caption": true}
	htmlCode = map[string]bool{"code": true, "kbd": true, "samp": true, "tt": true}
)

// text writes a text token, raw as the source has it.
func (w *htmlWriter) text(raw string) {
	segs := strings.Split(raw, "\n")
	for i, seg := range segs {
		if i > 0 {
			w.sourceBreak()
			w.line++
		}
		if i < len(segs)-1 {
			seg = strings.TrimSuffix(seg, "\r")
		}
		if w.hidden > 0 || seg == "" {
			continue
		}
		t := html.UnescapeString(seg)
		switch {
		case w.pre > 0:
			w.writePre(t)
		case w.code != nil:
			w.code.text.WriteString(t)
		default:
			w.write(t)
		}
	}
}

// sourceBreak is a line break of the source: a line break of the text
// but in code spans, headings and tables (a space there) and hidden text.
func (w *htmlWriter) sourceBreak() {
	switch {
	case w.hidden > 0:
	case w.pre > 0:
		if w.dropNL && len(w.cur) == 0 {
			w.dropNL = false
			return
		}
		w.dropNL = false
		w.emit(string(w.cur), w.lineOr())
	case w.code != nil:
		w.code.text.WriteByte(' ')
	case w.spans > 0 || w.table != nil:
		w.write(" ")
	default:
		w.endLine()
	}
}

// start opens the element name.
func (w *htmlWriter) start(name string) {
	switch {
	case htmlHidden[name]:
		w.hidden++
	case w.hidden > 0:
	case name == "pre":
		w.openPre()
	case w.pre > 0:
	case htmlCode[name]:
		if w.code == nil {
			w.code = &codeSpan{}
		}
		w.code.depth++
	case name == "br":
		w.br()
	default:
		w.startBlock(name)
	}
}

// startBlock opens a block element (anything else is dropped, its text
// kept).
func (w *htmlWriter) startBlock(name string) {
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.paragraph()
		w.prefix = strings.Repeat("#", int(name[1]-'0')) + " "
		w.spans++
	case "ul", "ol":
		w.itemBreak()
		w.lists = append(w.lists, htmlList{ordered: name == "ol"})
	case "li":
		w.item()
	case "dt", "dd":
		w.endLine()
		if name == "dd" {
			w.prefix = "  "
		}
	case "table":
		w.paragraph()
		w.table = &htmlTable{}
	case "tr":
		w.endRow()
	case "td", "th":
		w.cell()
	default:
		if htmlParas[name] {
			w.itemBreak()
		}
	}
}

// end closes the element name.
func (w *htmlWriter) end(name string) {
	switch {
	case htmlHidden[name]:
		w.hidden = max(w.hidden-1, 0)
	case w.hidden > 0:
	case name == "pre":
		w.closePre()
	case w.pre > 0:
	case htmlCode[name]:
		w.endCode()
	default:
		w.endBlock(name)
	}
}

// endBlock closes a block element.
func (w *htmlWriter) endBlock(name string) {
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.spans = max(w.spans-1, 0)
		w.paragraph()
	case "ul", "ol":
		if len(w.lists) > 0 {
			w.lists = w.lists[:len(w.lists)-1]
		}
		w.itemBreak()
	case "li", "dt", "dd":
		w.endLine()
	case "table":
		w.endRow()
		w.table = nil
		w.paragraph()
	case "tr":
		w.endRow()
	default:
		if htmlParas[name] {
			w.itemBreak()
		}
	}
}

// itemBreak ends a block: with a blank line, or, inside a list, the line
// alone (an item's paragraphs stay together).
func (w *htmlWriter) itemBreak() {
	if len(w.lists) > 0 {
		w.endLine()
		return
	}
	w.paragraph()
}

// item starts a list item: its marker, indented by the lists it is in.
func (w *htmlWriter) item() {
	w.endLine()
	if len(w.lists) == 0 {
		w.prefix = "- "
		return
	}
	l := &w.lists[len(w.lists)-1]
	l.items++
	marker := "- "
	if l.ordered {
		marker = itoa(l.items) + ". "
	}
	w.prefix = strings.Repeat("  ", len(w.lists)-1) + marker
}

// br breaks the line (a space in a table's cell or a heading).
func (w *htmlWriter) br() {
	if w.code != nil || w.spans > 0 || w.table != nil {
		w.sourceBreak()
		return
	}
	w.endLine()
}

// cell starts a table's cell.
func (w *htmlWriter) cell() {
	if w.table == nil {
		w.write(" ")
		return
	}
	if w.table.cells == 0 {
		w.endLine()
		w.writeRaw("| ")
	} else {
		w.trimRight()
		w.writeRaw(" | ")
	}
	w.table.cells++
}

// endRow ends a table's row, and after the first its delimiter row.
func (w *htmlWriter) endRow() {
	if w.table == nil || w.table.cells == 0 {
		return
	}
	w.trimRight()
	w.writeRaw(" |")
	line := w.lineOr()
	w.endLine()
	if !w.table.started {
		w.emit("|"+strings.Repeat(" --- |", w.table.cells), line)
		w.table.started = true
	}
	w.table.cells = 0
}

// openPre starts a pre element: a fence (made as long as its text needs
// when it ends).
func (w *htmlWriter) openPre() {
	w.pre++
	if w.pre > 1 {
		return
	}
	w.flushCode()
	w.itemBreak()
	w.gapOut()
	if marker := strings.TrimSpace(w.prefix); marker != "" {
		w.emit(marker, w.line) // a list item that starts with code
		w.prefix = ""
	}
	w.emit("```", w.line)
	w.fence = len(w.out) - 1
	w.dropNL = true
}

// closePre ends a pre element and its fence.
func (w *htmlWriter) closePre() {
	if w.pre == 0 {
		return
	}
	if w.pre--; w.pre > 0 {
		return
	}
	if len(w.cur) > 0 {
		w.emit(string(w.cur), w.lineOr())
	}
	longest := 0
	for _, l := range w.out[w.fence+1:] {
		longest = max(longest, backticks(l.Text))
	}
	fence := strings.Repeat("`", max(3, longest+1))
	w.out[w.fence].Text = fence
	w.emit(fence, w.line)
	w.itemBreak()
}

// endCode ends a code span: its text between as many backticks as it
// needs.
func (w *htmlWriter) endCode() {
	if w.code == nil {
		return
	}
	if w.code.depth--; w.code.depth > 0 {
		return
	}
	w.flushCode()
}

// flushCode writes the code span being gathered, if any.
func (w *htmlWriter) flushCode() {
	if w.code == nil {
		return
	}
	t := strings.Join(strings.Fields(w.code.text.String()), " ")
	w.code = nil
	if t == "" {
		return
	}
	ticks := strings.Repeat("`", backticks(t)+1)
	if strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") {
		t = " " + t + " "
	}
	w.writeRaw(ticks + t + ticks)
}

// backticks is the longest run of backticks in s.
func backticks(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// write writes text outside pre: its runs of spaces one, none at a line's
// start.
func (w *htmlWriter) write(t string) {
	var b strings.Builder
	space := len(w.cur) > 0 && w.cur[len(w.cur)-1] == ' '
	for _, r := range t {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0' {
			if !space && (len(w.cur) > 0 || b.Len() > 0) {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	if b.Len() > 0 {
		w.writeRaw(b.String())
	}
}

// writeRaw writes t as it is, after what is owed before a line's text.
func (w *htmlWriter) writeRaw(t string) {
	if len(w.cur) == 0 {
		w.gapOut()
		w.curLine = w.line
		w.cur = append(w.cur, w.prefix...)
		w.prefix = ""
	}
	w.cur = append(w.cur, t...)
}

// writePre writes text of a pre element as it is (a line break an
// entity writes breaks the line too).
func (w *htmlWriter) writePre(t string) {
	w.dropNL = false
	for i, part := range strings.Split(t, "\n") {
		if i > 0 {
			w.emit(string(w.cur), w.lineOr())
		}
		if len(w.cur) == 0 {
			w.curLine = w.line
		}
		w.cur = append(w.cur, part...)
	}
}

// gapOut writes the blank line owed, if any (none at the start).
func (w *htmlWriter) gapOut() {
	if w.gap && len(w.out) > 0 {
		w.out = append(w.out, TextLine{"", w.line})
	}
	w.gap = false
}

// trimRight drops the spaces that end the line being written.
func (w *htmlWriter) trimRight() {
	w.cur = bytes.TrimRight(w.cur, " ")
}

// endLine ends the line being written, if it has text.
func (w *htmlWriter) endLine() {
	if t := bytes.TrimRight(w.cur, " "); len(bytes.TrimSpace(t)) > 0 {
		w.emit(string(t), w.curLine)
	}
	w.cur = w.cur[:0]
}

// paragraph ends the line being written, and owes a blank line.
func (w *htmlWriter) paragraph() {
	w.endLine()
	w.gap = true
}

// emit adds a line to the text.
func (w *htmlWriter) emit(t string, line int) {
	w.out = append(w.out, TextLine{t, line})
	w.cur = w.cur[:0]
}

// lineOr is the source line of the line being written, or the line being
// read when it has no text yet.
func (w *htmlWriter) lineOr() int {
	if len(w.cur) > 0 {
		return w.curLine
	}
	return w.line
}

// closeAll ends what the fragment left open.
func (w *htmlWriter) closeAll() {
	w.flushCode()
	if w.pre > 0 {
		w.pre = 1
		w.closePre()
	}
	w.endRow()
	w.endLine()
	for len(w.out) > 0 && w.out[len(w.out)-1].Text == "" {
		w.out = w.out[:len(w.out)-1]
	}
}

// itoa is n in decimal.
func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
