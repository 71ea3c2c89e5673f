package llmstxt

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/folio-mcp/folio/wire"
)

// fullLayout is the line of llms-full.txt that says how it is laid out.
const fullLayout = "Each document of this tree follows: a line \"=== PATH (N bytes) ===\", its N bytes exactly, and a newline.\n"

// writeFullHead starts llms-full.txt: the H1, the summary and the line on
// its layout.
func (m *maker) writeFullHead() {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", m.head.title)
	if m.head.summary != "" {
		fmt.Fprintf(&b, "> %s\n\n", m.head.summary)
	}
	b.WriteString(fullLayout + "\n")
	m.put(b.String())
}

// put writes s to llms-full.txt; an error stays in the writer, and the
// next document's write returns it.
func (m *maker) put(s string) {
	n, _ := m.full.WriteString(s)
	m.fullBytes += int64(n)
}

// fullDone reports whether llms-full.txt takes no more documents: none is
// made, or one was left out over its bound.
func (m *maker) fullDone() bool { return m.full == nil || m.fullLeft > 0 }

// writeDoc writes the document rel, whose bytes are src, to llms-full.txt;
// or counts it as left out, when it would take the file past its bound.
func (m *maker) writeDoc(rel string, src []byte) error {
	if m.fullDone() {
		m.fullLeft++
		return nil
	}
	header := fmt.Sprintf("=== %s (%d bytes) ===\n", rel, len(src))
	size := int64(len(header) + len(src) + 1)
	if m.opt.MaxFullBytes > 0 && m.fullBytes+size > m.opt.MaxFullBytes-tailRoom {
		m.fullLeft++
		return nil
	}
	m.put(header)
	n, err := m.full.Write(src)
	m.fullBytes += int64(n)
	if err != nil {
		return err
	}
	m.put("\n")
	return nil
}

// writeFullEnd ends llms-full.txt: with a line that says how many
// documents were left out, when any were.
func (m *maker) writeFullEnd() {
	if m.fullLeft > 0 {
		m.put(wire.Note(fmt.Sprintf("%s stops at its bound of %d bytes: %d more documents are not in it; read them by their own paths.", FullName, m.opt.MaxFullBytes, m.fullLeft)))
	}
}

// plainPath reports whether the path rel can name a document in both
// files: no control character (a newline would end its header line).
func plainPath(rel string) bool {
	return strings.IndexFunc(rel, unicode.IsControl) < 0
}
