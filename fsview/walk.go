package fsview

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Walk calls fn for every visible regular file under the directory dir (a
// name as Resolve takes it), in lexical order, with its File or with the
// error that hides it (ErrNotFound for a denied name or a symlink that
// leads out). Denied directories are not entered, and symlinks to
// directories are not followed; a symlink to a file is given under its own
// name. What the ignore files exclude is skipped (see Options.NoIgnore)
// and given to skipped, when not nil, and so is a symlink to a file they
// exclude; dir itself is walked, ignored or not. An error from fn stops
// the walk.
func (v *FS) Walk(ctx context.Context, dir string, skipped func(Skip), fn func(File, error) error) error {
	d, err := v.Resolve(dir)
	if err != nil {
		return err
	}
	if !d.IsDir() {
		return fn(v.Regular(dir))
	}
	return v.walk(ctx, d, walkOptions{skipped: skipped}, fn)
}

// Entry is a regular file that WalkFiles found, not yet opened: read it
// with ReadEntry, or Drop it.
type Entry struct {
	File
	dir  *dirHandle // its directory, or nil: opened by its resolved path
	name string     // its name in dir
	// target is the file a symlink leads to, by its own name (zero
	// when the entry is no symlink); inside: the walk finds it by that
	// name too.
	target File
	inside bool
}

// Target is, for an entry reached through a symlink, the file the symlink
// leads to, named as the walk names what it finds by its own name, and
// whether the walk finds the file by that name too: the name lies inside
// the directory walked and the policy shows it (keep may still reject it).
// For an entry that is no symlink it is the zero File and false.
func (e *Entry) Target() (File, bool) {
	return e.target, e.inside
}

// Drop lets go of an entry that will not be read; a second call, or one
// after ReadEntry, does nothing.
func (e *Entry) Drop() {
	if e.dir != nil {
		e.dir.release()
		e.dir = nil
	}
}

// open opens the entry: from its directory's descriptor without following
// a symlink, and it must be the file the walk judged (see WalkFiles).
func (e *Entry) open() (int, *statInfo, error) {
	if e.dir == nil {
		return openFile(e.File)
	}
	fd, err := openat(e.dir.fd, e.name, readFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	e.Drop()
	if err != nil {
		return -1, nil, notFound(e.URI)
	}
	return checkOpen(e.File, fd)
}

// ReadEntry is Content of e, read into buf when buf has room for it (the
// Window of a snapshot read before, released, say). It lets go of e.
func (v *FS) ReadEntry(ctx context.Context, e *Entry, buf []byte) (*Snapshot, error) {
	fd, info, err := e.open()
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return v.content(ctx, e.File, fd, info, buf)
}

// dirHandle is a directory's descriptor, held by a walk and by the
// entries it gave that are not yet read: closed when the last lets go.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

func (h *dirHandle) hold() *dirHandle {
	h.refs.Add(1)
	return h
}

func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		unix.Close(h.fd)
	}
}

// WalkFiles is Walk for reading every file: it gives fn each visible
// regular file under dir that keep accepts (keep nil: all) as an Entry,
// which fn must read or drop. An entry is opened from the descriptor of
// its directory, which the walk opened from the root one component at a
// time when it entered it, without following a symlink, and it must be
// the file the walk judged (the same device and inode). A symlink to a
// file is given as Walk gives it, under its own name (see Target), and
// opened by the path it resolved to, one component at a time from the
// root without following a symlink, and again it must be the file the
// walk judged. So every file read was inside its root when the walk
// entered its directory or resolved the symlink, and a symlink swapped in
// since leads nowhere.
func (v *FS) WalkFiles(ctx context.Context, dir string, skipped func(Skip), keep func(File) bool, fn func(*Entry, error) error) error {
	byPath := func(f File, err error) error {
		if err != nil {
			return fn(nil, err)
		}
		if keep != nil && !keep(f) {
			return nil
		}
		return fn(&Entry{File: f}, nil)
	}
	d, err := v.Resolve(dir)
	if err != nil {
		return err
	}
	if !d.IsDir() {
		return byPath(v.Regular(dir))
	}
	return v.walk(ctx, d, walkOptions{skipped: skipped, keep: keep, entry: func(f File, dir *dirHandle, name string) error {
		if dir == nil {
			t, inside := v.walkedAs(d, f)
			return fn(&Entry{File: f, target: t, inside: inside}, nil)
		}
		return fn(&Entry{File: f, dir: dir.hold(), name: name}, nil)
	}}, byPath)
}

// walkedAs is the file the symlink f, found in a walk of the directory d,
// leads to, named as that walk names what it finds by its own name; and
// whether the walk finds it by that name: inside d, and shown by the
// policy (f was resolved, so the file is no symlink and not ignored).
func (v *FS) walkedAs(d, f File) (File, bool) {
	if !inside(d.resolved, f.resolved) {
		return f.root.file(f.resolved, f.resolved, f.info), false
	}
	rel := f.resolved
	if d.resolved != "." {
		rel = strings.TrimPrefix(rel, d.resolved+"/")
	}
	if d.Rel != "." {
		rel = d.Rel + "/" + rel
	}
	return f.root.file(rel, f.resolved, f.info), v.visible(rel, f.resolved, false)
}

// inside reports whether the resolved path p lies inside the resolved
// directory dir.
func inside(dir, p string) bool {
	return dir == "." || strings.HasPrefix(p, dir+"/")
}

// ListOptions shape a List.
type ListOptions struct {
	// MaxDepth is how many levels below the directory to list: 1 for its
	// own entries only, 0 for all.
	MaxDepth int
	// After, a path relative to the directory's root, starts the listing
	// after that entry (in List's order), to resume a listing cut short.
	After string
	// Skipped, when not nil, is given each entry an ignore file excludes,
	// which the listing leaves out (a directory, not what it holds).
	Skipped func(Skip)
}

// List calls fn for every visible directory and regular file under the
// directory d, which is not listed itself: in lexical order component by
// component, each directory before what it holds. Hidden names are skipped
// without a word; symlinks to directories are not followed. An error from
// fn stops the listing and is returned. What the ignore files exclude is
// skipped too (and told to opt.Skipped), and so is a symlink to a file
// they exclude; d itself is listed, ignored or not.
func (v *FS) List(ctx context.Context, d File, opt ListOptions, fn func(File) error) error {
	if !d.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrInvalidPath, d.URI)
	}
	return v.walk(ctx, d, walkOptions{dirs: true, maxDepth: opt.MaxDepth, after: opt.After, skipped: opt.Skipped}, func(f File, err error) error {
		if err != nil {
			return nil
		}
		return fn(f)
	})
}

type walkOptions struct {
	dirs     bool       // report directories too
	maxDepth int        // 0: no limit
	after    string     // skip what comes before and at this Rel
	skipped  func(Skip) // told what the ignore files exclude
	// keep, when set, passes over the regular files it rejects: they
	// are given neither to fn nor to entry.
	keep func(File) bool
	// entry, when set, is given each regular file instead of fn: with
	// its directory and its name there, or with a nil directory when
	// the name is a symlink.
	entry func(f File, dir *dirHandle, name string) error
	start File // the directory walked
}

func (v *FS) walk(ctx context.Context, d File, o walkOptions, fn func(File, error) error) error {
	o.start = d
	return v.walkDir(ctx, d, strings.TrimSuffix(d.Path, "/"), 1, v.rulesAbove(d), &o, fn)
}

// dirWalk is one directory of a walk: what each of its entries is judged
// and named by.
type dirWalk struct {
	d      File       // the directory
	handle *dirHandle // open on it
	prefix string     // the name d's entries are given under: prefix/name
	depth  int        // 1 for the directory walked, 2 below it, and so on
	rules  ignoreRules
}

// walkDir walks the directory d; rules are the ignore rules of the
// directories above it.
func (v *FS) walkDir(ctx context.Context, d File, prefix string, depth int, rules ignoreRules, o *walkOptions, fn func(File, error) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir, err := d.root.open(d.resolved, dirFlags)
	if err != nil {
		return fn(File{}, notFound(d.URI))
	}
	handle := &dirHandle{fd: dir}
	handle.refs.Store(1)
	defer handle.release()
	rules = v.dirRules(dir, d.resolved, rules)
	names, err := v.shared.dirs.sortedNames(dir)
	if err != nil {
		return fn(File{}, fmt.Errorf("listing %s: %w", d.URI, err))
	}
	w := dirWalk{d: d, handle: handle, prefix: prefix, depth: depth, rules: rules}
	for i, name := range names[firstUnlisted(d, names, o.after):] {
		if i%256 == 255 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := v.walkName(ctx, &w, name, o, fn); err != nil {
			return err
		}
	}
	return nil
}

// firstUnlisted is the index of the first of the sorted names of the
// directory d that a listing resumed after the path after has not passed
// over yet (0 when after is empty). Names are sorted, and so are their
// paths (see comparePaths): those listed before are skipped at once.
func firstUnlisted(d File, names []string, after string) int {
	if after == "" {
		return 0
	}
	return sort.Search(len(names), func(i int) bool {
		_, listed := resumeAt(path.Join(d.Rel, names[i]), after)
		return !listed
	})
}

// resumeAt places rel, a path the walk comes to, against after, where a
// resumed listing starts (none when empty). listed: rel came before after,
// and so did what it holds, so the walk passes it over. report is false
// when rel itself was listed before (it is after, or holds it) but what it
// holds may not have been: the walk goes into it without reporting it.
func resumeAt(rel, after string) (report, listed bool) {
	switch {
	case after == "":
		return true, false
	case rel == after || strings.HasPrefix(after, rel+"/"):
		// Listed before; what it holds may not have been.
		return false, false
	case comparePaths(rel, after) < 0:
		return false, true
	}
	return true, false
}

// walkName walks the entry name of the directory w: it gives fn the file
// (or the error that hides it), or walks it when it is a directory, as the
// options o say; what the ignore rules exclude is passed over.
func (v *FS) walkName(ctx context.Context, w *dirWalk, name string, o *walkOptions, fn func(File, error) error) error {
	rel := name
	if w.d.Rel != "." {
		rel = w.d.Rel + "/" + name
	}
	report, listed := resumeAt(rel, o.after)
	if listed {
		return nil
	}
	abs := w.prefix + "/" + name
	f, err := v.entry(w.d, w.handle.fd, name, rel, abs)
	if err != nil {
		return fn(File{}, err)
	}
	resolved := path.Join(w.d.resolved, name)
	link := f.resolved != resolved
	if v.ignoredEntry(w, o, f, resolved, rel, link, report) {
		return nil
	}
	switch {
	case f.IsDir():
		if link {
			return nil // a symlink to a directory
		}
		return v.walkSubdir(ctx, w, f, abs, report, o, fn)
	case !report:
		return nil
	case f.info.Mode().IsRegular():
		return giveRegular(w, f, name, link, o, fn)
	}
	return fn(v.Regular(abs))
}

// ignoredEntry reports whether the ignore rules exclude the entry f of the
// directory w, whose resolved path is resolved when it is no symlink (link
// false): by that path, or, for a symlink to a file, by the path it leads
// to. An entry excluded is told to o.skipped, unless it was listed before
// (report false).
func (v *FS) ignoredEntry(w *dirWalk, o *walkOptions, f File, resolved, rel string, link, report bool) bool {
	by := w.rules.ignoredBy(resolved, f.IsDir())
	if by == nil && link && !f.IsDir() {
		by = v.ignoredTarget(o.start, f)
	}
	if by == nil {
		return false
	}
	if o.skipped != nil && report {
		o.skipped(by.skip(rel, f.IsDir()))
	}
	return true
}

// walkSubdir gives fn the directory f, found in the directory w as abs,
// when the walk reports directories and f was not listed before (report),
// and walks it unless w lies at the depth limit.
func (v *FS) walkSubdir(ctx context.Context, w *dirWalk, f File, abs string, report bool, o *walkOptions, fn func(File, error) error) error {
	if o.dirs && report {
		if err := fn(f, nil); err != nil {
			return err
		}
	}
	if o.maxDepth > 0 && w.depth >= o.maxDepth {
		return nil
	}
	return v.walkDir(ctx, f, abs, w.depth+1, w.rules, o, fn)
}

// giveRegular gives the regular file f, the entry name of the directory w
// (a symlink when link), to o.entry, with w's handle to open it from or
// with none for a symlink, or else to fn; unless o.keep rejects it.
func giveRegular(w *dirWalk, f File, name string, link bool, o *walkOptions, fn func(File, error) error) error {
	if o.keep != nil && !o.keep(f) {
		return nil
	}
	switch {
	case o.entry != nil && link:
		return o.entry(f, nil, name)
	case o.entry != nil:
		return o.entry(f, w.handle, name)
	}
	return fn(f, nil)
}

// entry resolves the entry name of the directory d, open as dir, to what
// Resolve(abs) gives: with one Lstat beside dir when it is no symlink,
// rather than one per component of its path.
func (v *FS) entry(d File, dir int, name, rel, abs string) (File, error) {
	info, err := statAt(dir, name)
	if err != nil {
		return File{}, notFound(abs)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return v.Resolve(abs)
	}
	resolved := path.Join(d.resolved, name)
	if !v.visibleEntry(rel, resolved, info.IsDir()) {
		return File{}, notFound(abs)
	}
	return d.root.file(rel, resolved, info), nil
}

// comparePaths orders slash paths component by component, the order of a
// walk: "a/b" before "a-c", since "a" comes before "a-c".
func comparePaths(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}
