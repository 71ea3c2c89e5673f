package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// meta is what the image says of itself.
type meta struct {
	name, version, revision string
	created                 time.Time
}

// variants are the architectures built, with their OCI platform variant.
var variants = map[string]string{"amd64": "", "arm64": "v8"}

// The non-root user the image runs as (distroless's nonroot).
const (
	uid  = 65532
	home = "/home/nonroot"
)

// file is one entry of a layer: a directory when data is nil.
type file struct {
	name  string
	mode  int64
	uid   int
	data  []byte
	isDir bool
}

// baseFiles is the base layer: the users, a home and /tmp to write to, the
// CA certificates (Go reads /etc/ssl/certs/ca-certificates.crt for HTTPS
// upstreams and OAuth servers) and the licence.
func baseFiles(license, ca []byte) []file {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		fmt.Sprintf("nonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", uid, uid, home)
	group := "root:x:0:\nnobody:x:65534:\n" + fmt.Sprintf("nonroot:x:%d:\n", uid)
	return []file{
		{name: "LICENSE", mode: 0o644, data: license},
		{name: "etc/", mode: 0o755, isDir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, isDir: true},
		{name: "etc/ssl/certs/", mode: 0o755, isDir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: ca},
		{name: "home/", mode: 0o755, isDir: true},
		{name: "home/nonroot/", mode: 0o700, uid: uid, isDir: true},
		{name: "tmp/", mode: 0o1777, isDir: true},
	}
}

// layer is files as a gzipped OCI layer, every time in it t.
func layer(files []file, t time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: t, Typeflag: tar.TypeReg, Size: int64(len(f.data)), Format: tar.FormatPAX}
		if f.isDir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestCompression), tarball.WithCompressedCaching)
}

// labels are the image's labels: the MCP Registry's name, and OCI's.
func labels(m meta) map[string]string {
	return map[string]string{
		"io.modelcontextprotocol.server.name":    "io.github.folio-mcp/folio",
		"org.opencontainers.image.title":         "folio",
		"org.opencontainers.image.description":   "folio serves files to LLM coding agents in exact, token-budgeted pages over MCP",
		"org.opencontainers.image.version":       m.version,
		"org.opencontainers.image.revision":      m.revision,
		"org.opencontainers.image.created":       m.created.Format(time.RFC3339),
		"org.opencontainers.image.source":        "https://github.com/folio-mcp/folio",
		"org.opencontainers.image.url":           "https://github.com/folio-mcp/folio",
		"org.opencontainers.image.documentation": "https://github.com/folio-mcp/folio#install",
		"org.opencontainers.image.licenses":      "MIT",
	}
}

// Cmd is what the image runs by default: Streamable HTTP on every
// address of the container (port publishing reaches no loopback inside
// it), so a tokens file is required, mounted or given as a secret at
// /run/secrets/folio-tokens; the folder to serve is mounted at /data.
var Cmd = []string{"serve", "--http", "0.0.0.0:8080", "--root", "/data", "--tokens", "/run/secrets/folio-tokens"}

// image is folio for arch: the base layer, then the binary's.
func image(m meta, base v1.Layer, arch, bin string) (v1.Image, error) {
	b, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	folio, err := layer([]file{{name: "folio", mode: 0o755, data: b}}, m.created)
	if err != nil {
		return nil, err
	}
	cfg := &v1.ConfigFile{
		Architecture: arch, OS: "linux", Variant: variants[arch],
		Created: v1.Time{Time: m.created},
		Config: v1.Config{
			User:         fmt.Sprintf("%d:%d", uid, uid),
			Entrypoint:   []string{"/folio"},
			Cmd:          Cmd,
			Env:          []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home},
			WorkingDir:   home,
			ExposedPorts: map[string]struct{}{"8080/tcp": {}},
			Labels:       labels(m),
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
	img, err := mutate.ConfigFile(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), cfg)
	if err != nil {
		return nil, err
	}
	when := v1.Time{Time: m.created}
	return mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: when, CreatedBy: "packaging/oci: users, /home/nonroot, /tmp, CA certificates, LICENSE"}},
		mutate.Addendum{Layer: folio, MediaType: types.OCILayer, History: v1.History{Created: when, CreatedBy: "packaging/oci: /folio " + m.version + " (linux/" + arch + ")"}},
	)
}

// buildIndex is the image index of folio for each architecture of bins.
func buildIndex(m meta, base []file, bins map[string]string) (v1.ImageIndex, error) {
	baseLayer, err := layer(base, m.created)
	if err != nil {
		return nil, err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range slices.Sorted(maps.Keys(bins)) {
		img, err := image(m, baseLayer, arch, bins[arch])
		if err != nil {
			return nil, fmt.Errorf("linux/%s: %w", arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: "linux", Architecture: arch, Variant: variants[arch]},
		}})
	}
	return idx, nil
}
