package wire

import (
	"slices"

	"github.com/folio-mcp/folio/toolerr"
)

// Every tool that takes a file or a directory takes it as path (and read
// several files as paths). read, list and outline took them as uri and
// uris before; a model that learned those names still sends them, to
// those tools and to the others, so every such tool still takes them,
// unadvertised: its schema offers path alone, and is open to other
// properties (see derive), so that a client or a gateway that checks a
// call against the schema lets the former name through.
const (
	// FormerPathName is path's former name.
	FormerPathName = "uri"
	// FormerPathsName is paths' former name.
	FormerPathsName = "uris"
)

// PathForms says the forms a path argument takes: a path relative to the
// first root, an absolute path, or a file:// URI.
const PathForms = "relative to the first root, absolute, or file:// URI"

// Renamed is implemented by the arguments of a tool that still take
// arguments by their former names (see FormerPathName).
type Renamed interface {
	// Rename moves what a call gave by a former name to the argument's
	// name now; the two given with different values are invalid_argument.
	Rename() *toolerr.Error
}

// renamePath moves former, path's value given by its former name, to
// path.
func renamePath(path, former *string) *toolerr.Error {
	switch {
	case *former == "":
		return nil
	case *path != "" && *path != *former:
		return toolerr.Invalid("path and %s (its former name) name different files: pass path alone", FormerPathName)
	}
	*path, *former = *former, ""
	return nil
}

// renamePaths is renamePath for paths.
func renamePaths(paths, former *[]string) *toolerr.Error {
	switch {
	case len(*former) == 0:
		return nil
	case len(*paths) > 0 && !slices.Equal(*paths, *former):
		return toolerr.Invalid("paths and %s (its former name) name different files: pass paths alone", FormerPathsName)
	}
	*paths, *former = *former, nil
	return nil
}

// Rename moves uri to path and uris to paths.
func (a *ReadArgs) Rename() *toolerr.Error {
	if e := renamePath(&a.Path, &a.FormerPath); e != nil {
		return e
	}
	return renamePaths(&a.Paths, &a.FormerPaths)
}

// Rename moves uri to path.
func (a *ListArgs) Rename() *toolerr.Error { return renamePath(&a.Path, &a.FormerPath) }

// Rename moves uri to path.
func (a *OutlineArgs) Rename() *toolerr.Error { return renamePath(&a.Path, &a.FormerPath) }

// Rename moves uri to path.
func (a *GrepArgs) Rename() *toolerr.Error { return renamePath(&a.Path, &a.FormerPath) }

// Rename moves uri to path.
func (a *SearchDocsArgs) Rename() *toolerr.Error { return renamePath(&a.Path, &a.FormerPath) }
