package fsview

import (
	"context"
	"path"
	"slices"
	"strings"
)

// Walk calls fn for every visible regular file under the directory dir (a
// name as Resolve takes it), in lexical order, with its File or with the
// error that hides it (ErrNotFound for a denied name or a symlink that
// leads out). Denied directories are not entered, and symlinks to
// directories are not followed. An error from fn stops the walk.
func (v *FS) Walk(ctx context.Context, dir string, fn func(File, error) error) error {
	d, err := v.Resolve(dir)
	if err != nil {
		return err
	}
	if !d.IsDir() {
		return fn(v.Regular(dir))
	}
	return v.walk(ctx, d, strings.TrimSuffix(d.Path, "/"), fn)
}

func (v *FS) walk(ctx context.Context, d File, prefix string, fn func(File, error) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h, err := d.root.dir.Open(d.resolved)
	if err != nil {
		return fn(File{}, notFound(d.URI))
	}
	entries, err := h.ReadDir(-1)
	h.Close()
	if err != nil {
		return fn(File{}, err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	slices.Sort(names)
	for _, name := range names {
		abs := prefix + "/" + name
		f, err := v.Resolve(abs)
		switch {
		case err != nil:
			if err := fn(File{}, err); err != nil {
				return err
			}
		case f.IsDir():
			if f.resolved != path.Join(d.resolved, name) {
				continue // a symlink to a directory
			}
			if err := v.walk(ctx, f, abs, fn); err != nil {
				return err
			}
		case f.info.Mode().IsRegular():
			if err := fn(f, nil); err != nil {
				return err
			}
		default:
			if err := fn(v.Regular(abs)); err != nil {
				return err
			}
		}
	}
	return nil
}
