package reader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/folio-mcp/folio/cursor"
	"github.com/folio-mcp/folio/fsview"
	"github.com/folio-mcp/folio/pager"
)

// Error codes of the page contract.
const (
	CodeInvalidArgument = "invalid_argument"
	CodeNotFound        = "not_found"
	CodeNotText         = "not_text"
	CodeTooLarge        = "too_large"
	CodeInvalidCursor   = "invalid_cursor"
	CodeCursorExpired   = "cursor_expired"
	CodeVersionConflict = "version_conflict"
	CodeBudgetTooSmall  = "budget_too_small"
	// CodeInternal is any other failure (an I/O error, say).
	CodeInternal = "internal"
)

// Error is a failed read: a code from the page contract and a message that
// tells the caller what to do next.
type Error struct {
	Code    string
	Message string
	err     error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error the code was given for.
func (e *Error) Unwrap() error { return e.err }

// JSON is the error body of the page contract:
// {"error":{"code":"…","message":"…"}}.
func (e *Error) JSON() []byte {
	type body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		Error body `json:"error"`
	}{body{e.Code, e.Message}})
	return b
}

func newError(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), err: err}
}

// AsError returns err as an *Error, giving a code to the errors of fsview,
// cursor and pager.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var be *pager.BudgetError
	switch {
	case errors.As(err, &be):
		return newError(CodeBudgetTooSmall, err, "max_tokens %d is too small for this page: it needs at least %d; retry with max_tokens of %d or more", be.Budget, be.Min, be.Min)
	case errors.Is(err, fsview.ErrNotFound):
		return newError(CodeNotFound, err, "%v; check the path, or list the directory", err)
	case errors.Is(err, fsview.ErrInvalidPath), errors.Is(err, fsview.ErrIsDir):
		return newError(CodeInvalidArgument, err, "%v", err)
	case errors.Is(err, fsview.ErrNotText), errors.Is(err, fsview.ErrNotRegular):
		return newError(CodeNotText, err, "%v; only UTF-8 text files can be read", err)
	case errors.Is(err, fsview.ErrTooLarge):
		return newError(CodeTooLarge, err, "%v", err)
	case errors.Is(err, cursor.ErrExpired):
		return newError(CodeCursorExpired, err, "the cursor has expired; restart the read without a cursor")
	case errors.Is(err, cursor.ErrInvalid):
		return newError(CodeInvalidCursor, err, "the cursor is not valid for this file and caller (%v); pass next_cursor from the previous page unchanged, with the same uri, or restart without a cursor", err)
	case errors.Is(err, pager.ErrUnknownCounter):
		return newError(CodeInvalidArgument, err, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return newError(CodeInternal, err, "the read was cancelled: %v", err)
	}
	return newError(CodeInternal, err, "%v", err)
}
