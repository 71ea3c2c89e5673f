// Command oci writes folio's OCI image, for linux/amd64 and linux/arm64 in
// one image index, as an OCI image layout in a tar file (what podman load
// and skopeo copy oci-archive: take), without a container daemon and
// without a base image: each image is two layers made here, the base (the
// non-root user nonroot, 65532:65532, in /etc/passwd and /etc/group, its
// home, /tmp with mode 1777, the CA certificates given, LICENSE) and
// /folio. Every time in it is -created (the commit's), so that the same
// inputs give the same bytes. packaging/oci/build.sh runs it; it is a
// module of its own so that go-containerregistry stays out of folio's.
//
//	go run . -name ghcr.io/folio-mcp/folio -version 0.1.0 -revision SHA -created UNIX -license LICENSE \
//	    -ca ca-certificates.crt -out folio_0.1.0_oci.tar amd64=BIN arm64=BIN
package main

import (
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "packaging/oci:", err)
		os.Exit(1)
	}
}

// run parses the command line, reads the inputs and writes the archive.
func run(args []string) error {
	fs := flag.NewFlagSet("oci", flag.ContinueOnError)
	var m meta
	var created int64
	var license, ca, out string
	fs.StringVar(&m.version, "version", "", "the image's version (0.1.0): its label, and its tag in the archive")
	fs.StringVar(&m.name, "name", "", "the image's name in the archive, without the tag (ghcr.io/folio-mcp/folio)")
	fs.StringVar(&m.revision, "revision", "", "the commit it was built from")
	fs.Int64Var(&created, "created", 0, "Unix time of every file and of the image (the commit's)")
	fs.StringVar(&license, "license", "", "the LICENSE file")
	fs.StringVar(&ca, "ca", "", "the CA certificates bundle, installed as /etc/ssl/certs/ca-certificates.crt")
	fs.StringVar(&out, "out", "", "the archive to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if m.version == "" || m.name == "" || m.revision == "" || created <= 0 || license == "" || ca == "" || out == "" || fs.NArg() == 0 {
		return errors.New("usage: oci -name NAME -version V -revision SHA -created UNIX -license FILE -ca FILE -out FILE ARCH=BINARY...")
	}
	m.created = time.Unix(created, 0).UTC()
	bins := map[string]string{}
	for _, a := range fs.Args() {
		arch, path, ok := strings.Cut(a, "=")
		if _, known := variants[arch]; !ok || !known {
			return fmt.Errorf("%q: want amd64=BINARY or arm64=BINARY", a)
		}
		if err := checkELF(arch, path); err != nil {
			return err
		}
		bins[arch] = path
	}
	licenseText, err := os.ReadFile(license)
	if err != nil {
		return err
	}
	caText, err := os.ReadFile(ca)
	if err != nil {
		return err
	}
	idx, err := buildIndex(m, baseFiles(licenseText, caText), bins)
	if err != nil {
		return err
	}
	return writeArchive(idx, m, out)
}

// machines are the ELF machine of each architecture.
var machines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// checkELF says whether path is a Linux executable for arch that needs no
// C library: the image has none (build it with CGO_ENABLED=0).
func checkELF(arch, path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	if f.Machine != machines[arch] {
		return fmt.Errorf("%s is for %v, not linux/%s", path, f.Machine, arch)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is linked dynamically and the image has no C library: build it with CGO_ENABLED=0", path)
		}
	}
	return nil
}
