package main

import (
	"fmt"

	"github.com/folio-mcp/folio/reader"
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
	case reader.CodeInvalidArgument:
		return exitInvalidArgument
	case reader.CodeNotFound:
		return exitNotFound
	case reader.CodeNotText, reader.CodeTooLarge:
		return exitNotText
	case reader.CodeInvalidCursor, reader.CodeCursorExpired:
		return exitInvalidCursor
	case reader.CodeVersionConflict:
		return exitVersionConflict
	case reader.CodeBudgetTooSmall:
		return exitBudgetTooSmall
	}
	return exitFailure
}
