package stdio

import (
	"os"

	"golang.org/x/sys/unix"
)

// unreadOf is how many of the bytes written to f its reader has not yet
// read, when f is a pipe (FIONREAD, that is TIOCINQ, which a pipe's write end answers for
// the pipe) or a Unix socket (SIOCOUTQ: what is written and not yet read
// stays charged to the writer until the reader takes it), as a client's
// standard output is (Node.js gives a child a socket pair); nil for any
// other file. ok is false when f can no longer tell.
func unreadOf(f *os.File) func() (n int, ok bool) {
	req := uint(0)
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	raw.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil {
			return
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFIFO:
			req = unix.TIOCINQ // FIONREAD
		case unix.S_IFSOCK:
			if domain, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN); err == nil && domain == unix.AF_UNIX {
				req = unix.SIOCOUTQ
			}
		}
	})
	if req == 0 {
		return nil
	}
	return func() (n int, ok bool) {
		var ierr error
		err := raw.Control(func(fd uintptr) {
			n, ierr = unix.IoctlGetInt(int(fd), req)
		})
		return n, err == nil && ierr == nil
	}
}
