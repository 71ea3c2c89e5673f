package main

import (
	"fmt"

	"github.com/folio-mcp/folio/toolerr"
)

// Exit codes that scripts can branch on.
const (
	exitFailure         = 1
	exitInvalidArgument = 2
	exitNotFound        = 3
	exitNotText         = 4
	exitInvalidCursor   = 5
	exitVersionConflict = 6
	exitBudgetTooSmall  = 7
)

// exitError carries an exit code out of a command; its message has been
// written already.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode is the exit code of a read error code.
func exitCode(code string) int {
	switch code {
	case toolerr.CodeInvalidArgument:
		return exitInvalidArgument
	case toolerr.CodeNotFound:
		return exitNotFound
	case toolerr.CodeNotText, toolerr.CodeTooLarge:
		return exitNotText
	case toolerr.CodeInvalidCursor, toolerr.CodeCursorExpired:
		return exitInvalidCursor
	case toolerr.CodeVersionConflict:
		return exitVersionConflict
	case toolerr.CodeBudgetTooSmall:
		return exitBudgetTooSmall
	}
	return exitFailure
}
