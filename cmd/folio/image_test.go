package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/tokens"
)

// ociTargets are the platforms of folio's image (packaging/oci/build.sh).
var ociTargets = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}}

// ociImageName is the name packaging/oci/build.sh gives the image.
const ociImageName = "ghcr.io/folio-mcp/folio"

// ociDescriptor, ociIndex, ociManifest and ociConfig are what the test
// reads of an OCI image layout.
type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Variant      string `json:"variant"`
	} `json:"platform"`
}

type ociIndex struct {
	MediaType string          `json:"mediaType"`
	Manifests []ociDescriptor `json:"manifests"`
}

type ociManifest struct {
	MediaType string          `json:"mediaType"`
	Config    ociDescriptor   `json:"config"`
	Layers    []ociDescriptor `json:"layers"`
}

type ociConfig struct {
	Created      time.Time `json:"created"`
	Architecture string    `json:"architecture"`
	OS           string    `json:"os"`
	Variant      string    `json:"variant"`
	Config       struct {
		User         string
		Entrypoint   []string
		Cmd          []string
		Env          []string
		WorkingDir   string
		ExposedPorts map[string]struct{}
		Labels       map[string]string
	} `json:"config"`
	RootFS struct {
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// readOCIArchive is the files of an image layout's tar, each of whose
// entries must have the time created and owner root.
func readOCIArchive(t *testing.T, path string, created time.Time) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string][]byte{}
	for name, e := range readTar(t, f) {
		if !e.modTime.Equal(created) || e.uid != 0 {
			t.Errorf("%s in the archive: time %v, owner %d", name, e.modTime, e.uid)
		}
		files[name] = e.data
	}
	return files
}

// ociBlob is the blob d names, which must have its digest and size; v,
// when not nil, is its JSON decoded.
func ociBlob(t *testing.T, files map[string][]byte, d ociDescriptor, v any) []byte {
	t.Helper()
	b, ok := files["blobs/sha256/"+strings.TrimPrefix(d.Digest, "sha256:")]
	sum := sha256.Sum256(b)
	if !ok || "sha256:"+hex.EncodeToString(sum[:]) != d.Digest || int64(len(b)) != d.Size {
		t.Fatalf("blob %s (%d bytes): missing or not what its descriptor says", d.Digest, d.Size)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// unpackLayer writes a gzipped layer's files under dir, returning the
// digest of its tar (its diff_id) and its headers by name.
func unpackLayer(t *testing.T, layer []byte, dir string) (string, map[string]*tar.Header) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(layer))
	if err != nil {
		t.Fatal(err)
	}
	h256 := sha256.New()
	tr := tar.NewReader(io.TeeReader(gz, h256))
	headers := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		headers[h.Name] = h
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o700)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(path, b, 0o600)
			}
		default:
			t.Fatalf("%s: a tar entry of type %c", h.Name, h.Typeflag)
		}
		if err == nil {
			err = os.Chmod(path, h.FileInfo().Mode())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	io.Copy(io.Discard, tr)
	return "sha256:" + hex.EncodeToString(h256.Sum(nil)), headers
}

// checkOCIConfig: the image runs folio as nonroot, serving HTTP on 8080
// from /data to the tokens of /run/secrets/folio-tokens, and says what it
// is (the MCP Registry's label, OCI's).
func checkOCIConfig(t *testing.T, c ociConfig, arch, revision string, created time.Time) {
	t.Helper()
	variant := map[string]string{"arm64": "v8"}[arch]
	if c.OS != "linux" || c.Architecture != arch || c.Variant != variant || !c.Created.Equal(created) {
		t.Errorf("linux/%s: the config says %s/%s/%s, created %v", arch, c.OS, c.Architecture, c.Variant, c.Created)
	}
	cfg := c.Config
	wantCmd := []string{"serve", "--http", "0.0.0.0:8080", "--root", "/data", "--tokens", "/run/secrets/folio-tokens"}
	if cfg.User != "65532:65532" || !slices.Equal(cfg.Entrypoint, []string{"/folio"}) || !slices.Equal(cfg.Cmd, wantCmd) ||
		cfg.WorkingDir != "/home/nonroot" || !slices.Equal(slices.Collect(maps.Keys(cfg.ExposedPorts)), []string{"8080/tcp"}) ||
		!slices.Contains(cfg.Env, "HOME=/home/nonroot") {
		t.Errorf("linux/%s: config %+v", arch, cfg)
	}
	for name, want := range map[string]string{
		"io.modelcontextprotocol.server.name": "io.github.folio-mcp/folio",
		"org.opencontainers.image.version":    "0.1.0",
		"org.opencontainers.image.revision":   revision,
		"org.opencontainers.image.source":     "https://github.com/folio-mcp/folio",
		"org.opencontainers.image.licenses":   "MIT",
		"org.opencontainers.image.created":    created.Format(time.RFC3339),
	} {
		if got := cfg.Labels[name]; got != want {
			t.Errorf("linux/%s: label %s is %q, want %q", arch, name, got, want)
		}
	}
}

// checkOCIRoot: the root filesystem has the users, a home of nonroot's
// own, /tmp for anyone (sticky), the CA certificates, LICENSE, and /folio
// as built, every file with the build's time.
func checkOCIRoot(t *testing.T, arch, rootfs, bin string, headers map[string]*tar.Header, created time.Time) {
	t.Helper()
	for name, h := range headers {
		if !h.ModTime.Equal(created) {
			t.Errorf("linux/%s: %s has time %v", arch, name, h.ModTime)
		}
	}
	for name, want := range map[string]struct {
		mode os.FileMode
		uid  int
	}{
		"folio": {0o755, 0}, "tmp/": {0o777 | os.ModeSticky | os.ModeDir, 0}, "home/nonroot/": {0o700 | os.ModeDir, 65532},
		"etc/passwd": {0o644, 0}, "etc/ssl/certs/ca-certificates.crt": {0o644, 0}, "LICENSE": {0o644, 0},
	} {
		if h := headers[name]; h == nil || h.FileInfo().Mode() != want.mode || h.Uid != want.uid || h.Gid != want.uid {
			t.Errorf("linux/%s: %s is %+v, want mode %v owned by %d", arch, name, h, want.mode, want.uid)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(rootfs, name))
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	license, _ := os.ReadFile("../../LICENSE")
	built, _ := os.ReadFile(bin)
	if read("folio") != string(built) || read("LICENSE") != string(license) {
		t.Errorf("linux/%s: /folio or /LICENSE is not what was built", arch)
	}
	if !strings.Contains(read("etc/passwd"), "\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n") ||
		!strings.Contains(read("etc/group"), "\nnonroot:x:65532:\n") {
		t.Errorf("linux/%s: /etc/passwd and /etc/group do not name nonroot:\n%s%s", arch, read("etc/passwd"), read("etc/group"))
	}
	if n := strings.Count(read("etc/ssl/certs/ca-certificates.crt"), "-----BEGIN CERTIFICATE-----"); n < 100 {
		t.Errorf("linux/%s: %d CA certificates", arch, n)
	}
}

// ociTokens writes a tokens file with one token, as packaging/oci/README.md
// says (no folio needed), and returns its path.
func ociTokens(t *testing.T, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "folio-tokens.json")
	sum := sha256.Sum256([]byte(token))
	if hex.EncodeToString(sum[:]) != tokens.Hash(token) {
		t.Fatal("the README's token_sha256 is not what folio compares")
	}
	os.WriteFile(path, []byte(fmt.Sprintf(`{"tokens":[{"subject":"me","token_sha256":"%x"}]}`+"\n", sum)), 0o644)
	return path
}

// TestOCIImage: packaging/oci/build.sh makes, from folio built for
// linux/amd64 and linux/arm64, an OCI image layout tar that holds one
// index, named ghcr.io/folio-mcp/folio:0.1.0, of both platforms; every
// blob is what its digest says and every time in it SOURCE_DATE_EPOCH;
// each image's config runs /folio as 65532:65532 with the default command
// (serve on 0.0.0.0:8080, /data, the tokens file) and the labels; its
// layers unpack to the root filesystem it should have. This machine's
// image, unpacked, runs its entrypoint and command (paths and address
// moved into the test's folders and a loopback port) and a go-sdk client
// with the token reads a file from it over Streamable HTTP, byte for byte;
// without the token it gets 401. Then podman, if installed, loads the
// archive and runs the image for real (TestOCIImage/podman).
func TestOCIImage(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the image is for linux on amd64 or arm64")
	}
	t.Parallel()
	start := time.Now()
	bindir := targetBinaries(t, ociTargets, true)
	t.Logf("folio built in %v", time.Since(start).Round(time.Millisecond))
	out := t.TempDir()
	created := time.Unix(1700000000, 0).UTC()
	cmd := exec.Command("../../packaging/oci/build.sh", "v0.1.0", bindir, out)
	cmd.Env = testmain.Env(t, fmt.Sprintf("SOURCE_DATE_EPOCH=%d", created.Unix()))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	printed, err := cmd.Output()
	archive := filepath.Join(out, "folio_0.1.0_oci.tar")
	if err != nil || strings.TrimSpace(string(printed)) != archive {
		t.Fatalf("packaging/oci/build.sh: %v, printed %q\n%s", err, printed, stderr.String())
	}
	if fi, err := os.Stat(archive); err == nil {
		t.Logf("built the image in %v: %s, %d bytes", time.Since(start).Round(time.Millisecond), filepath.Base(archive), fi.Size())
	}
	revision, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	configs, roots := checkOCILayout(t, archive, bindir, strings.TrimSpace(string(revision)), created)
	runUnpacked(t, roots[runtime.GOARCH], configs[runtime.GOARCH])
	t.Run("podman", func(t *testing.T) { runPodman(t, archive) })
	t.Run("push", func(t *testing.T) { pushAsReleased(t, archive) })
}

// craneVersion is the crane the release workflow pushes the image with.
const craneVersion = "v0.22.1"

// pushAsReleased runs the release workflow's push of the image (its step's
// lines, from unpacking the archive to crane push, crane's login left out)
// against a registry on loopback (crane registry serve), and checks that
// the tag names the image index built and checked here, both platforms
// in it. crane is built from its Go module; without the module proxy the
// test is skipped, unless FOLIO_REQUIRE_PODMAN is set.
func pushAsReleased(t *testing.T, archive string) {
	gobin := t.TempDir()
	install := exec.Command("go", "install", "github.com/google/go-containerregistry/cmd/crane@"+craneVersion)
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		if os.Getenv("FOLIO_REQUIRE_PODMAN") == "" {
			t.Skipf("crane could not be built (FOLIO_REQUIRE_PODMAN makes this fail): %v\n%s", err, out)
		}
		t.Fatalf("building crane: %v\n%s", err, out)
	}
	crane := filepath.Join(gobin, "crane")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	registry := exec.Command(crane, "registry", "serve", "--address", addr)
	registry.Env = testmain.Env(t)
	if err := registry.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { registry.Process.Kill(); registry.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 100 {
			t.Fatalf("crane registry serve does not answer on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	workflow, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	_, step, _ := strings.Cut(string(workflow), "- name: The image to ghcr.io")
	var lines []string
	for _, line := range strings.Split(step, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "version="), strings.HasPrefix(line, "mkdir "), strings.HasPrefix(line, "tar "):
			lines = append(lines, line)
		case strings.HasPrefix(line, "crane push "):
			lines = append(lines, line)
			step = ""
		}
		if step == "" {
			break
		}
	}
	if len(lines) != 4 {
		t.Fatalf("the release workflow's image step: found %q", lines)
	}
	script := strings.ReplaceAll(strings.Join(lines, "\n"), "${{ steps.version.outputs.version }}", "0.1.0")
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "dist"), 0o755)
	if err := os.Symlink(archive, filepath.Join(work, "dist", filepath.Base(archive))); err != nil {
		t.Fatal(err)
	}
	image := addr + "/folio-mcp/folio"
	push := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	push.Dir = work
	push.Env = append(testmain.Env(t), "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"), "RUNNER_TEMP="+t.TempDir(), "IMAGE="+image)
	if out, err := push.CombinedOutput(); err != nil {
		t.Fatalf("the workflow's push: %v\n%s\n%s", err, out, script)
	}

	var layout struct {
		Manifests []struct{ Digest string } `json:"manifests"`
	}
	indexJSON, err := exec.Command("tar", "-xOf", archive, "index.json").Output()
	if err != nil || json.Unmarshal(indexJSON, &layout) != nil || len(layout.Manifests) != 1 {
		t.Fatalf("the archive's index.json: %v, %s", err, indexJSON)
	}
	digest, err := exec.Command(crane, "digest", image+":0.1.0").Output()
	if err != nil || strings.TrimSpace(string(digest)) != layout.Manifests[0].Digest {
		t.Errorf("the pushed tag is %s (%v), not the image index built, %s", digest, err, layout.Manifests[0].Digest)
	}
	manifest, err := exec.Command(crane, "manifest", image+":0.1.0").Output()
	var index struct {
		Manifests []struct {
			Platform struct{ OS, Architecture string }
		}
	}
	if err != nil || json.Unmarshal(manifest, &index) != nil || len(index.Manifests) != 2 ||
		index.Manifests[0].Platform.OS != "linux" || index.Manifests[1].Platform.OS != "linux" {
		t.Errorf("the pushed tag's manifest is not an index of the two linux images: %v\n%s", err, manifest)
	}
}

// checkOCILayout reads the archive (readOCIArchive and the checks of
// TestOCIImage), returning each platform's config and unpacked root.
func checkOCILayout(t *testing.T, archive, bindir, revision string, created time.Time) (map[string]ociConfig, map[string]string) {
	t.Helper()
	files := readOCIArchive(t, archive, created)
	var version struct{ ImageLayoutVersion string }
	if err := json.Unmarshal(files["oci-layout"], &version); err != nil || version.ImageLayoutVersion != "1.0.0" {
		t.Errorf("oci-layout: %v %q", err, files["oci-layout"])
	}
	var layout, index ociIndex
	if err := json.Unmarshal(files["index.json"], &layout); err != nil || len(layout.Manifests) != 1 {
		t.Fatalf("index.json: %v %s", err, files["index.json"])
	}
	top := layout.Manifests[0]
	if name := top.Annotations["org.opencontainers.image.ref.name"]; top.MediaType != "application/vnd.oci.image.index.v1+json" || name != ociImageName+":0.1.0" {
		t.Errorf("index.json names %s, a %s", name, top.MediaType)
	}
	ociBlob(t, files, top, &index)
	configs, roots := map[string]ociConfig{}, map[string]string{}
	var compressed int64
	for _, d := range index.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" || d.MediaType != "application/vnd.oci.image.manifest.v1+json" {
			t.Fatalf("the index holds %+v", d)
		}
		arch := d.Platform.Architecture
		var m ociManifest
		var c ociConfig
		ociBlob(t, files, d, &m)
		ociBlob(t, files, m.Config, &c)
		checkOCIConfig(t, c, arch, revision, created)
		if len(m.Layers) != 2 || len(c.RootFS.DiffIDs) != 2 {
			t.Fatalf("linux/%s: %d layers, %d diff_ids", arch, len(m.Layers), len(c.RootFS.DiffIDs))
		}
		rootfs, headers := t.TempDir(), map[string]*tar.Header{}
		for i, l := range m.Layers {
			compressed += l.Size
			diffID, h := unpackLayer(t, ociBlob(t, files, l, nil), rootfs)
			if l.MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" || diffID != c.RootFS.DiffIDs[i] {
				t.Errorf("linux/%s: layer %d is a %s of diff_id %s, the config says %s", arch, i, l.MediaType, diffID, c.RootFS.DiffIDs[i])
			}
			for name, hdr := range h {
				headers[name] = hdr
			}
		}
		checkOCIRoot(t, arch, rootfs, filepath.Join(bindir, "folio-linux-"+arch), headers, created)
		configs[arch], roots[arch] = c, rootfs
	}
	if len(configs) != 2 || configs["amd64"].OS == "" || configs["arm64"].OS == "" {
		t.Fatalf("the index has %d images, want linux/amd64 and linux/arm64", len(index.Manifests))
	}
	t.Logf("layers: %d bytes compressed (the base once per platform)", compressed)
	return configs, roots
}

// runUnpacked runs the image's entrypoint and command from its unpacked
// root, with its environment (HOME in that root), /data and the tokens
// file in the test's folders and the address on a loopback port, and
// reads a file through it with the token; the cursor key is made in the
// image's home.
func runUnpacked(t *testing.T, rootfs string, c ociConfig) {
	t.Helper()
	data := t.TempDir()
	text := strings.Repeat("served from the image, 中文 and 🙂, page by page\n", 300)
	write(t, data, "docs/a.md", text)
	token := "folio-image-test-token"
	moved := map[string]string{"0.0.0.0:8080": "127.0.0.1:0", "/data": data, "/run/secrets/folio-tokens": ociTokens(t, token)}
	var args []string
	for _, a := range append(c.Config.Entrypoint[1:], c.Config.Cmd...) {
		if m, ok := moved[a]; ok {
			delete(moved, a)
			a = m
		}
		args = append(args, a)
	}
	if len(moved) > 0 {
		t.Fatalf("the image's command %q lacks %v", c.Config.Cmd, moved)
	}
	var env []string
	for _, e := range c.Config.Env {
		if home, ok := strings.CutPrefix(e, "HOME="); ok {
			e = "HOME=" + filepath.Join(rootfs, home)
		}
		env = append(env, e)
	}
	cmd := exec.Command(filepath.Join(rootfs, c.Config.Entrypoint[0]), args...)
	cmd.Env, cmd.Dir = env, filepath.Join(rootfs, c.Config.WorkingDir)
	p, err := startCmd(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(t) })
	cs := dial(t, httpTransport(p.endpoint, token))
	if got := readAll(t, cs, "docs/a.md", 300); got != text {
		t.Errorf("read through the unpacked image: %d bytes, want %d", len(got), len(text))
	}
	res, err := http.Post(p.endpoint, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a token: %s", res.Status)
	}
	if _, err := os.Stat(filepath.Join(rootfs, "home", "nonroot", ".local", "state", "folio", "cursor.key")); err != nil {
		t.Errorf("the cursor key is not in the image's home: %v", err)
	}
}

// runPodman loads the archive into a podman store of the test's own and
// runs the image as its README says (the folder read-only at /data, the
// tokens file at /run/secrets/folio-tokens, the port published on
// loopback), with only the ulimits it can set here lowered; a go-sdk
// client reads a file through the published port, byte for byte.
// skopeo, its judge of the archive, must see the image's config. Without
// podman and skopeo it is skipped, unless FOLIO_REQUIRE_PODMAN is set.
func runPodman(t *testing.T, archive string) {
	podmanBin, err := exec.LookPath("podman")
	if err == nil {
		_, err = exec.LookPath("skopeo")
	}
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_PODMAN") == "" {
			t.Skipf("podman or skopeo is not installed (or set FOLIO_REQUIRE_PODMAN to fail): %v", err)
		}
		t.Fatalf("podman and skopeo are required (FOLIO_REQUIRE_PODMAN is set): %v", err)
	}
	ref := ociImageName + ":0.1.0"
	skopeo, err := exec.Command("skopeo", "inspect", "--config", "oci-archive:"+archive+":"+ref).Output()
	var c ociConfig
	if err != nil || json.Unmarshal(skopeo, &c) != nil || c.Config.User != "65532:65532" || c.Config.Labels["io.modelcontextprotocol.server.name"] != "io.github.folio-mcp/folio" {
		t.Errorf("skopeo inspect --config: %v\n%s", err, skopeo)
	}
	podman := podmanIn(t, podmanBin)
	if out, err := podman("load", "-i", archive); err != nil || !strings.Contains(out, "Loaded image: "+ref) {
		t.Fatalf("podman load: %v\n%s", err, out)
	}
	data := t.TempDir()
	os.Chmod(data, 0o755)
	text := strings.Repeat("served by podman, 中文 and 🙂\n", 300)
	write(t, data, "docs/a.md", text)
	token := "folio-podman-test-token"
	port := freeLoopbackPort(t)
	// slirp4netns: the port published without touching the host's
	// firewall, as rootless podman does.
	out, err := podman("run", "-d", "--network", "slirp4netns:port_handler=slirp4netns",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
		"-v", data+":/data:ro", "-v", ociTokens(t, token)+":/run/secrets/folio-tokens:ro",
		"-p", fmt.Sprintf("127.0.0.1:%d:8080", port), ref)
	if err != nil {
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	id := strings.TrimSpace(out)
	t.Cleanup(func() { podman("rm", "-f", "-t", "5", id) })
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var cs *mcp.ClientSession
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), httpTransport(endpoint, token), nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			logs, _ := podman("logs", id)
			t.Fatalf("the container did not answer at %s: %v\n%s", endpoint, err, logs)
		}
	}
	defer cs.Close()
	if got := readAll(t, cs, "docs/a.md", 300); got != text {
		t.Errorf("read through podman: %d bytes, want %d", len(got), len(text))
	}
	if user, err := podman("top", id, "user"); err != nil || !strings.Contains(user, "nonroot") {
		t.Errorf("podman top: %v\n%s", err, user)
	}
}

// podmanIn is podman with its store, run directory and temporary files
// in a folder of its own, removed after (vfs: no overlay mounts), events in a
// file, and runc when installed (crun refuses a machine with cgroups v1
// and v2 both mounted, as this one). What it loaded is removed after.
func podmanIn(t *testing.T, bin string) func(args ...string) (string, error) {
	// A short path: slirp4netns's socket under --tmpdir must be named in
	// fewer than 108 bytes.
	dir, err := os.MkdirTemp("", "podman")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	global := []string{"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"), "--tmpdir", filepath.Join(dir, "tmp"),
		"--storage-driver", "vfs", "--events-backend", "file", "--cgroup-manager", "cgroupfs"}
	if runc, err := exec.LookPath("runc"); err == nil {
		global = append(global, "--runtime", runc)
	}
	podman := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append(slices.Clone(global), args...)...)
		cmd.Env = testmain.Env(t)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { podman("rmi", "-a", "-f") })
	return podman
}
