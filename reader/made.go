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

// PageOf is Page of text that is no file but is made again on each call
// (a served llms.txt): named uri, its version the BLAKE3 of text. A
// cursor is verified as a file's is, against that version, uri and the
// subject: text made differently since the cursor was issued is a
// version_conflict. req.Name is not used.
func (r *Reader) PageOf(ctx context.Context, text []byte, uri string, req PageRequest) (pager.Page, error) {
	if e := wire.CheckMaxTokens(req.MaxTokens, MaxTokensLimit); e != nil {
		return pager.Page{}, e
	}
	if err := fsview.CheckText(text, uri); err != nil {
		return pager.Page{}, toolerr.From(err)
	}
	if err := ctx.Err(); err != nil {
		return pager.Page{}, toolerr.From(err)
	}
	version := fsview.VersionOf(text)
	st := cursor.State{Issued: r.cursors.Now().Truncate(time.Second)}
	var off int64
	switch {
	case req.Cursor != "" && req.Line > 0:
		return pager.Page{}, toolerr.Invalid("line starts the first page; a cursor continues from where the last page ended: pass one of them")
	case req.Cursor != "":
		var err error
		if st, err = r.verifyMade(text, version, uri, req); err != nil {
			return pager.Page{}, err
		}
		off = st.Offset
	case req.Line > 0:
		var err error
		if off, err = pageStart(text, req.Line, uri); err != nil {
			return pager.Page{}, err
		}
		st.Offset = off
	}
	end := min(int64(len(text)), off+pager.WindowBytes(r.counter, req.MaxTokens))
	return r.fit(uri, version, st, req, text[off:end], end == int64(len(text)), startLine(req))
}

// verifyMade checks req's cursor against the text made now, of that
// version: its state, or the error that refuses it.
func (r *Reader) verifyMade(text []byte, version fsview.Version, uri string, req PageRequest) (cursor.State, error) {
	cl, err := cursor.Parse(req.Cursor)
	if err != nil {
		return cursor.State{}, toolerr.From(err)
	}
	st, err := r.cursors.Verify(cl, version.Short(), uri, req.Subject)
	switch {
	case errors.Is(err, cursor.ErrChanged):
		return cursor.State{}, conflict(uri, version.String())
	case err != nil:
		return cursor.State{}, toolerr.From(err)
	case st.Offset > int64(len(text)):
		return cursor.State{}, toolerr.From(fmt.Errorf("%w: its offset is past the end of the file", cursor.ErrInvalid))
	}
	return st, nil
}
