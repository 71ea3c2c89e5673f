package fsview

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sys/unix"

	"github.com/folio-mcp/folio/internal/fileuri"
	"github.com/folio-mcp/folio/toolerr"
)

// Errors, matched with errors.Is. A denied file, a path outside every root
// and a missing file all give ErrNotFound with the same message.
var (
	ErrNotFound    = toolerr.NewKind(toolerr.CodeNotFound, "no such file", "%v; check the path, or list the directory")
	ErrInvalidPath = toolerr.NewKind(toolerr.CodeInvalidArgument, "invalid path", "%v")
	ErrIsDir       = toolerr.NewKind(toolerr.CodeInvalidArgument, "is a directory", "%v")
	ErrNotRegular  = toolerr.NewKind(toolerr.CodeNotText, "not a regular file", "%v; only UTF-8 text files can be read")
	ErrNotText     = toolerr.NewKind(toolerr.CodeNotText, "not a text file", "%v; only UTF-8 text files can be read")
	ErrTooLarge    = toolerr.NewKind(toolerr.CodeTooLarge, "file too large", "%v")
)

// DefaultMaxFileBytes is the default size cap: 64 MiB.
const DefaultMaxFileBytes = 64 << 20

// Options is the visibility policy.
type Options struct {
	// Deny holds doublestar globs over slash paths relative to a root,
	// matched at any depth and without regard to case (see DefaultDeny). A
	// file that matches one, by the name asked for or by the name its
	// symlinks lead to, is treated as missing.
	Deny []string
	// MaxFileBytes caps the size of a file that may be read; 0 means no cap.
	MaxFileBytes int64
	// NoIgnore makes walks and listings show what .gitignore, .ignore and
	// .git/info/exclude exclude; by default they skip it, as git and
	// ripgrep do. A file is read by its name either way.
	NoIgnore bool
	// ReadMemory bounds the bytes of the windows that snapshots hold at
	// once, and of what callers Hold besides: the answers being written
	// (DefaultReadMemory when 0). A window larger than the bound waits
	// until it can hold the whole bound.
	ReadMemory int64
}

// DefaultReadMemory is the default read memory: 256 MiB.
const DefaultReadMemory = 256 << 20

// shared is what an FS and its views share: the room for snapshots'
// windows and the names of large directories.
type shared struct {
	gate       *semaphore.Weighted
	memorySize int64
	dirs       dirCache
	versions   *versionCache
	lines      *lineIndexes
}

// FS is a set of roots with one visibility policy. It is safe for
// concurrent use.
type FS struct {
	roots  []*root
	opt    Options
	deny   *denyList
	shared *shared
	// allow, when not nil, is the allow list of a Restrict view.
	allow []string
	// view: the roots belong to the FS this one restricts.
	view bool
	// maker, when not nil, makes the files Open serves beside the tree's.
	maker Maker
}

type root struct {
	path  string // absolute, symlinks resolved: the canonical prefix
	alias string // absolute as given, when it differs from path
	uri   string // fileuri.Of(path)
	fd    int    // the root directory, open
}

// Open opens the given root directories. The first one is where relative
// paths resolve.
func Open(roots []string, opt Options) (*FS, error) {
	if len(roots) == 0 {
		return nil, errors.New("at least one root is required")
	}
	deny, err := compileDeny(opt.Deny)
	if err != nil {
		return nil, err
	}
	if opt.ReadMemory <= 0 {
		opt.ReadMemory = DefaultReadMemory
	}
	v := &FS{opt: opt, deny: deny, shared: &shared{gate: semaphore.NewWeighted(opt.ReadMemory), memorySize: opt.ReadMemory, versions: newVersionCache(), lines: newLineIndexes()}}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			v.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			v.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		fd, err := openRootDir(real)
		if err != nil {
			v.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		rt := &root{path: real, uri: fileuri.Of(real), fd: fd}
		if abs != real {
			rt.alias = abs
		}
		v.roots = append(v.roots, rt)
	}
	return v, nil
}

// Restrict returns a view of the same roots and policy that also hides
// every file whose path relative to its root (by the name asked for and by
// the name its symlinks lead to) matches none of the doublestar globs in
// allow. A directory stays visible while some glob could match a path
// inside it; an empty list hides every file. The view shares v's roots:
// close v, not the view. The allow list replaces any that v has.
func (v *FS) Restrict(allow []string) (*FS, error) {
	for _, g := range allow {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("invalid allow glob %q", g)
		}
	}
	return &FS{roots: v.roots, opt: v.opt, deny: v.deny, shared: v.shared, allow: append([]string{}, allow...), view: true, maker: v.maker}, nil
}

// Roots returns the absolute paths of the roots, symlinks resolved, the
// first one first.
func (v *FS) Roots() []string {
	out := make([]string, len(v.roots))
	for i, r := range v.roots {
		out[i] = r.path
	}
	return out
}

// Name is f as a read takes it: its path relative to its root in the
// first root, which relative names resolve against, else its absolute
// path.
func (v *FS) Name(f File) string {
	if f.made != nil {
		return f.URI // a made file is named by its URI
	}
	if f.root == v.roots[0] {
		return f.Rel
	}
	return f.Path
}

// NameIn is the path rel of the root whose URI is rootURI as a read takes
// it, as Name gives it.
func (v *FS) NameIn(rootURI, rel string) string {
	for i, r := range v.roots {
		if r.uri == rootURI {
			if i == 0 {
				return rel
			}
			return path.Join(r.path, rel)
		}
	}
	return rel
}

// Close releases the roots. Closing a view does nothing.
func (v *FS) Close() error {
	if v.view {
		return nil
	}
	var errs []error
	for _, r := range v.roots {
		errs = append(errs, unix.Close(r.fd))
	}
	return errors.Join(errs...)
}

// File is a resolved, visible name inside a root.
type File struct {
	// URI is the canonical file:// URI of the name asked for.
	URI string
	// Path is its absolute path.
	Path string
	// Rel is the slash path relative to its root of the name asked for.
	Rel string

	root     *root
	resolved string    // Rel with every symlink resolved
	info     *statInfo // Lstat of resolved at resolution time
	made     []byte    // the text of a made file (see Open)
}

// IsDir reports whether the file is a directory.
func (f File) IsDir() bool { return f.info.IsDir() }

// RootURI is the URI of the root that holds the file.
func (f File) RootURI() string { return fileuri.Of(f.root.path) }

// Size is the file's size when it was resolved.
func (f File) Size() int64 { return f.info.Size() }

// RelTo is the slash path of f relative to the directory dir, which holds
// it: what a glob given with dir is matched against.
func (f File) RelTo(dir File) string {
	if dir.Rel == "." {
		return f.Rel
	}
	return strings.TrimPrefix(f.Rel, dir.Rel+"/")
}

// ModTime is the file's modification time when it was resolved.
func (f File) ModTime() time.Time { return f.info.ModTime() }

// Resolve turns a name (a path relative to the first root, an absolute path,
// or a file:// URI) into a visible file or directory inside a root.
func (v *FS) Resolve(name string) (File, error) {
	abs, err := v.absolute(name)
	if err != nil {
		return File{}, err
	}
	r, rel, ok := v.rootOf(abs)
	if !ok {
		return File{}, fmt.Errorf("%w: %q is outside the served roots (%s)", ErrNotFound, name, strings.Join(v.Roots(), ", "))
	}
	resolved, info, err := r.resolve(rel)
	if err != nil {
		return File{}, notFound(name)
	}
	if !v.visible(rel, resolved, info.IsDir()) {
		return File{}, notFound(name)
	}
	return r.file(rel, resolved, info), nil
}

// visible reports whether the policy shows a name, by the path asked for
// and by where its symlinks lead.
func (v *FS) visible(rel, resolved string, dir bool) bool {
	return !v.denied(rel) && !v.denied(resolved) && v.allowed(rel, dir) && v.allowed(resolved, dir)
}

// visibleEntry is visible of an entry of a directory the policy shows,
// by both its names: only what the entry's own name adds is matched.
func (v *FS) visibleEntry(rel, resolved string, dir bool) bool {
	if v.deny.matchLast(rel) || (resolved != rel && v.deny.matchLast(resolved)) {
		return false
	}
	return v.allowed(rel, dir) && (resolved == rel || v.allowed(resolved, dir))
}

// file is the File of rel in r, resolved to resolved with info.
func (r *root) file(rel, resolved string, info *statInfo) File {
	p := r.path
	if rel != "." {
		p = filepath.Join(r.path, filepath.FromSlash(rel))
	}
	return File{URI: fileuri.Of(p), Path: p, Rel: rel, root: r, resolved: resolved, info: info}
}

// Permits reports whether the policy lets name be seen, by its own path
// only: inside a root, and passing the deny and allow lists. It needs no
// file (a deleted file is still judged) and follows no symlink, so it is
// for telling whether a caller may hear of a name, not for reading it.
func (v *FS) Permits(name string) bool {
	abs, err := v.absolute(name)
	if err != nil {
		return false
	}
	_, rel, ok := v.rootOf(abs)
	return ok && !v.denied(rel) && v.allowed(rel, false)
}

// Regular resolves name and requires a regular file.
func (v *FS) Regular(name string) (File, error) {
	f, err := v.Resolve(name)
	if err != nil {
		return File{}, err
	}
	switch {
	case f.info.IsDir():
		return File{}, fmt.Errorf("%w: %s (list it, or read a file inside it)", ErrIsDir, f.URI)
	case !f.info.Mode().IsRegular():
		return File{}, fmt.Errorf("%w: %s", ErrNotRegular, f.URI)
	}
	return f, nil
}

func (v *FS) checkSize(uri string, size int64) error {
	if v.opt.MaxFileBytes > 0 && size > v.opt.MaxFileBytes {
		return fmt.Errorf("%w: %s is over the %d-byte cap", ErrTooLarge, uri, v.opt.MaxFileBytes)
	}
	return nil
}

func notFound(name string) error {
	return fmt.Errorf("%w: %q is not a visible file under the served roots", ErrNotFound, name)
}

// absolute turns a name into a clean absolute path, not yet checked
// against the roots.
func (v *FS) absolute(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: empty name", ErrInvalidPath)
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", fmt.Errorf("%w: the name holds a NUL byte", ErrInvalidPath)
	}
	if len(name) >= 5 && strings.EqualFold(name[:5], "file:") {
		p, err := fileuri.Path(name)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrInvalidPath, err)
		}
		name = p
	} else if !filepath.IsAbs(name) {
		name = filepath.Join(v.roots[0].path, name)
	}
	return filepath.Clean(name), nil
}

// rootOf finds the root holding abs and the slash path relative to it.
func (v *FS) rootOf(abs string) (*root, string, bool) {
	for _, r := range v.roots {
		for _, prefix := range []string{r.path, r.alias} {
			if prefix == "" {
				continue
			}
			if rel, ok := within(prefix, abs); ok {
				return r, rel, true
			}
		}
	}
	return nil, "", false
}

// within returns abs relative to dir as a slash path ("." for dir itself).
func within(dir, abs string) (string, bool) {
	if abs == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(abs, prefix) {
		return "", false
	}
	return filepath.ToSlash(abs[len(prefix):]), true
}

func (v *FS) denied(rel string) bool { return v.deny.match(rel) }

// allowed applies the allow list of a Restrict view to rel, a file's or a
// directory's path relative to its root.
func (v *FS) allowed(rel string, dir bool) bool {
	if v.allow == nil || rel == "." {
		return true
	}
	for _, g := range v.allow {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if dir && mayHoldMatch(g, rel) {
			return true
		}
	}
	return false
}

// mayHoldMatch reports whether the glob g could match a path inside the
// directory dir: each component of dir matches the glob's component at the
// same depth, until a "**" matches any rest. A glob with braces may hide a
// "/" inside them, so it is let through (its files are still checked one by
// one).
func mayHoldMatch(g, dir string) bool {
	if strings.ContainsRune(g, '{') {
		return true
	}
	gs, ds := strings.Split(g, "/"), strings.Split(dir, "/")
	for i, d := range ds {
		if i >= len(gs) {
			return false
		}
		if strings.Contains(gs[i], "**") {
			return true
		}
		if ok, _ := doublestar.Match(gs[i], d); !ok {
			return false
		}
	}
	return len(gs) > len(ds)
}

// Check reports whether every root is still served: its directory open,
// still there under its path, and readable. A root removed or replaced
// since folio opened it is an error naming it.
func (v *FS) Check() error {
	var errs []error
	for _, r := range v.roots {
		var open, now unix.Stat_t
		if err := unix.Fstat(r.fd, &open); err != nil {
			errs = append(errs, fmt.Errorf("root %s: %v", r.path, err))
			continue
		}
		if err := unix.Stat(r.path, &now); err != nil || open.Dev != now.Dev || open.Ino != now.Ino || open.Nlink == 0 {
			errs = append(errs, fmt.Errorf("root %s was removed or replaced since folio opened it: put it back, or restart folio to serve the new one", r.path))
			continue
		}
		if err := unix.Faccessat(r.fd, ".", unix.R_OK|unix.X_OK, 0); err != nil {
			errs = append(errs, fmt.Errorf("root %s: not readable: %v", r.path, err))
		}
	}
	return errors.Join(errs...)
}
