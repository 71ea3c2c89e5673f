package fsview

import (
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

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

// ignoredBy is the rule that excludes the resolved path rel itself (what
// is inside an excluded directory is not walked), or nil.
func (r ignoreRules) ignoredBy(rel string, isDir bool) *ignorePattern {
	if len(r) == 0 {
		return nil
	}
	parts := split(rel)
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].match(parts, isDir) {
			if r[i].negate {
				return nil
			}
			return &r[i]
		}
	}
	return nil
}

// Skip is what a walk left out because an ignore file excludes it.
type Skip struct {
	// Rel is its path relative to its root.
	Rel string
	Dir bool
	// File is the ignore file, relative to the root (".gitignore",
	// "sub/.ignore", ".git/info/exclude"), and Rule its rule as written.
	File, Rule string
}

func (p *ignorePattern) skip(rel string, isDir bool) Skip {
	return Skip{Rel: rel, Dir: isDir, File: p.file, Rule: p.rule}
}

// Ignored reports whether walks skip the absolute path abs (a directory
// when isDir) because an ignore file excludes it or a directory above it.
// A path outside every root, or one whose directories cannot be opened, is
// not ignored.
func (v *FS) Ignored(abs string, isDir bool) bool {
	_, ignored := v.IgnoredBy(abs, isDir)
	return ignored
}

// IgnoredBy is why walks skip the absolute path abs, as Ignored says they
// do: the path (abs or a directory above it) and the rule that excludes
// it.
func (v *FS) IgnoredBy(abs string, isDir bool) (Skip, bool) {
	r, rel, ok := v.rootOf(abs)
	parts := split(rel)
	if v.opt.NoIgnore || !ok || len(parts) == 0 {
		return Skip{}, false
	}
	var by Skip
	ignored := false
	v.descend(r, parts[:len(parts)-1], func(i int, rules ignoreRules) bool {
		p, dir := path.Join(parts[:i+1]...), i < len(parts)-1 || isDir
		if rule := rules.ignoredBy(p, dir); rule != nil {
			by, ignored = rule.skip(p, dir), true
		}
		return ignored
	})
	return by, ignored
}

// ignoredTarget is the rule that excludes the file a symlink found in a
// walk of the directory start leads to, or a directory above that file,
// or nil: as a walk of its root would skip it, or, when it lies inside
// start, as the walk of start does (start and what is above it are walked
// whether ignored or not).
func (v *FS) ignoredTarget(start, f File) *ignorePattern {
	parts := split(f.resolved)
	if v.opt.NoIgnore || len(parts) == 0 {
		return nil
	}
	from := 0 // the first component judged
	if start.resolved != "." && inside(start.resolved, f.resolved) {
		from = len(split(start.resolved))
	}
	var by *ignorePattern
	v.descend(f.root, parts[:len(parts)-1], func(i int, rules ignoreRules) bool {
		if i >= from {
			by = rules.ignoredBy(path.Join(parts[:i+1]...), i < len(parts)-1)
		}
		return by != nil
	})
	return by
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
		rules = append(parsePatterns(exclude, domain, path.Join(rel, ".git/info/exclude")), rules...)
	}
	for _, name := range ignoreFiles {
		rules = append(rules, parsePatterns(readSmall(dir, name), domain, path.Join(rel, name))...)
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

// maxSkipsNamed is how many skipped paths a Skips keeps and names.
const maxSkipsNamed = 5

// Skips gathers what a walk left out because ignore files exclude it: how
// many, and the first few.
type Skips struct {
	N     int
	First []Skip
}

// Add counts s, and keeps it when it is among the first.
func (k *Skips) Add(s Skip) {
	if k.N++; len(k.First) < maxSkipsNamed {
		k.First = append(k.First, s)
	}
}

// Note tells what a listing or a search left out: the first paths
// (directories ending in "/") with the rule and file of each, what became
// of them, and what to do; "" when nothing was.
func (k *Skips) Note(what, todo string) string {
	if k.N == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ignored %s %s (", k.N, plural(k.N, "path", "paths"), what)
	for i, s := range k.First {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.Rel)
		if s.Dir {
			b.WriteByte('/')
		}
		fmt.Fprintf(&b, " by %s %q", s.File, s.Rule)
	}
	if more := k.N - len(k.First); more > 0 {
		fmt.Fprintf(&b, ", %d more", more)
	}
	b.WriteString("): ")
	b.WriteString(todo)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
