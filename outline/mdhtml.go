package outline

import "strings"

// An htmlKind is one of the kinds of HTML block CommonMark has, by how it
// ends and what it holds.
type htmlKind struct {
	// end is the text whose line ends the block; "" for a blank line.
	end string
	// kind is the Block the lines make.
	kind Kind
	// interrupts reports whether the block may end a paragraph.
	interrupts bool
}

// blockTags are the names of the HTML tags that start a block ending at a
// blank line (CommonMark's sixth kind).
var blockTags = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`address article aside base basefont blockquote body caption center col
		colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset
		h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes
		ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul`) {
		blockTags[name] = true
	}
}

// htmlStart is the kind of HTML block line t starts (indented by at most 3
// spaces), and whether it starts one.
func htmlStart(t string) (htmlKind, bool) {
	if indent(t) > 3 {
		return htmlKind{}, false
	}
	t = strings.TrimLeft(t, " ")
	if !strings.HasPrefix(t, "<") {
		return htmlKind{}, false
	}
	lower := strings.ToLower(t)
	if k, ok := htmlEnded(t, lower); ok {
		return k, true
	}
	name := strings.TrimPrefix(lower[1:], "/")
	n := 0
	for n < len(name) && (isLetter(name[n]) || n > 0 && (name[n] >= '0' && name[n] <= '9' || name[n] == '-')) {
		n++
	}
	if rest := name[n:]; blockTags[name[:n]] && (tagEnds(rest) || strings.HasPrefix(rest, "/>")) {
		return htmlKind{"", Paragraph, true}, true
	}
	if end := completeTag(t); end > 0 && strings.Trim(t[end:], " \t") == "" && !strings.HasPrefix(lower, "<script") {
		return htmlKind{"", Paragraph, false}, true
	}
	return htmlKind{}, false
}

// htmlEnded is the kind of HTML block t starts that ends at a text of its
// own (CommonMark's first five kinds: script, pre, style and textarea,
// comments, processing instructions, declarations, CDATA), lower being t
// in lower case.
func htmlEnded(t, lower string) (htmlKind, bool) {
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if rest, ok := strings.CutPrefix(lower, "<"+tag); ok && tagEnds(rest) {
			kind := Meta
			if tag == "pre" || tag == "textarea" {
				kind = Code
			}
			return htmlKind{"</" + tag + ">", kind, true}, true
		}
	}
	switch {
	case strings.HasPrefix(t, "<!--"):
		return htmlKind{"-->", Meta, true}, true
	case strings.HasPrefix(t, "<?"):
		return htmlKind{"?>", Meta, true}, true
	case strings.HasPrefix(t, "<![CDATA["):
		return htmlKind{"]]>", Meta, true}, true
	case len(t) > 2 && t[1] == '!' && 'A' <= t[2] && t[2] <= 'Z':
		return htmlKind{">", Meta, true}, true
	}
	return htmlKind{}, false
}

// tagEnds reports whether rest, what follows a tag's name, ends the name:
// nothing, a space or a '>'.
func tagEnds(rest string) bool {
	return rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '>'
}

// completeTag is the length of the HTML open tag (with its attributes) or
// closing tag t starts with, 0 for none.
func completeTag(t string) int {
	if strings.HasPrefix(t, "</") {
		i := tagName(t, 2)
		if i == 2 {
			return 0
		}
		if i = skipSpace(t, i); i < len(t) && t[i] == '>' {
			return i + 1
		}
		return 0
	}
	i := tagName(t, 1)
	if i == 1 {
		return 0
	}
	for {
		j := skipSpace(t, i)
		switch {
		case j < len(t) && t[j] == '>':
			return j + 1
		case j+1 < len(t) && t[j] == '/' && t[j+1] == '>':
			return j + 2
		case j == i || j == len(t) || !(isLetter(t[j]) || t[j] == '_' || t[j] == ':'):
			return 0
		}
		if i = attribute(t, j); i < 0 {
			return 0
		}
	}
}

// tagName is where the tag name t holds at i ends, i if it holds none.
func tagName(t string, i int) int {
	if i == len(t) || !isLetter(t[i]) {
		return i
	}
	for i < len(t) && (isLetter(t[i]) || t[i] >= '0' && t[i] <= '9' || t[i] == '-') {
		i++
	}
	return i
}

// attribute is where the attribute t holds at i (its name, and its value
// if it has one) ends, -1 if its value is not one.
func attribute(t string, i int) int {
	for i < len(t) && (isWord(t[i]) || t[i] == '.' || t[i] == ':' || t[i] == '-') {
		i++
	}
	k := skipSpace(t, i)
	if k == len(t) || t[k] != '=' {
		return i
	}
	i = skipSpace(t, k+1)
	if i < len(t) && (t[i] == '"' || t[i] == '\'') {
		end := strings.IndexByte(t[i+1:], t[i])
		if end < 0 {
			return -1
		}
		return i + end + 2
	}
	start := i
	for i < len(t) && !strings.ContainsRune(" \t\"'=<>`", rune(t[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func skipSpace(t string, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// html reads an HTML block of kind k from line i: to the line that holds
// its end, or to a blank line.
func (p *mdParser) html(i int, k htmlKind) int {
	j := i
	if k.end != "" {
		for j < len(p.lines) && !strings.Contains(strings.ToLower(p.text(j)), k.end) {
			j++
		}
		j = min(j+1, len(p.lines))
	} else {
		for j < len(p.lines) && !p.blank(j) {
			j++
		}
	}
	var b strings.Builder
	if k.kind != Meta {
		for l := i; l < j; l++ {
			b.WriteString(inline(strings.TrimSpace(p.text(l))))
			b.WriteByte('\n')
		}
	}
	p.add(k.kind, i, j, b.String())
	return j
}
