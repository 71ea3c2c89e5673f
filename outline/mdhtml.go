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
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if rest, ok := strings.CutPrefix(lower, "<"+tag); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '>') {
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
	name := strings.TrimPrefix(lower[1:], "/")
	n := 0
	for n < len(name) && (isLetter(name[n]) || n > 0 && (name[n] >= '0' && name[n] <= '9' || name[n] == '-')) {
		n++
	}
	if rest := name[n:]; blockTags[name[:n]] && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '>' || strings.HasPrefix(rest, "/>")) {
		return htmlKind{"", Paragraph, true}, true
	}
	if end := completeTag(t); end > 0 && strings.Trim(t[end:], " \t") == "" && !strings.HasPrefix(lower, "<script") {
		return htmlKind{"", Paragraph, false}, true
	}
	return htmlKind{}, false
}

// completeTag is the length of the HTML open tag (with its attributes) or
// closing tag t starts with, 0 for none.
func completeTag(t string) int {
	i := 1
	closing := i < len(t) && t[i] == '/'
	if closing {
		i++
	}
	if i == len(t) || !isLetter(t[i]) {
		return 0
	}
	for i < len(t) && (isLetter(t[i]) || t[i] >= '0' && t[i] <= '9' || t[i] == '-') {
		i++
	}
	if closing {
		i = skipSpace(t, i)
		if i < len(t) && t[i] == '>' {
			return i + 1
		}
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
		i = j
		for i < len(t) && (isWord(t[i]) || t[i] == '.' || t[i] == ':' || t[i] == '-') {
			i++
		}
		if k := skipSpace(t, i); k < len(t) && t[k] == '=' {
			i = skipSpace(t, k+1)
			switch {
			case i < len(t) && (t[i] == '"' || t[i] == '\''):
				end := strings.IndexByte(t[i+1:], t[i])
				if end < 0 {
					return 0
				}
				i += end + 2
			default:
				start := i
				for i < len(t) && !strings.ContainsRune(" \t\"'=<>`", rune(t[i])) {
					i++
				}
				if i == start {
					return 0
				}
			}
		}
	}
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
