package reader

import (
	"context"
	"errors"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
	"github.com/folio-mcp/folio/toolerr"
)

// AsError returns err as a *toolerr.Error, giving a code of the contract to
// the errors of fsview, cursor and pager.
func AsError(err error) *toolerr.Error {
	if err == nil {
		return nil
	}
	var e *toolerr.Error
	if errors.As(err, &e) {
		return e
	}
	var be *pager.BudgetError
	switch {
	case errors.As(err, &be):
		return toolerr.Wrap(toolerr.CodeBudgetTooSmall, err, "max_tokens %d is too small for this page: it needs at least %d; retry with max_tokens of %d or more", be.Budget, be.Min, be.Min)
	case errors.Is(err, fsview.ErrNotFound):
		return toolerr.Wrap(toolerr.CodeNotFound, err, "%v; check the path, or list the directory", err)
	case errors.Is(err, fsview.ErrInvalidPath), errors.Is(err, fsview.ErrIsDir):
		return toolerr.Wrap(toolerr.CodeInvalidArgument, err, "%v", err)
	case errors.Is(err, fsview.ErrNotText), errors.Is(err, fsview.ErrNotRegular):
		return toolerr.Wrap(toolerr.CodeNotText, err, "%v; only UTF-8 text files can be read", err)
	case errors.Is(err, fsview.ErrTooLarge):
		return toolerr.Wrap(toolerr.CodeTooLarge, err, "%v", err)
	case errors.Is(err, cursor.ErrExpired):
		return toolerr.Wrap(toolerr.CodeCursorExpired, err, "the cursor has expired; restart the read without a cursor")
	case errors.Is(err, cursor.ErrInvalid):
		return toolerr.Wrap(toolerr.CodeInvalidCursor, err, "the cursor is not valid for this file and caller (%v); pass next_cursor from the previous page unchanged, with the same uri, or restart without a cursor", err)
	case errors.Is(err, pager.ErrUnknownCounter):
		return toolerr.Wrap(toolerr.CodeInvalidArgument, err, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return toolerr.Wrap(toolerr.CodeInternal, err, "the read was cancelled: %v", err)
	}
	return toolerr.Wrap(toolerr.CodeInternal, err, "%v", err)
}
