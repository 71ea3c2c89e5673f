package pager

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/folio-mcp/folio/tokencount"
	"github.com/folio-mcp/folio/wire"
)

// TestFormats: every registered format is found by its name (a page
// format by ParseFormat too), and a page of every page format, written by
// Fit and carried as an answer's text and _meta (Page.Meta, through JSON
// as a client receives it), is read back by PageOf and decodes to the
// page that was cut: content, URI, version, cursor and lines.
func TestFormats(t *testing.T) {
	c := counter(t, tokencount.O200kBase)
	text := []byte("first line\nsecond line, \"quoted\" \\ and <tagged>\nthird\n")
	for f := range formats {
		format := Format(f)
		if got, err := ParseChunkFormat(format.String()); err != nil || got != format {
			t.Errorf("%s: ParseChunkFormat gives %v, %v", format, got, err)
		}
		_, err := ParseFormat(format.String())
		if paged := slices.Contains(FormatNames(), format.String()); (err == nil) != paged {
			t.Errorf("%s: ParseFormat says %v, FormatNames lists it: %v", format, err, paged)
		}
		if !formats[f].paged() {
			continue
		}
		for _, window := range []int{20, len(text)} {
			req := Request{Counter: c, MaxTokens: 80, Format: format, URI: "file:///d/a.txt", Version: "v1", Window: text[:window], EOF: window == len(text), FirstLine: 3,
				Cursor: func(end int) string { return fakeCursor(end) }}
			p, err := Fit(req)
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			meta := map[string]any{}
			p.Meta(meta)
			if meta[wire.MetaFormat] != format.String() {
				t.Errorf("%s: _meta names the format %v", format, meta[wire.MetaFormat])
			}
			raw, _ := json.Marshal(meta)
			var received map[string]any
			json.Unmarshal(raw, &received)
			back, err := PageOf(p.JSON, received)
			if err != nil || back.Format != format {
				t.Fatalf("%s: PageOf: %v, format %v", format, err, back.Format)
			}
			d, err := back.Decode()
			next := ""
			if d.NextCursor != nil {
				next = *d.NextCursor
			}
			if err != nil || d.Content != string(text[:p.End]) || d.URI != req.URI || d.Version != req.Version || d.HasMore != p.HasMore || next != p.NextCursor {
				t.Errorf("%s: %q decodes to %+v, %v; the page was %+v", format, p.JSON, d, err, p)
			}
		}
	}
	// A server before folio/format: its text pages said their content's
	// length, its JSON pages nothing.
	if p, err := PageOf([]byte("ab\n[folio] end version=v"), map[string]any{wire.MetaContentBytes: 2.0, wire.MetaVersion: "v"}); err != nil || p.Format != Text || p.End != 2 {
		t.Errorf("an older server's text page: %+v, %v", p, err)
	}
	if p, err := PageOf([]byte(`{}`), map[string]any{wire.MetaTokens: 3.0}); err != nil || p.Format != JSON {
		t.Errorf("an older server's JSON page: %+v, %v", p, err)
	}
	if got, want := FormatsHelp(), "json (the page contract's object) or text (the content as it is, then a [folio] footer line)"; got != want {
		t.Errorf("FormatsHelp: %q, want %q", got, want)
	}
	if _, err := PageOf([]byte("x"), map[string]any{wire.MetaFormat: "yaml"}); err == nil {
		t.Error("an answer naming an unknown format is taken for a page")
	}
	if _, err := PageOf([]byte("x"), map[string]any{wire.MetaFormat: "text", wire.MetaContentBytes: 5.0}); err == nil {
		t.Error("a text answer whose content_bytes pass its text is taken for a page")
	}
}
