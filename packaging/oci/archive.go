package main

import (
	"archive/tar"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// refName is the annotation that names an image in an OCI layout: podman
// load names the image by it, skopeo's oci-archive:FILE:NAME selects it.
const refName = "org.opencontainers.image.ref.name"

// writeArchive writes idx as an OCI image layout, named m.name:m.version, into a
// tar file at out: its files in lexical order, owned by root, every mtime
// m.created. out is written whole or not at all.
func writeArchive(idx v1.ImageIndex, m meta, out string) error {
	dir, err := os.MkdirTemp("", "folio-oci-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refName: m.name + ":" + m.version})); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".folio-oci-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tarDir(tmp, dir, m); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// tarDir writes the files under dir to w as a tar, in lexical order.
func tarDir(w io.Writer, dir string, m meta) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: m.created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if d.IsDir() {
			h.Name, h.Mode, h.Typeflag = h.Name+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		return copyFile(tw, h, path)
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// copyFile writes h, with the size of the file at path, and its content.
func copyFile(tw *tar.Writer, h *tar.Header, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	h.Size = fi.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
