//go:build !linux

package stdio

import "os"

// unreadOf is nil: only Linux tells a writer how much of a pipe or a
// socket its reader has yet to read (see unread_linux.go), so elsewhere an
// answer is written without waiting for the notifications before it to be
// read.
func unreadOf(*os.File) func() (n int, ok bool) { return nil }
