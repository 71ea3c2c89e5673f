package outline

import "strings"

// MDXText is the text a reader sees of src, MDX or a run of its lines: its
// Markdown as it is written (fenced code and code spans untouched), but
// its JSX dropped: import and export statements, the tags of components
// and HTML elements (their children's text kept; an autolink's address
// kept), and comments ({/* */}, <!-- -->). A line that held nothing else
// is left out, and blank lines come one at a time.
func MDXText(src []byte) []TextLine {
	m := &mdxWriter{}
	lines := strings.Split(string(src), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		m.line(strings.TrimSuffix(l, "\r"), i+1)
	}
	for len(m.out) > 0 && m.out[len(m.out)-1].Text == "" {
		m.out = m.out[:len(m.out)-1]
	}
	return m.out
}

// mdxWriter writes the text of MDX a line at a time, carrying what a line
// leaves open to the next.
type mdxWriter struct {
	out []TextLine
	// fence is the open code fence, "" outside one.
	fence string
	// inESM is whether an import or export statement is being read, esm
	// the depth of its brackets.
	inESM bool
	esm   int
	// What a line left open: a tag (with its quote and brace depth), a
	// comment (with the text that ends it).
	inTag      bool
	quote      byte
	braces     int
	commentEnd string
	// unclosed are the lengths of the runs of backticks the line being
	// stripped has no more of (a run opens no code span then).
	unclosed map[int]bool
}

// line writes line n, l.
func (m *mdxWriter) line(l string, n int) {
	trimmed := strings.TrimLeft(l, " \t")
	switch {
	case m.fence != "":
		m.out = append(m.out, TextLine{l, n})
		if t := strings.TrimSpace(trimmed); strings.HasPrefix(t, m.fence) && strings.Trim(t, m.fence[:1]) == "" {
			m.fence = ""
		}
		return
	case m.inESM || !m.inTag && m.commentEnd == "" && (strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "export ")):
		m.esmLine(l)
		return
	case !m.inTag && m.commentEnd == "" && fence(trimmed) != "":
		m.fence = fence(trimmed)
		m.out = append(m.out, TextLine{l, n})
		return
	}
	t := strings.TrimRight(m.strip(l), " \t")
	switch {
	case strings.TrimSpace(t) != "":
		m.out = append(m.out, TextLine{t, n})
	case strings.TrimSpace(l) == "" && len(m.out) > 0 && m.out[len(m.out)-1].Text != "":
		m.out = append(m.out, TextLine{"", n})
	}
}

// esmLine reads a line of an import or export statement, which ends where
// its brackets close.
func (m *mdxWriter) esmLine(l string) {
	if !m.inESM {
		m.inESM, m.esm = true, 0
	}
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '{', '(', '[':
			m.esm++
		case '}', ')', ']':
			m.esm--
		}
	}
	if m.esm <= 0 && !strings.HasSuffix(strings.TrimSpace(l), ",") {
		m.inESM = false
	}
}

// strip is l without its JSX: tags and comments, and what a tag or a
// comment left open on the lines before.
func (m *mdxWriter) strip(l string) string {
	var b strings.Builder
	clear(m.unclosed)
	for i := 0; i < len(l); {
		switch {
		case m.commentEnd != "":
			end := strings.Index(l[i:], m.commentEnd)
			if end < 0 {
				return b.String()
			}
			i += end + len(m.commentEnd)
			m.commentEnd = ""
		case m.inTag:
			i = m.skipTag(l, i)
		case l[i] == '`':
			i = m.codeSpan(l, i, &b)
		case strings.HasPrefix(l[i:], "{/*"):
			m.commentEnd, i = "*/}", i+3
		case strings.HasPrefix(l[i:], "<!--"):
			m.commentEnd, i = "-->", i+4
		case l[i] == '<' && i+1 < len(l) && (isLetter(l[i+1]) || l[i+1] == '/' || l[i+1] == '>'):
			if end := strings.IndexByte(l[i:], '>'); end > 0 && strings.Contains(l[i:i+end], "://") && !strings.ContainsAny(l[i:i+end], " \t") {
				b.WriteString(l[i+1 : i+end]) // an autolink: its address
				i += end + 1
				continue
			}
			m.inTag, m.quote, m.braces = true, 0, 0
			i = m.skipTag(l, i+1)
		default:
			b.WriteByte(l[i])
			i++
		}
	}
	return b.String()
}

// skipTag is where the tag being read ends in l, from i: after its '>'
// (outside quotes and braces), or at l's end, the tag still open.
func (m *mdxWriter) skipTag(l string, i int) int {
	for ; i < len(l); i++ {
		c := l[i]
		switch {
		case m.quote != 0:
			if c == m.quote {
				m.quote = 0
			}
		case c == '"' || c == '\'':
			m.quote = c
		case c == '{':
			m.braces++
		case c == '}':
			m.braces = max(m.braces-1, 0)
		case c == '>' && m.braces == 0:
			m.inTag = false
			return i + 1
		}
	}
	return i
}

// codeSpan writes the code span that starts at l[i] (a run of backticks)
// to b as it is, and returns where it ends; a run with no closing run is
// written alone.
func (m *mdxWriter) codeSpan(l string, i int, b *strings.Builder) int {
	n := 0
	for i+n < len(l) && l[i+n] == '`' {
		n++
	}
	ticks := l[i : i+n]
	for j := i + n; j < len(l) && !m.unclosed[n]; {
		k := strings.Index(l[j:], ticks)
		if k < 0 {
			break
		}
		end := j + k + n
		if end == len(l) || l[end] != '`' {
			b.WriteString(l[i:end])
			return end
		}
		for end < len(l) && l[end] == '`' {
			end++
		}
		j = end
	}
	if m.unclosed == nil {
		m.unclosed = map[int]bool{}
	}
	m.unclosed[n] = true
	b.WriteString(ticks)
	return i + n
}
