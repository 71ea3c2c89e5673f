package llmstxt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/outline"
)

// The names of the two files, as the proposal gives them.
const (
	IndexName = "llms.txt"
	FullName  = "llms-full.txt"
)

// DefaultMaxIndexBytes bounds llms.txt when Options.MaxIndexBytes is 0:
// 64 KiB, about 16,000 tokens, within what resources/read gives at
// folio's default caps.
const DefaultMaxIndexBytes = 64 << 10

// IsDoc reports whether the file name is a document by its extension:
// Markdown and MDX, HTML, reStructuredText, AsciiDoc, or plain text
// (.txt), as package outline lists them (outline.IsDoc). Source files
// and data are not listed.
func IsDoc(name string) bool { return outline.IsDoc(name) }

// Options shape what Index and Write make.
type Options struct {
	// Skip, when set, leaves out the documents whose path relative to
	// the root it accepts: the outputs themselves, say. The root's own
	// llms.txt and llms-full.txt are always left out.
	Skip func(rel string) bool
	// LinkPrefix goes before every link's path: "" when llms.txt lies in
	// the root, else the way from where it lies to the root ("../docs/").
	LinkPrefix string
	// MaxIndexBytes bounds llms.txt (DefaultMaxIndexBytes when 0): past
	// it, documents are counted, not listed, and a last line says so.
	MaxIndexBytes int
	// MaxFullBytes bounds llms-full.txt (0: no bound): the documents
	// that would take it past the bound are left out, and a last line
	// says how many.
	MaxFullBytes int64
}

// Index is the llms.txt of the directory root (a name as fsview's Resolve
// takes it) of view.
func Index(ctx context.Context, view *fsview.FS, root string, opt Options) ([]byte, error) {
	return Write(ctx, view, root, opt, nil)
}

// Write writes the llms-full.txt of the directory root of view to full as
// it walks the tree, one document held at a time, and returns its
// llms.txt. With full nil it makes llms.txt alone.
//
// llms-full.txt starts with llms.txt's H1 and summary and a line that
// says how it is laid out; then each document is a line
// "=== PATH (N bytes) ===", its N bytes exactly, and a newline. PATH is
// the document's path relative to the root, as its llms.txt links it.
func Write(ctx context.Context, view *fsview.FS, root string, opt Options, full io.Writer) ([]byte, error) {
	d, err := view.Resolve(root)
	if err != nil {
		return nil, err
	}
	if !d.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", fsview.ErrInvalidPath, d.URI)
	}
	if opt.MaxIndexBytes <= 0 {
		opt.MaxIndexBytes = DefaultMaxIndexBytes
	}
	m := &maker{opt: opt, view: view, root: d, head: headOf(ctx, view, d)}
	m.headText = headText(m.head)
	if full != nil {
		m.full = bufio.NewWriterSize(full, 64<<10)
		m.writeFullHead()
	}
	err = view.WalkFiles(ctx, root, nil, m.keep, func(e *fsview.Entry, err error) error {
		return m.add(ctx, e, err)
	})
	if err == nil && m.full != nil {
		m.writeFullEnd()
		err = m.full.Flush()
	}
	if err != nil {
		return nil, err
	}
	return m.index(), nil
}

// head is what the tree says of itself: its title and summary.
type head struct {
	title, summary string
}

// readmes are the names, in the root, whose document says what the tree
// is, the first found first.
var readmes = []string{
	"README.md", "readme.md", "Readme.md", "README.markdown", "README.mdx",
	"README.rst", "README.adoc", "README.txt", "README",
	"index.md", "index.mdx", "index.html", "index.rst", "index.adoc",
}

// maxSummary bounds the summary, in characters.
const maxSummary = 300

// headOf is the title and summary of the tree d: its README's (or
// index's, one the walk would show) first heading and first paragraph;
// else the directory's name and no summary.
func headOf(ctx context.Context, view *fsview.FS, d fsview.File) head {
	h := head{title: filepath.Base(d.Path)}
	for _, name := range readmes {
		abs := filepath.Join(d.Path, name)
		f, err := view.Regular(abs)
		if err != nil || view.Ignored(abs, false) {
			continue
		}
		snap, err := view.Content(ctx, f)
		if err != nil {
			continue
		}
		doc := outline.Of(name, snap.Window)
		snap.Release()
		if t := titleOf(doc); t != "" {
			h.title = t
		}
		h.summary = bounded(oneLine(firstParagraph(doc)), maxSummary)
		break
	}
	return h
}

// titleOf is a document's title: its own (front matter or first top-level
// heading), else its first heading's, else "".
func titleOf(doc *outline.Doc) string {
	if t := oneLine(doc.Title); t != "" {
		return t
	}
	if len(doc.Sections) > 0 {
		return oneLine(doc.Sections[0].Title)
	}
	return ""
}

// firstParagraph is the text of a document's first paragraph with words
// in it, or "".
func firstParagraph(doc *outline.Doc) string {
	for _, b := range doc.Blocks {
		if b.Kind == outline.Paragraph && strings.TrimSpace(b.Text) != "" {
			return b.Text
		}
	}
	return ""
}

// maker is one making of the two files.
type maker struct {
	opt  Options
	view *fsview.FS
	root fsview.File
	head head
	// headText is llms.txt's start (see headText).
	headText string

	full      *bufio.Writer // nil: llms.txt alone
	fullBytes int64         // written to full
	fullLeft  int           // documents left out of full, over its bound

	sections []*section // in the order their first document came
	byDir    map[string]*section
	listed   int    // bytes of the listing so far
	unlisted int    // documents over llms.txt's bound
	buf      []byte // the last document's, for the next
}

// section is one directory's link lines.
type section struct {
	dir   string // relative to the root, "." for the root
	lines []string
}

// keep passes the documents the walk gives on: not the outputs, nor what
// Skip leaves out, nor a path with a control character (see plainPath).
func (m *maker) keep(f fsview.File) bool {
	rel := f.RelTo(m.root)
	if rel == IndexName || rel == FullName || !IsDoc(rel) || !plainPath(rel) {
		return false
	}
	return m.opt.Skip == nil || !m.opt.Skip(rel)
}

// add reads one document the walk found, lists it and writes it whole. A
// file the view hides, or finds no text, is passed over as list passes it.
func (m *maker) add(ctx context.Context, e *fsview.Entry, err error) error {
	if err != nil {
		return nil
	}
	if m.listFull() && m.fullDone() {
		// Nothing more to read it for: counted, as list judges
		// it, not read whole.
		text := m.view.LooksText(e.File)
		e.Drop()
		if !text {
			return nil
		}
		m.unlisted++
		if m.full != nil {
			m.fullLeft++
		}
		return nil
	}
	snap, err := m.view.ReadEntry(ctx, e, m.buf)
	if err != nil {
		// A file that is not text, or over the size cap, is no
		// document; only the end of ctx stops the walk.
		return ctx.Err()
	}
	defer snap.Release()
	m.buf = snap.Window
	rel := snap.RelTo(m.root)
	m.list(rel, snap.Window)
	if m.full != nil {
		return m.writeDoc(rel, snap.Window)
	}
	return nil
}
