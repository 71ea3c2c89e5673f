package toolerr

import (
	"context"
	"errors"
	"strings"
)

// Kind is a kind of failure that other packages declare (fsview's "no
// such file", cursor's "cursor expired") and wrap with what failed:
// errors.Is finds it, and From gives the wrapping error its code and a
// message that says what to do next.
type Kind struct {
	code, text, message string
}

// NewKind declares a kind of failure: its code, its text, and the message
// of each error of the kind, where %v stands for the error (a message
// without %v is the message whatever failed).
func NewKind(code, text, message string) *Kind {
	return &Kind{code: code, text: text, message: message}
}

func (k *Kind) Error() string { return k.text }

// Code is the kind's code.
func (k *Kind) Code() string { return k.code }

// Coded is an error that makes its own *Error, message and all (a budget
// too small names the budget that would do).
type Coded interface {
	error
	ToolError() *Error
}

// From is err as an *Error: the one mapper of failures to the contract.
// An *Error is itself; a Coded error makes its own; an error of a Kind
// gets the kind's code and hint; a cancelled context and anything else is
// internal. nil is nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var c Coded
	if errors.As(err, &c) {
		e := c.ToolError()
		e.err = err
		return e
	}
	var k *Kind
	if errors.As(err, &k) {
		if !strings.Contains(k.message, "%v") {
			return Wrap(k.code, err, "%s", k.message)
		}
		return Wrap(k.code, err, k.message, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Wrap(CodeInternal, err, "the read was cancelled: %v", err)
	}
	return Wrap(CodeInternal, err, "%v", err)
}

// Invalid is an invalid_argument error: the one constructor of the code
// that callers most often make.
func Invalid(format string, args ...any) *Error {
	return New(CodeInvalidArgument, format, args...)
}

// With adds a member to the error's body beside code and message (the
// URIs a reference_not_found names, say), in the order added.
func (e *Error) With(key string, value any) *Error {
	e.extra = append(e.extra, member{key, value})
	return e
}

type member struct {
	key   string
	value any
}
