package fsview

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Every name is opened from the root's descriptor one component at a time
// with O_NOFOLLOW, and every symlink is followed here, not by the kernel:
// a symlink swapped into a path after it was checked makes the open fail
// instead of leading elsewhere. So the file opened is the file whose path
// the policy judged.

// maxSymlinks bounds the symlinks followed in one resolution, as the kernel
// does.
const maxSymlinks = 40

// errEscape: a name that would leave the root.
var errEscape = errors.New("leaves the root")

// dirFlags open a directory that must not be a symlink.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// openRootDir opens the root directory at the absolute path dir.
func openRootDir(dir string) (int, error) {
	fd, err := unix.Open(dir, dirFlags&^unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}

// open opens rel, a slash path inside the root with no symlink in it (as
// resolve gives it), with flag. A component that is a symlink now fails
// the open.
func (r *root) open(rel string, flag int) (int, error) {
	dir := r.fd
	parts := split(rel)
	if len(parts) == 0 {
		parts = []string{"."}
	}
	for i, c := range parts {
		f := dirFlags
		if i == len(parts)-1 {
			f = flag | unix.O_NOFOLLOW | unix.O_CLOEXEC
		}
		fd, err := openat(dir, c, f)
		if dir != r.fd {
			unix.Close(dir)
		}
		if err != nil {
			return -1, err
		}
		dir = fd
	}
	return dir, nil
}

// openat is openat(2), tried again when a signal interrupts it.
func openat(dir int, name string, flag int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flag, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// resolve follows every symlink of rel inside the root, component by
// component from open directories, and returns the path with none left
// and its Lstat. A link that leads outside the root, a loop, or a missing
// component is an error.
func (r *root) resolve(rel string) (string, *statInfo, error) {
	s := resolution{r: r}
	defer s.closeDirs()
	todo := split(rel)
	var last *statInfo
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			if err := s.up(); err != nil {
				return "", nil, err
			}
			last = nil
			continue
		}
		info, err := statAt(s.at(), c)
		if err != nil {
			return "", nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if todo, err = s.follow(c, todo); err != nil {
				return "", nil, err
			}
			last = nil
			continue
		}
		if err := s.enter(c, info, len(todo) > 0); err != nil {
			return "", nil, err
		}
		last = info
	}
	resolved := path.Join(s.done...)
	if resolved == "" {
		resolved = "."
	}
	if last == nil {
		// Ended on a directory reached by "..", or on the root.
		var err error
		if last, err = r.statDir(resolved); err != nil {
			return "", nil, err
		}
	}
	return resolved, last, nil
}

// resolution is where a resolve has come to: the components resolved so
// far, none a symlink, and the directories open on them.
type resolution struct {
	r    *root
	done []string
	dirs []int // dirs[i] is open on done[:i+1], while a component follows it
	hops int   // symlinks followed
}

// at is the directory the next component is looked up in: the last one
// resolved, or the root.
func (s *resolution) at() int {
	if len(s.dirs) == 0 {
		return s.r.fd
	}
	return s.dirs[len(s.dirs)-1]
}

// closeDirs closes the directories open on the components resolved.
func (s *resolution) closeDirs() {
	for _, fd := range s.dirs {
		unix.Close(fd)
	}
}

// up goes back up one component, for "..": never above the root.
func (s *resolution) up() error {
	if len(s.done) == 0 {
		return errEscape
	}
	s.done = s.done[:len(s.done)-1]
	if len(s.dirs) > len(s.done) {
		unix.Close(s.dirs[len(s.dirs)-1])
		s.dirs = s.dirs[:len(s.dirs)-1]
	}
	return nil
}

// follow follows the symlink c, an entry of the directory at gives, and
// returns the components left to resolve: those of its target, then todo.
// An absolute target must lie inside the root, and is resolved from it.
func (s *resolution) follow(c string, todo []string) ([]string, error) {
	if s.hops++; s.hops > maxSymlinks {
		return nil, errors.New("too many symlinks")
	}
	target, err := readlinkAt(s.at(), c)
	if err != nil {
		return nil, err
	}
	if filepath.IsAbs(target) {
		rel, ok := within(s.r.path, filepath.Clean(target))
		if !ok {
			return nil, errEscape
		}
		s.closeDirs()
		s.done, s.dirs, target = nil, nil, rel
	}
	return append(split(filepath.ToSlash(target)), todo...), nil
}

// enter adds c, an entry of the directory at gives that is no symlink,
// whose Lstat is info, to the components resolved; when more follow, it
// must be a directory, and is opened for them.
func (s *resolution) enter(c string, info *statInfo, more bool) error {
	if more {
		if !info.IsDir() {
			return fs.ErrNotExist
		}
		fd, err := openat(s.at(), c, dirFlags)
		if err != nil {
			return err
		}
		s.dirs = append(s.dirs, fd)
	}
	s.done = append(s.done, c)
	return nil
}

// statDir is the stat of the directory rel, a path with no symlink in it,
// opened from the root: for a resolve that ended on a directory without
// its Lstat.
func (r *root) statDir(rel string) (*statInfo, error) {
	fd, err := r.open(rel, dirFlags)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	return &statInfo{name: path.Base(rel), st: st}, nil
}

// statAt is the Lstat of the entry name of the open directory dir.
func statAt(dir int, name string) (*statInfo, error) {
	s := &statInfo{name: name}
	for {
		err := unix.Fstatat(dir, name, &s.st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			return s, nil
		}
		if err != unix.EINTR {
			return nil, err
		}
	}
}

// readlinkAt reads the symlink name of the open directory dir.
func readlinkAt(dir int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dir, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// readNames returns the names in the open directory dir, "." and ".."
// left out, in no order.
func readNames(dir int) ([]string, error) {
	buf := make([]byte, 32<<10)
	var names []string
	for {
		n, err := unix.ReadDirent(dir, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// statInfo is the fs.FileInfo of a stat(2) result.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// sameFile reports whether a and b are stats of one file.
func sameFile(a, b *statInfo) bool {
	return a.st.Dev == b.st.Dev && a.st.Ino == b.st.Ino
}

func split(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
