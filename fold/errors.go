package fold

import (
	"errors"

	"github.com/folio-mcp/folio/toolerr"
)

// errHandleNotFound is the one answer for a handle that expired, was never
// issued, or is another session's or subject's.
var errHandleNotFound = toolerr.New(toolerr.CodeHandleNotFound, "no result with this handle for this session: it expired, or was never issued here; call the tool again for a new handle")

// ErrNotFound is returned by a Store's Get for a key it does not hold (or
// holds expired).
var ErrNotFound = errors.New("fold: no such record")

// errNotFoldable is returned by Fold for a value that is not a JSON object,
// array or string.
var errNotFoldable = errors.New("fold: only a JSON object, array or string folds")
