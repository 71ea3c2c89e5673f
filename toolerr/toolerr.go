// Package toolerr is folio's error contract: every code a tool answers
// with, and the one Error type that carries a code and a message telling
// the caller what to do next. On the wire it is the body
// {"error":{"code":"…","message":"…"}} of a tool result with isError set.
package toolerr

import (
	"encoding/json"
	"fmt"
)

// The codes of the contract.
const (
	CodeInvalidArgument = "invalid_argument"
	CodeNotFound        = "not_found"
	CodeNotText         = "not_text"
	CodeTooLarge        = "too_large"
	CodeInvalidCursor   = "invalid_cursor"
	CodeCursorExpired   = "cursor_expired"
	CodeVersionConflict = "version_conflict"
	CodeBudgetTooSmall  = "budget_too_small"
	// Codes of result_query.
	CodeHandleNotFound = "result_handle_not_found"
	CodePathNotFound   = "result_path_not_found"
	CodeSliceTooLarge  = "result_slice_too_large"
	// CodeUnauthorized: a server refused the caller's token.
	CodeUnauthorized = "unauthorized"
	// CodeReferenceNotFound: an X_uri argument names nothing this caller
	// may have.
	CodeReferenceNotFound = "reference_not_found"
	// CodeUpstreamUnavailable: an upstream MCP server could not be reached.
	CodeUpstreamUnavailable = "upstream_unavailable"
	// CodeUpstreamError: an upstream MCP server refused a call.
	CodeUpstreamError = "upstream_error"
	// CodeInternal is any other failure (an I/O error, say).
	CodeInternal = "internal"
)

// Error is a failure the caller can act on: a code of the contract and a
// message that says what to do next.
type Error struct {
	Code    string
	Message string
	err     error
	extra   []member // see With
}

// New returns an error with code and the formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap is New for a failure that err caused; errors.Is and errors.As see
// err through it.
func Wrap(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), err: err}
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error the code was given for, if any.
func (e *Error) Unwrap() error { return e.err }

// body is the JSON of the contract's error body, as Parse reads it.
type body struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// JSON is the error body: {"error":{"code":"…","message":"…"}}, and the
// members With added after message.
func (e *Error) JSON() []byte {
	b := []byte(`{"error":{"code":`)
	b = appendJSON(b, e.Code)
	b = append(b, `,"message":`...)
	b = appendJSON(b, e.Message)
	for _, m := range e.extra {
		b = append(b, ',')
		b = appendJSON(b, m.key)
		b = append(b, ':')
		b = appendJSON(b, m.value)
	}
	return append(b, "}}"...)
}

// appendJSON appends v as JSON (null if it cannot be).
func appendJSON(b []byte, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, out...)
}

// Parse reads an error body; ok is false when text is not one.
func Parse(text []byte) (e *Error, ok bool) {
	var b body
	if json.Unmarshal(text, &b) != nil || b.Error.Code == "" {
		return nil, false
	}
	return &Error{Code: b.Error.Code, Message: b.Error.Message}, true
}
