package fsview

import (
	"io"
	"os"
	"path"
	"slices"

	"golang.org/x/sys/unix"
)

// ignoreFiles are read in every directory a walk enters, a later one's
// rules taking precedence, as ripgrep reads them.
var ignoreFiles = [...]string{".gitignore", ".ignore"}

// maxIgnoreFileBytes bounds what is read of one ignore file.
const maxIgnoreFileBytes = 1 << 20

// ignoreRules are the ignore patterns in force in a directory of a walk,
// those of deeper directories last: the last pattern that matches a path
// decides, as in git.
type ignoreRules []ignorePattern

// ignores reports whether the rules exclude the resolved path rel itself
// (what is inside an excluded directory is not walked).
func (r ignoreRules) ignores(rel string, isDir bool) bool {
	if len(r) == 0 {
		return false
	}
	parts := split(rel)
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].match(parts, isDir) {
			return !r[i].negate
		}
	}
	return false
}

// Ignored reports whether walks skip the absolute path abs (a directory
// when isDir) because an ignore file excludes it or a directory above it.
// A path outside every root, or one whose directories cannot be opened, is
// not ignored.
func (v *FS) Ignored(abs string, isDir bool) bool {
	r, rel, ok := v.rootOf(abs)
	parts := split(rel)
	if v.opt.NoIgnore || !ok || len(parts) == 0 {
		return false
	}
	ignored := false
	v.descend(r, parts[:len(parts)-1], func(i int, rules ignoreRules) bool {
		ignored = rules.ignores(path.Join(parts[:i+1]...), i < len(parts)-1 || isDir)
		return ignored
	})
	return ignored
}

// rulesAbove gathers the rules that apply inside the directory d from the
// directories above it in its root, d's own excluded.
func (v *FS) rulesAbove(d File) ignoreRules {
	parts := split(d.resolved)
	if v.opt.NoIgnore || len(parts) == 0 {
		return nil
	}
	return v.descend(d.root, parts[:len(parts)-1], nil)
}

// descend gathers the rules of the directories from the root of r down to
// the directory parts, that one included, and returns them. After each
// directory i (parts[:i]) it calls stop, when not nil, which ends the
// descent by returning true. A directory that cannot be opened ends it
// too.
func (v *FS) descend(r *root, parts []string, stop func(i int, rules ignoreRules) bool) ignoreRules {
	var rules ignoreRules
	for i := 0; i <= len(parts); i++ {
		rel := path.Join(parts[:i]...)
		dir, err := r.open(rel, dirFlags)
		if err != nil {
			return rules
		}
		rules = v.dirRules(dir, rel, rules)
		unix.Close(dir)
		if stop != nil && stop(i, rules) {
			return rules
		}
	}
	return rules
}

// dirRules adds the rules of the directory rel, open as dir, to those of
// the directories above it: a repository's .git/info/exclude below all
// others, then its .gitignore and .ignore.
func (v *FS) dirRules(dir int, rel string, above ignoreRules) ignoreRules {
	if v.opt.NoIgnore {
		return nil
	}
	domain := split(rel)
	rules := slices.Clip(above)
	if exclude := readSmall(dir, ".git", "info", "exclude"); exclude != nil {
		rules = append(parsePatterns(exclude, domain), rules...)
	}
	for _, name := range ignoreFiles {
		rules = append(rules, parsePatterns(readSmall(dir, name), domain)...)
	}
	return rules
}

// readSmall reads the regular file at the path of names below dir, with
// no symlink followed, up to maxIgnoreFileBytes; nil when there is none.
func readSmall(dir int, names ...string) []byte {
	fd := dir
	for i, name := range names {
		flag := dirFlags
		if i == len(names)-1 {
			flag = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK
		}
		next, err := openat(fd, name, flag)
		if fd != dir {
			unix.Close(fd)
		}
		if err != nil {
			return nil
		}
		fd = next
	}
	f := os.NewFile(uintptr(fd), names[len(names)-1])
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileBytes))
	if err != nil {
		return nil
	}
	return b
}
