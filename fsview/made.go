package fsview

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/folio-mcp/folio/internal/fileuri"
)

// A Maker makes files a root does not hold (a served llms.txt): a view
// given one (see WithMaker) serves them to Open as files of the root.
type Maker interface {
	// Makes reports whether the maker makes a file named base in a root.
	Makes(base string) bool
	// Make is the text of the file base in root, as view shows the tree.
	Make(ctx context.Context, view *FS, root, base string) ([]byte, error)
}

// WithMaker returns a view of v that serves the files m makes to Open.
func (v *FS) WithMaker(m Maker) *FS {
	c := *v
	c.maker, c.view = m, true
	return &c
}

// Open is Regular of name, or the file the view's maker makes for it: a
// name of the maker's in a root, that the view permits, with no file of
// that name there (a real one wins).
func (v *FS) Open(ctx context.Context, name string) (File, error) {
	if f, ok, err := v.made(ctx, name); ok || err != nil {
		return f, err
	}
	return v.Regular(name)
}

// made is the made file name names, ok false when it names none.
func (v *FS) made(ctx context.Context, name string) (_ File, ok bool, _ error) {
	if v.maker == nil || name == "" {
		return File{}, false, nil
	}
	base := path.Base(filepath.ToSlash(name))
	if !v.maker.Makes(base) {
		return File{}, false, nil
	}
	dir := "."
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir = name[:max(i, 1)] // "/llms.txt": "/"
	}
	d, err := v.Resolve(dir)
	if err != nil || !d.IsDir() || d.Rel != "." {
		return File{}, false, nil
	}
	p := filepath.Join(d.Path, base)
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) || !v.Permits(p) {
		return File{}, false, nil
	}
	text, err := v.maker.Make(ctx, v, d.Path, base)
	if err != nil {
		return File{}, true, err
	}
	info := &statInfo{name: base}
	info.st.Mode, info.st.Size = unix.S_IFREG|0o444, int64(len(text))
	return File{URI: fileuri.Of(p), Path: p, Rel: base, root: d.root, resolved: base, info: info, made: text}, true, nil
}

// madeSnapshot is Snapshot of a made file: of its text in memory.
func madeSnapshot(f File, offset, window int64) (*Snapshot, error) {
	if err := CheckText(f.made, f.URI); err != nil {
		return nil, err
	}
	size := int64(len(f.made))
	if offset < 0 || offset > size {
		return nil, fmt.Errorf("%w: offset %d, size %d", ErrOffset, offset, size)
	}
	if window < 0 || window > size-offset {
		window = size - offset
	}
	return &Snapshot{File: f, Size: size, Version: VersionOf(f.made), Offset: offset, Window: f.made[offset : offset+window]}, nil
}
