package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/grep"
	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/wire"
)

const grepDescription = `Search text files under the served roots for an RE2 pattern, per line. Answers as rg --heading -n: each file's path, then "N:line" (a match) and "N-line" (context); long lines cut. A [folio] line says if it stopped short or found nothing. A large answer folds into a handle for result_query.`

func init() {
	register(&tool{
		name:        wire.Grep,
		description: func(*Server) string { return grepDescription },
		schema:      func(*Server) json.RawMessage { return wire.GrepSchema() },
		handler:     handle((*Server).grep),
		folds:       true,
	})
}

// grep answers a grep: the matching lines, as rg --heading -n writes them.
func (s *Server) grep(ctx context.Context, _ *mcp.CallToolRequest, c *caller, a wire.GrepArgs) (*mcp.CallToolResult, error) {
	o := grep.Options{Pattern: a.Pattern, Literal: a.Literal, IgnoreCase: a.IgnoreCase,
		MaxMatches: wire.DefaultMaxMatches, MaxBytes: s.cfg.MaxAnswerBytes, Timeout: s.cfg.GrepTimeout}
	if a.Context != nil {
		o.Context = *a.Context
	}
	if a.MaxMatches != nil {
		o.MaxMatches = *a.MaxMatches
	}
	g, err := grep.New(o)
	if err != nil {
		return s.toolError(err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	out, err := g.Search(ctx, c.fs, a.Path, a.Glob)
	if err != nil {
		return s.toolError(err)
	}
	text, matches := grepText(out, o.Context > 0)
	res := textResult(text)
	res.Meta = mcp.Meta{wire.MetaMatches: matches, wire.MetaFilesSearched: out.FilesSearched, wire.MetaTruncated: out.Truncated}
	return res, nil
}

// answerPath is a path as a grep or list answer names it: as it is, but
// quoted as a JSON string when it holds a control character (a newline in
// a name could pass for lines of the answer) or is empty.
func answerPath(p string) string {
	if p == "" || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return quote(p)
	}
	return p
}

// grepText writes a search's answer as ripgrep --heading -n writes its
// output, which models read best and which costs the fewest tokens: each
// file's path once, its lines "N:text" (a match) and "N-text" (context),
// "--" between groups of context that do not touch, a blank line between
// files; lines
// over reader.MaxLineChars cut as line reads cut them. A [folio] line
// follows only when there is something to say: the answer was cut short,
// lines were cut, nothing matched, or the glob matched no file. It returns
// the text and the number of matching lines.
func grepText(out grep.Result, groups bool) (string, int) {
	var b strings.Builder
	path, last, matches := "", 0, 0
	var cut *grep.Line
	for i, l := range out.Matches {
		if l.Path != path {
			if path != "" {
				b.WriteByte('\n')
			}
			b.WriteString(answerPath(l.Path))
			b.WriteByte('\n')
			path, last = l.Path, 0
		} else if groups && l.Line > last+1 {
			b.WriteString("--\n")
		}
		b.WriteString(strconv.Itoa(l.Line))
		if l.Context {
			b.WriteByte('-')
		} else {
			b.WriteByte(':')
			matches++
		}
		line, wasCut := reader.CutLine([]byte(l.Text), reader.MaxLineChars)
		if wasCut && cut == nil {
			cut = &out.Matches[i]
		}
		b.Write(line)
		b.WriteByte('\n')
		last = l.Line
	}
	var notes []string
	if out.Truncated {
		notes = append(notes, fmt.Sprintf("%s (%d files searched)", out.Note, out.FilesSearched))
	} else {
		if len(out.Matches) == 0 {
			notes = append(notes, fmt.Sprintf("no matches in %d files searched", out.FilesSearched))
		}
		if out.Note != "" {
			notes = append(notes, out.Note)
		}
	}
	if cut != nil {
		notes = append(notes, fmt.Sprintf(`lines over %d characters were cut: read one whole with read {"path":%s,"line":%d,"max_tokens":2000}`, reader.MaxLineChars, quote(cut.Path), cut.Line))
	}
	for _, n := range notes {
		b.WriteString(wire.Note(n))
	}
	return b.String(), matches
}
