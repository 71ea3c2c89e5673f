package reader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// LocalSubject is the subject of a caller that shows no token: the command
// line, stdio, and HTTP on loopback when no tokens file is given.
const LocalSubject = "local"

// MaxTokensLimit is the largest max_tokens a read accepts: read's, as the
// tool contract (package wire) states it.
const MaxTokensLimit = wire.MaxTokensLimit

// Reader reads files as pages and as lines. It is safe for concurrent use.
type Reader struct {
	fs      *fsview.FS
	cursors *cursor.Codec
	counter pager.Counter
}

// New returns a reader over fs that signs cursors with cursors and counts
// tokens with counter.
func New(fs *fsview.FS, cursors *cursor.Codec, counter pager.Counter) *Reader {
	return &Reader{fs: fs, cursors: cursors, counter: counter}
}

// Counter is the reader's token counter.
func (r *Reader) Counter() pager.Counter { return r.counter }

// PageRequest asks for one page.
type PageRequest struct {
	// Name is a path or file:// URI.
	Name string
	// Subject is the caller's identity; cursors are bound to it.
	Subject   string
	MaxTokens int
	// Cursor is the next_cursor of the previous page, empty for the first.
	Cursor string
	// Line, when above 0, starts the first page at that line (from 1).
	Line int
	// Format is how the page is written.
	Format pager.Format
	// Section, when not empty, names a section of the file (see
	// outline.Doc.Find): the pages are its bytes alone, from its heading
	// to the next heading of its level or higher, and a cursor goes on
	// only with the same Section. It does not go with Line.
	Section string
}

// Page reads one page: from one snapshot of the file, the version and the
// page; a cursor is verified against the canonical URI and the subject, and
// a changed file is a version_conflict.
func (r *Reader) Page(ctx context.Context, req PageRequest) (pager.Page, error) {
	if e := wire.CheckMaxTokens(req.MaxTokens, MaxTokensLimit); e != nil {
		return pager.Page{}, e
	}
	f, st, cl, err := r.start(ctx, req)
	if err != nil {
		return pager.Page{}, err
	}
	if req.Section != "" {
		return r.sectionPage(ctx, f, st, cl, req)
	}
	if req.Line > 0 && req.Cursor == "" {
		// A first page from a line: where the line starts, by the line
		// index of the file's version.
		off, ver, ok, err := r.lineAt(ctx, f, req.Line)
		if err != nil {
			return pager.Page{}, err
		}
		if ok {
			at := st
			at.Offset = off
			p, err := r.pageFrom(ctx, f, at, nil, req, ver)
			if !errors.Is(err, errMoved) {
				return p, err
			}
		}
	}
	return r.pageFrom(ctx, f, st, cl, req, fsview.Version{})
}

// pageFrom is Page of f from st (cl the cursor's claim, or nil). When
// version is not zero, st.Offset is where req.Line starts in that version
// (see lineAt), and the page is of that version or errMoved.
func (r *Reader) pageFrom(ctx context.Context, f fsview.File, st cursor.State, cl *cursor.Claim, req PageRequest, version fsview.Version) (pager.Page, error) {
	indexed := version != (fsview.Version{})
	window := pager.WindowBytes(r.counter, req.MaxTokens)
	if req.Line > 0 && !indexed {
		// The line is found in the whole file.
		window = -1
	}
	// The page is made of the window: the room of both is taken at once
	// (see fsview.Reserve).
	read := max(f.Size()-st.Offset, 0)
	if window >= 0 {
		read = min(read, window)
	}
	if err := fsview.Reserve(ctx, read, min(read, pager.WindowBytes(r.counter, req.MaxTokens))); err != nil {
		return pager.Page{}, toolerr.From(err)
	}
	snap, st, err := r.snapshot(ctx, f, st, cl, req.Subject, window)
	if err != nil {
		return pager.Page{}, err
	}
	defer snap.Release()
	if indexed && snap.Version != version {
		return pager.Page{}, errMoved
	}
	var off int64
	if !indexed {
		if off, err = r.lineOffset(snap, req); err != nil {
			return pager.Page{}, err
		}
	}
	st.Offset += off
	return r.fit(snap.URI, snap.Version, st, req, snap.Window[off:], snap.EOF(), startLine(req))
}

// lineOffset is where in snap's window a read that starts at req.Line
// starts: 0 for a read that does not.
func (r *Reader) lineOffset(snap *fsview.Snapshot, req PageRequest) (int64, error) {
	if req.Line <= 0 {
		return 0, nil
	}
	if req.Cursor != "" {
		return 0, toolerr.Invalid("line starts the first page; a cursor continues from where the last page ended: pass one of them")
	}
	return pageStart(snap.Window, req.Line, snap.URI)
}

// Pages writes every page from the cursor's offset (or the start) to the
// end of the file, all from one snapshot.
func (r *Reader) Pages(ctx context.Context, req PageRequest, yield func(pager.Page) error) error {
	if e := wire.CheckMaxTokens(req.MaxTokens, MaxTokensLimit); e != nil {
		return e
	}
	f, st, cl, err := r.start(ctx, req)
	if err != nil {
		return err
	}
	snap, st, err := r.snapshot(ctx, f, st, cl, req.Subject, -1)
	if err != nil {
		return err
	}
	defer snap.Release()
	first, err := r.lineOffset(snap, req)
	if err != nil {
		return err
	}
	return r.pages(ctx, snap.URI, snap.Version, st, req, snap.Window, int(first), yield)
}

// PagesOf writes every page of text that is not a file (standard input),
// named uri in its pages, its version the BLAKE3 of text. Its cursors are
// signed as a file's, bound to uri, but nothing can go on from them once
// the text is gone: take every page at once. req.Name and req.Cursor are
// not used.
func (r *Reader) PagesOf(ctx context.Context, text []byte, uri string, req PageRequest, yield func(pager.Page) error) error {
	if e := wire.CheckMaxTokens(req.MaxTokens, MaxTokensLimit); e != nil {
		return e
	}
	if err := fsview.CheckText(text, uri); err != nil {
		return toolerr.From(err)
	}
	req.Cursor = ""
	first := 0
	if req.Line > 0 {
		off, err := pageStart(text, req.Line, uri)
		if err != nil {
			return err
		}
		first = int(off)
	}
	st := cursor.State{Issued: r.cursors.Now().Truncate(time.Second)}
	return r.pages(ctx, uri, fsview.VersionOf(text), st, req, text, first, yield)
}

// pages writes every page of text from first on, text's offset 0 being
// st.Offset in the file.
func (r *Reader) pages(ctx context.Context, uri string, version fsview.Version, st cursor.State, req PageRequest, text []byte, first int, yield func(pager.Page) error) error {
	line := startLine(req)
	for off := first; ; {
		if err := ctx.Err(); err != nil {
			return toolerr.From(err)
		}
		at := st
		at.Offset += int64(off)
		p, err := r.fit(uri, version, at, req, text[off:], true, line)
		if err != nil {
			return err
		}
		if err := yield(p); err != nil {
			return err
		}
		if !p.HasMore {
			return nil
		}
		if line > 0 {
			// The next page starts in the line this one ended in, or
			// on the next one.
			line = p.LastLine
			if text[off+p.End-1] == '\n' {
				line++
			}
		}
		off += p.End
	}
}

// start resolves the name and reads the cursor, or starts a new chain
// (no claim). A cursor's offset is what it claims: snapshot verifies it.
func (r *Reader) start(ctx context.Context, req PageRequest) (fsview.File, cursor.State, *cursor.Claim, error) {
	f, err := r.fs.Open(ctx, req.Name)
	if err != nil {
		return fsview.File{}, cursor.State{}, nil, toolerr.From(err)
	}
	if req.Cursor == "" {
		return f, cursor.State{Issued: r.cursors.Now().Truncate(time.Second)}, nil, nil
	}
	cl, err := cursor.Parse(req.Cursor)
	if err != nil {
		return fsview.File{}, cursor.State{}, nil, toolerr.From(err)
	}
	return f, cursor.State{Offset: cl.Offset}, &cl, nil
}

// snapshot reads the file at st's offset; a read that continues a cursor
// (its claim cl) is then verified against the version read, the URI and
// the subject, and its state is the cursor's. A version other than the
// cursor's is a version_conflict.
func (r *Reader) snapshot(ctx context.Context, f fsview.File, st cursor.State, cl *cursor.Claim, subject string, window int64) (*fsview.Snapshot, cursor.State, error) {
	snap, err := r.fs.Snapshot(ctx, f, st.Offset, window)
	if cl == nil {
		if err != nil {
			return nil, st, toolerr.From(err)
		}
		return snap, st, nil
	}
	if errors.Is(err, fsview.ErrOffset) {
		// Past the end: a file that shrank, or a forged offset. The
		// version of the file as it is tells them apart.
		if snap, err = r.fs.Snapshot(ctx, f, 0, 0); err != nil {
			return nil, st, toolerr.From(err)
		}
		_, err = r.verify(snap, *cl, snap.URI, subject)
		snap.Release()
		if err == nil {
			// Genuine, of this version, and past its end: no cursor
			// folio issues.
			err = toolerr.From(fmt.Errorf("%w: its offset is past the end of the file", cursor.ErrInvalid))
		}
		return nil, st, err
	}
	if err != nil {
		return nil, st, toolerr.From(err)
	}
	if st, err = r.verify(snap, *cl, snap.URI, subject); err != nil {
		snap.Release()
		return nil, st, err
	}
	return snap, st, nil
}

// verify checks a cursor's claim against the snapshot's version, for
// what it is bound to (the file's URI, see boundTo) and the subject.
func (r *Reader) verify(snap *fsview.Snapshot, cl cursor.Claim, bound, subject string) (cursor.State, error) {
	st, err := r.cursors.Verify(cl, snap.Version.Short(), bound, subject)
	if err == nil {
		return st, nil
	}
	if errors.Is(err, cursor.ErrChanged) {
		return cursor.State{}, conflict(snap.URI, snap.Version.String())
	}
	return cursor.State{}, toolerr.From(err)
}

func conflict(uri, now string) *toolerr.Error {
	if now != "" {
		now = " (now version " + now + ")"
	}
	return toolerr.New(toolerr.CodeVersionConflict, "%s changed since the cursor was issued%s; restart the read without a cursor", uri, now)
}

// startLine is the line a read's first page starts at, when it was asked
// for from a line; 0 otherwise.
func startLine(req PageRequest) int {
	if req.Cursor != "" {
		return 0
	}
	return req.Line
}

// fit cuts the page of window, which starts at st.Offset of the file at
// uri (and at line firstLine, when above 0).
func (r *Reader) fit(uri string, version fsview.Version, st cursor.State, req PageRequest, window []byte, eof bool, firstLine int) (pager.Page, error) {
	short := version.Short()
	var cursorErr error
	p, err := pager.Fit(pager.Request{
		Counter:   r.counter,
		MaxTokens: req.MaxTokens,
		Format:    req.Format,
		URI:       uri,
		Version:   version.String(),
		Window:    window,
		EOF:       eof,
		FirstLine: firstLine,
		Cursor: func(end int) string {
			// The chain keeps its issue time, so a repeated cursor gives
			// the same page, byte for byte.
			c, err := r.cursors.Encode(cursor.State{Offset: st.Offset + int64(end), Version: short, Issued: st.Issued}, boundTo(uri, req.Section), req.Subject)
			if err != nil {
				cursorErr = err
			}
			return c
		},
	})
	if cursorErr != nil {
		return pager.Page{}, toolerr.From(cursorErr)
	}
	if err != nil {
		return pager.Page{}, toolerr.From(err)
	}
	return p, nil
}
