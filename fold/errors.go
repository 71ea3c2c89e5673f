package fold

import (
	"errors"
	"fmt"
)

// Error codes of Query, as the JSON error body carries them.
const (
	CodeHandleNotFound  = "result_handle_not_found"
	CodePathNotFound    = "result_path_not_found"
	CodeSliceTooLarge   = "result_slice_too_large"
	CodeInvalidArgument = "invalid_argument"
	CodeBudgetTooSmall  = "budget_too_small"
)

// Error is a failure of Query that the caller can act on; its message says
// what to do next.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errHandleNotFound is the one answer for a handle that expired, was never
// issued, or is another session's or subject's.
var errHandleNotFound = &Error{Code: CodeHandleNotFound, Message: "no result with this handle for this session: it expired, or was never issued here; call the tool again for a new handle"}

// ErrNotFound is returned by a Store's Get for a key it does not hold (or
// holds expired).
var ErrNotFound = errors.New("fold: no such record")

// ErrNotFoldable is returned by Fold for a value that is not a JSON object or
// array.
var ErrNotFoldable = errors.New("fold: only a JSON object or array folds")
