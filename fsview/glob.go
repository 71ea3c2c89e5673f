package fsview

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/folio-mcp/folio/toolerr"
)

// Glob is a glob that narrows a listing or a search, read as ripgrep's -g
// and .gitignore read one: without a "/" it matches a name at any depth
// ("*.rs" is every Rust file below), with one it matches the path relative
// to the directory listed or searched ("src/*.rs", "**/test/*.go", and
// "/*.rs" for the directory's own files only).
type Glob struct {
	glob     string
	basename bool
}

// ParseGlob checks a doublestar glob; an invalid one is invalid_argument.
func ParseGlob(glob string) (Glob, error) {
	g := strings.TrimPrefix(glob, "/")
	if g == "" || !doublestar.ValidatePattern(g) {
		return Glob{}, toolerr.Invalid("glob %q is not a valid doublestar pattern", glob)
	}
	return Glob{glob: g, basename: !strings.Contains(glob, "/")}, nil
}

// Match reports whether the glob matches a path relative to the directory
// listed or searched.
func (g Glob) Match(rel string) bool {
	if g.basename {
		rel = path.Base(rel)
	}
	ok, _ := doublestar.Match(g.glob, rel)
	return ok
}

// Missed says what a glob that matched nothing was matched against: n
// entries under the directory uri, each one (say "file") of many ("files").
func (g Glob) Missed(n int, one, many, uri string) string {
	against := "paths relative to " + uri
	if g.basename {
		against = "names at any depth (a glob with \"/\" matches paths relative to " + uri + ")"
	}
	switch n {
	case 0:
		return fmt.Sprintf("the glob %q matched nothing: there are no %s under %s (it is matched against %s)", g.glob, many, uri, against)
	case 1:
		return fmt.Sprintf("the glob %q did not match the one %s under %s: it is matched against %s", g.glob, one, uri, against)
	}
	return fmt.Sprintf("the glob %q matched none of the %d %s under %s: it is matched against %s", g.glob, n, many, uri, against)
}
