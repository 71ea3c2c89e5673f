package outline

import "strings"

// indent is the columns of t's leading spaces, a tab counting 4.
func indent(t string) int {
	n := 0
	for _, c := range t {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

// fence is the opening fence t starts a code block with ("```" or "~~~",
// or longer), indented by at most 3 spaces; "" for none. A backtick
// fence's info string holds no backtick.
func fence(t string) string {
	if indent(t) > 3 {
		return ""
	}
	t = strings.TrimLeft(t, " ")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// closes reports whether t closes a code block opened by open: the same
// character, at least as many, nothing after but spaces.
func closes(t, open string) bool {
	if indent(t) > 3 {
		return false
	}
	t = strings.TrimSpace(t)
	return len(t) >= len(open) && strings.Trim(t, open[:1]) == ""
}

// atxLevel is the level of the ATX heading t ("# Title" to "###### Title",
// indented by at most 3 spaces), 0 for none.
func atxLevel(t string) int {
	if indent(t) > 3 {
		return 0
	}
	t = strings.TrimLeft(t, " ")
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

// atxTitle is the text of the ATX heading t, without its opening and
// closing runs of "#".
func atxTitle(t string) string {
	t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#"))
	if trimmed := strings.TrimRight(t, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") {
		t = strings.TrimSpace(trimmed)
	}
	return t
}

// setextLevel is the level t underlines the paragraph above it with: 1
// for "===", 2 for "---"; 0 for neither.
func setextLevel(t string) int {
	if indent(t) > 3 {
		return 0
	}
	t = strings.Trim(t, " \t\r")
	switch {
	case t == "":
		return 0
	case strings.Trim(t, "=") == "":
		return 1
	case strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

// delimiterRow reports whether t is the row under a table's header of
// cells cells: that many cells of dashes, each with an optional ":" at
// either end, with at least one "|".
func delimiterRow(t string, cells int) bool {
	t = strings.TrimSpace(t)
	if !strings.Contains(t, "-") || !strings.Contains(t, "|") {
		return false
	}
	row := tableCells(t)
	if len(row) != cells {
		return false
	}
	for _, cell := range row {
		cell = strings.Trim(strings.TrimSpace(cell), ":")
		if cell == "" || strings.Trim(cell, "-") != "" {
			return false
		}
	}
	return true
}

// tableCells are the cells of a table's row t: split at its "|" (but
// "\|"), without the outer ones.
func tableCells(t string) []string {
	t = strings.TrimSpace(t)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, "\\|") {
		t = t[:len(t)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, t[start:i])
			start = i + 1
		}
	}
	return append(cells, t[start:])
}

// thematicBreak reports whether t is a thematic break: three or more of
// "-", "*" or "_", the same, with spaces or tabs between, after at most 3
// spaces.
func thematicBreak(t string) bool {
	if indent(t) > 3 {
		return false
	}
	t = strings.Trim(t, " \t\r")
	if t == "" || !strings.ContainsRune("-*_", rune(t[0])) {
		return false
	}
	n := 0
	for _, c := range t {
		switch {
		case c == rune(t[0]):
			n++
		case c != ' ' && c != '\t':
			return false
		}
	}
	return n >= 3
}

// listMarker is the length of the list item marker t starts with ("- ",
// "* ", "+ ", "1. ", "1) ", after at most 3 spaces), 0 for none.
func listMarker(t string) int {
	if m := itemMarker(t); m > 0 && m < len(t) && (t[m] == ' ' || t[m] == '\t') {
		return m + 1
	}
	return 0
}

// mdListMarker is listMarker, or for a marker alone on its line (an empty
// item, which Markdown has and AsciiDoc's "+" is not), its length.
func mdListMarker(t string) int {
	if m := itemMarker(t); m > 0 && m == len(t) {
		return m
	}
	return listMarker(t)
}

// itemMarker is the length of the list item marker t starts with, without
// what follows it ("-", "1.", after at most 3 spaces), 0 for none.
func itemMarker(t string) int {
	lead := len(t) - len(strings.TrimLeft(t, " "))
	if lead > 3 {
		return 0
	}
	rest := t[lead:]
	if rest != "" && strings.ContainsRune("-*+", rune(rest[0])) {
		return lead + 1
	}
	n := 0
	for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n == len(rest) || (rest[n] != '.' && rest[n] != ')') {
		return 0
	}
	return lead + n + 1
}

// interruptsParagraph reports whether the list item t starts (mdListMarker
// found one) may end a paragraph, as CommonMark has it: one with text,
// numbered 1 if numbered.
func interruptsParagraph(t string) bool {
	t = strings.TrimSpace(t)
	return len(t) > 1 && (strings.ContainsRune("-*+", rune(t[0])) || t[0] == '1' && (t[1] == '.' || t[1] == ')') && len(t) > 2)
}

// inline is Markdown text as a reader reads it: tags dropped, a link or
// an image as its text, code spans and emphasis without their marks.
func inline(t string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if skip := markup(t, i); skip > 0 {
			i += skip - 1
			continue
		}
		b.WriteByte(t[i])
	}
	return b.String()
}

// markup is how many bytes of markup t has at i, that a reader does not
// read: a tag, a link's target with its "](", an image's "!", a bracket,
// a code span's or emphasis's mark; 0 for text.
func markup(t string, i int) int {
	switch c := t[i]; c {
	case '<':
		if j := strings.IndexByte(t[i:], '>'); j > 0 && tagLike(t[i+1:i+j]) {
			return j + 1
		}
	case '!':
		if i+1 < len(t) && t[i+1] == '[' {
			return 1
		}
	case ']':
		if j := strings.IndexByte(t[i:], ')'); i+1 < len(t) && t[i+1] == '(' && j > 0 {
			return j + 1
		}
		return 1
	case '[', '`', '*':
		return 1
	case '_':
		if i == 0 || i+1 == len(t) || !isWord(t[i-1]) || !isWord(t[i+1]) {
			return 1
		}
	}
	return 0
}

// tagLike reports whether s, what comes between "<" and ">", is an HTML or
// JSX tag: a name, or "/" and a name, then anything.
func tagLike(s string) bool {
	s = strings.TrimPrefix(s, "/")
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

// isWord reports whether c is a letter, a digit or "_" (ASCII).
func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
