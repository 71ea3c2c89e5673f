package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/grep"
	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

const listDescription = `List a directory under the served roots: one path per line, as read takes it, directories ending in "/". No path: the first root (or the roots). details: JSON with sizes and mtimes. [folio] lines tell what was left out. A large listing folds into a handle for result_query.`

// errFull stops a listing at its cap.
var errFull = errors.New("listing full")

func init() {
	register(&tool{
		name:        wire.List,
		description: func(*Server) string { return listDescription },
		schema:      func(*Server) json.RawMessage { return wire.ListSchema() },
		handler:     handle((*Server).list),
		folds:       true,
	})
}

// list answers a list: the entries of a directory, or the roots.
func (s *Server) list(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.ListArgs) (*mcp.CallToolResult, error) {
	var glob fsview.Glob
	if a.Glob != "" {
		var err error
		if glob, err = fsview.ParseGlob(a.Glob); err != nil {
			return s.toolError(err)
		}
	}
	if roots := c.fs.Roots(); a.Path == "" && len(roots) > 1 {
		return s.listRoots(c, roots, a.Details)
	}
	if a.Path == "" {
		a.Path = "."
	}
	d, err := c.fs.Resolve(a.Path)
	if err != nil {
		return s.toolError(err)
	}
	if !d.IsDir() {
		return errorResult(toolerr.Invalid("%s is a file, not a directory: read it", d.URI)), nil
	}
	return s.listDir(ctx, c, d, a, glob)
}

// listBounds are how many entries a list may answer (max_entries, or
// the most there may be) and how deep it goes (one level; with
// recursive, max_depth, or 0 for no bound).
func listBounds(a wire.ListArgs) (maxEntries, depth int) {
	maxEntries = wire.MaxEntriesLimit
	if a.MaxEntries != nil {
		maxEntries = *a.MaxEntries
	}
	depth = 1
	if a.Recursive {
		depth = 0
		if a.MaxDepth != nil {
			depth = *a.MaxDepth
		}
	}
	return maxEntries, depth
}

// listDir answers a list of the directory d: its entries that match the
// glob (when a has one), within the bounds (see listBounds) and
// MaxAnswerBytes, and notes of what was left out, cut or ignored.
func (s *Server) listDir(ctx context.Context, c *caller, d fsview.File, a wire.ListArgs, glob fsview.Glob) (*mcp.CallToolResult, error) {
	maxEntries, depth := listBounds(a)
	out := wire.Listing{URI: d.URI, Root: d.RootURI(), Entries: []wire.Entry{}}
	var notes []string
	if by, ignored := c.fs.IgnoredBy(d.Path, true); ignored {
		notes = append(notes, fmt.Sprintf("%s is ignored by %s %q: listed as asked, but a listing or search above it leaves it out", by.Rel+"/", by.File, by.Rule))
	}
	var skipped fsview.Skips
	seen := 0                                  // entries before the glob
	size := len(out.URI) + len(out.Root) + 200 // of the JSON around the entries
	err := c.fs.List(ctx, d, fsview.ListOptions{MaxDepth: depth, Skipped: skipped.Add}, func(f fsview.File) error {
		seen++
		if a.Glob != "" && !glob.Match(f.RelTo(d)) {
			return nil
		}
		entrySize := len(`{"path":"","type":"file","size":,"mtime":"2006-01-02T15:04:05Z"},`) + 20 + grep.JSONLen(f.Rel)
		if len(out.Entries) == maxEntries || size+entrySize > s.cfg.MaxAnswerBytes {
			return errFull
		}
		size += entrySize
		out.Entries = append(out.Entries, listEntry(f, a.Details))
		return nil
	})
	if errors.Is(err, errFull) {
		out.Truncated = true
		note := fmt.Sprintf("the list was cut at %d entries: list a subdirectory, or use a glob or a smaller max_depth", len(out.Entries))
		if len(out.Entries) == maxEntries && maxEntries < wire.MaxEntriesLimit {
			note += ", or raise max_entries"
		}
		notes = append(notes, note)
	} else if err != nil {
		return s.toolError(err)
	}
	if a.Glob != "" && len(out.Entries) == 0 && seen > 0 {
		notes = append(notes, glob.Missed(seen, "entry", "entries", d.URI))
	}
	if note := skipped.Note("not listed", "list one by its path to see it"); note != "" {
		notes = append(notes, note)
	}
	if len(out.Entries) == 0 && len(notes) == 0 {
		notes = append(notes, "no entries")
	}
	out.Note = strings.Join(notes, "; ")
	return s.listAnswer(c, out, notes, a.Details)
}

// listEntry is the entry of f in a listing: its path and type, and with
// details its mtime and (a file's) size.
func listEntry(f fsview.File, details bool) wire.Entry {
	e := wire.Entry{Path: f.Rel, Type: "file"}
	if f.IsDir() {
		e.Type = "dir"
	}
	if details {
		e.MTime = f.ModTime().UTC().Format(time.RFC3339)
		if !f.IsDir() {
			size := f.Size()
			e.Size = &size
		}
	}
	return e
}

// listAnswer writes a listing: as JSON when details are asked for, else
// one path per line, as read takes it, directories ending in "/", and a
// [folio] line for each note. That costs about what the bare paths cost:
// what a model needs to choose what to read next.
func (s *Server) listAnswer(c *caller, out wire.Listing, notes []string, details bool) (*mcp.CallToolResult, error) {
	var b strings.Builder
	if !details {
		for _, e := range out.Entries {
			name := e.Path
			if out.Root != "" {
				name = c.fs.NameIn(out.Root, e.Path)
			}
			b.WriteString(answerPath(name))
			if e.Type == "dir" {
				b.WriteByte('/')
			}
			b.WriteByte('\n')
		}
		for _, n := range notes {
			b.WriteString(wire.Note(n))
		}
	}
	if details {
		j, err := marshalCompact(out)
		if err != nil {
			return s.toolError(err)
		}
		return textResult(string(j)), nil
	}
	return textResult(b.String()), nil
}

// listRoots answers a list without path when several roots are served:
// the roots themselves, by their absolute paths.
func (s *Server) listRoots(c *caller, roots []string, details bool) (*mcp.CallToolResult, error) {
	out := wire.Listing{Entries: []wire.Entry{}}
	note := "several roots are served: list one with path set to it"
	for _, root := range roots {
		d, err := c.fs.Resolve(root)
		if err != nil {
			return s.toolError(err)
		}
		e := wire.Entry{Path: root, Type: "dir"}
		if details {
			e.MTime = d.ModTime().UTC().Format(time.RFC3339)
		}
		out.Entries = append(out.Entries, e)
	}
	out.Note = note
	return s.listAnswer(c, out, []string{note}, details)
}
