package reader

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/outline"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

// boundTo is what a cursor of a read of the file at uri is bound to: the
// URI, and the section the read keeps to, if it keeps to one. (A
// canonical URI holds no "#": no read's binding is another's.)
func boundTo(uri, section string) string {
	if section == "" {
		return uri
	}
	return uri + "#section=" + section
}

// sectionPage is Page of the section req names in f (st and cl as start
// gives them): the whole file is read, once, for its outline and its
// version; a cursor is verified against that version, the URI with the
// section and the subject, before the section is looked for, and must lie
// inside the section.
func (r *Reader) sectionPage(ctx context.Context, f fsview.File, st cursor.State, cl *cursor.Claim, req PageRequest) (pager.Page, error) {
	if req.Line > 0 {
		return pager.Page{}, toolerr.Invalid("line and section both start a read: pass one of them")
	}
	if err := fsview.Reserve(ctx, f.Size(), min(f.Size(), pager.WindowBytes(r.counter, req.MaxTokens))); err != nil {
		return pager.Page{}, toolerr.From(err)
	}
	snap, err := r.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return pager.Page{}, toolerr.From(err)
	}
	defer snap.Release()
	if cl != nil {
		if st, err = r.verify(snap, *cl, boundTo(snap.URI, req.Section), req.Subject); err != nil {
			if errors.Is(err, cursor.ErrInvalid) {
				return pager.Page{}, toolerr.New(toolerr.CodeInvalidCursor, "the cursor is not one of this file's section %q for this caller: pass next_cursor of the previous page unchanged, with the same path and section, or restart without a cursor", req.Section)
			}
			return pager.Page{}, err
		}
	}
	sec, err := r.section(snap, f, req.Section)
	if err != nil {
		return pager.Page{}, err
	}
	first := 0
	if cl == nil {
		st.Offset, first = int64(sec.Start), sec.First
	} else if st.Offset < int64(sec.Start) || st.Offset >= int64(sec.End) {
		return pager.Page{}, toolerr.From(fmt.Errorf("%w: its offset is outside the section", cursor.ErrInvalid))
	}
	return r.fit(snap.URI, snap.Version, st, req, snap.Window[st.Offset:sec.End], true, first)
}

// sectionLines is ReadLines of the section req names in f.
func (r *Reader) sectionLines(ctx context.Context, f fsview.File, req LineRequest) (*Lines, error) {
	snap, err := r.fs.Snapshot(ctx, f, 0, -1)
	if err != nil {
		return nil, toolerr.From(err)
	}
	defer snap.Release()
	sec, err := r.section(snap, f, req.Section)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Offset == 0:
		req.Offset = sec.First
	case req.Offset < 0:
		req.Offset = max(sec.Last+req.Offset+1, sec.First)
	case req.Offset < sec.First || req.Offset > sec.Last:
		return nil, toolerr.Invalid("offset %d is outside section %q, lines %d-%d of %s: in a section, offset is the file's line number (or negative, from the section's end)", req.Offset, req.Section, sec.First, sec.Last, snap.URI)
	}
	l := &Lines{URI: snap.URI, Name: r.fs.Name(f), Version: snap.Version.String(), Section: &SectionLines{Query: req.Section, First: sec.First, Last: sec.Last}}
	l, _, err = r.lines(ctx, snap.Window[:sec.End], 1, true, countLines(snap.Window), l, req)
	if err != nil {
		return nil, err
	}
	snap.Keep(ctx, int64(len(l.Text)))
	return l, nil
}

// section is the section of snap, the text of f, that query names: an
// error that names the closest sections when it names none, or several.
func (r *Reader) section(snap *fsview.Snapshot, f fsview.File, query string) (outline.Section, error) {
	doc := outline.Of(f.Path, snap.Window)
	i, err := doc.Find(query)
	if err == nil {
		return doc.Sections[i], nil
	}
	var fe *outline.FindError
	if !errors.As(err, &fe) {
		return outline.Section{}, toolerr.From(err)
	}
	var names []string
	for _, c := range fe.Candidates {
		s := doc.Sections[c]
		names = append(names, fmt.Sprintf("%q (#%s, lines %d-%d)", strings.Join(doc.Path(c), outline.PathSep), s.Anchor, s.First, s.Last))
	}
	how := fmt.Sprintf(`name a section by its heading path, titles joined by %q (its last titles are enough when no other heading ends so), or by "#" and its anchor`, outline.PathSep)
	switch {
	case errors.Is(err, outline.ErrAmbiguous):
		return outline.Section{}, toolerr.Invalid("section %q names %d sections of %s: %s; %s", query, fe.Matches, snap.URI, strings.Join(names, ", "), how)
	case len(doc.Sections) == 0:
		return outline.Section{}, toolerr.New(toolerr.CodeNotFound, "%s has no headings, so no sections: read it by lines or pages", snap.URI)
	case len(names) == 0:
		return outline.Section{}, toolerr.New(toolerr.CodeNotFound, "no section of %s is %q; %s (outline it to see its %d headings)", snap.URI, query, how, len(doc.Sections))
	}
	return outline.Section{}, toolerr.New(toolerr.CodeNotFound, "no section of %s is %q; closest: %s; %s", snap.URI, query, strings.Join(names, ", "), how)
}
