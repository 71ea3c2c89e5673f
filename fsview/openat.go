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
	var done []string
	var dirs []int // dirs[i] is open on done[:i+1], while a component follows it
	defer func() { closeAll(dirs) }()
	at := func() int {
		if len(dirs) == 0 {
			return r.fd
		}
		return dirs[len(dirs)-1]
	}
	todo := split(rel)
	hops := 0
	var last *statInfo
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			var err error
			if done, dirs, err = up(done, dirs); err != nil {
				return "", nil, err
			}
			last = nil
			continue
		}
		info, err := statAt(at(), c)
		if err != nil {
			return "", nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > maxSymlinks {
				return "", nil, errors.New("too many symlinks")
			}
			target, fromRoot, err := r.linkTarget(at(), c)
			if err != nil {
				return "", nil, err
			}
			if fromRoot {
				closeAll(dirs)
				done, dirs = nil, nil
			}
			todo = append(split(filepath.ToSlash(target)), todo...)
			last = nil
			continue
		}
		if len(todo) > 0 {
			fd, err := openDir(at(), c, info)
			if err != nil {
				return "", nil, err
			}
			dirs = append(dirs, fd)
		}
		done = append(done, c)
		last = info
	}
	return r.resolved(done, last)
}

// closeAll closes the directories dirs.
func closeAll(dirs []int) {
	for _, fd := range dirs {
		unix.Close(fd)
	}
}

// up goes back up one component of a resolve, for "..": done are the
// components resolved, and dirs the directories open on them (see
// resolve). It never goes above the root.
func up(done []string, dirs []int) ([]string, []int, error) {
	if len(done) == 0 {
		return done, dirs, errEscape
	}
	done = done[:len(done)-1]
	if len(dirs) > len(done) {
		unix.Close(dirs[len(dirs)-1])
		dirs = dirs[:len(dirs)-1]
	}
	return done, dirs, nil
}

// linkTarget is the target of the symlink name in the open directory dir;
// fromRoot when the target is absolute: then it is given relative to the
// root, which it must lie inside, to resolve from there.
func (r *root) linkTarget(dir int, name string) (target string, fromRoot bool, err error) {
	target, err = readlinkAt(dir, name)
	if err != nil {
		return "", false, err
	}
	if !filepath.IsAbs(target) {
		return target, false, nil
	}
	rel, ok := within(r.path, filepath.Clean(target))
	if !ok {
		return "", false, errEscape
	}
	return rel, true, nil
}

// openDir opens the entry name, whose Lstat is info, of the open directory
// dir, for a resolve to go on into: it must be a directory.
func openDir(dir int, name string, info *statInfo) (int, error) {
	if !info.IsDir() {
		return -1, fs.ErrNotExist
	}
	return openat(dir, name, dirFlags)
}

// resolved is what resolve returns once it resolved the components done:
// their path, and last, the Lstat of the last one; when last is nil, the
// stat of the directory the path names, taken now.
func (r *root) resolved(done []string, last *statInfo) (string, *statInfo, error) {
	resolved := path.Join(done...)
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
