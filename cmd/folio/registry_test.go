package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/internal/testmain"
)

// mcpPublisherVersion is the official MCP Registry's release whose
// publisher CLI and validation server.json is held to; testdata/mcpregistry
// requires the same.
const mcpPublisherVersion = "v1.8.14"

// serverEntry is what the tests read of a server.json.
type serverEntry struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Packages []struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Version      string `json:"version"`
		FileSha256   string `json:"fileSha256"`
	} `json:"packages"`
}

// readEntry reads the server.json at p.
func readEntry(t *testing.T, p string) serverEntry {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var e serverEntry
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return e
}

// registryTree copies what packaging/registry/server-json.sh reads
// (server.json, the script, packaging/npm/package.json) into a directory
// of the test's, with edit applied to each file's text, and returns the
// copy's script.
func registryTree(t *testing.T, edit func(name, text string) string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"server.json", "packaging/registry/server-json.sh", "packaging/npm/package.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, []byte(edit(name, string(data))), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "packaging", "registry", "server-json.sh")
}

// standInBundles writes a stand-in .mcpb of each platform, of version, into
// a new directory, and returns it.
func standInBundles(t *testing.T, version string, platforms ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range platforms {
		name := "folio_" + version + "_" + p + ".mcpb"
		if err := os.WriteFile(filepath.Join(dir, name), []byte("stand-in bundle "+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var bundlePlatforms = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"}

// needNode skips test t when node (which the script runs) is missing,
// unless FOLIO_REQUIRE_MCP_PUBLISHER is set.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("FOLIO_REQUIRE_MCP_PUBLISHER") == "" {
			t.Skip("node is not installed (FOLIO_REQUIRE_MCP_PUBLISHER makes this fail)")
		}
		t.Fatal(err)
	}
}

// TestServerJSON: the repository's server.json names the server as the npm
// wrapper's mcpName does and its package as the wrapper is named, and
// packaging/registry/server-json.sh makes the release's entry from it: the
// version everywhere, each bundle's fileSha256 the sha256 of its file
// (stand-in bundles here: the script reads only their names and bytes). It
// refuses a version that is not one, a bundle missing, a bundle of another
// version, and a server.json that disagrees with the npm package.
func TestServerJSON(t *testing.T) {
	t.Parallel()
	needNode(t)
	var npm struct{ Name, Version, MCPName string }
	data, err := os.ReadFile(filepath.Join("..", "..", "packaging", "npm", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &npm); err != nil {
		t.Fatal(err)
	}
	root := readEntry(t, filepath.Join("..", "..", "server.json"))
	if root.Name != npm.MCPName || root.Version != npm.Version {
		t.Errorf("server.json is %s %s, packaging/npm/package.json's mcpName and version %s %s", root.Name, root.Version, npm.MCPName, npm.Version)
	}

	const version = "0.3.1-rc.1"
	dist := standInBundles(t, version, bundlePlatforms...)
	script := registryTree(t, func(_, text string) string { return text })
	outdir := filepath.Join(t.TempDir(), "out")
	out, err := exec.Command(script, "v"+version, dist, outdir).Output()
	if err != nil {
		t.Fatalf("server-json.sh: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != filepath.Join(outdir, "server.json") {
		t.Errorf("server-json.sh printed %q", got)
	}
	e := readEntry(t, filepath.Join(outdir, "server.json"))
	if e.Name != root.Name || e.Version != version {
		t.Errorf("the release's entry is %s %s", e.Name, e.Version)
	}
	kinds := map[string]int{}
	for _, p := range e.Packages {
		kinds[p.RegistryType]++
		switch p.RegistryType {
		case "npm":
			if p.Identifier != npm.Name || p.Version != version {
				t.Errorf("npm package %s %s", p.Identifier, p.Version)
			}
		case "oci":
			if p.Identifier != "ghcr.io/folio-mcp/folio:"+version {
				t.Errorf("image %s", p.Identifier)
			}
		case "mcpb":
			name := path.Base(p.Identifier)
			if p.Identifier != "https://github.com/folio-mcp/folio/releases/download/v"+version+"/"+name {
				t.Errorf("bundle %s", p.Identifier)
			}
			file, err := os.ReadFile(filepath.Join(dist, name))
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(file); p.FileSha256 != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: fileSha256 %s, the file's %x", name, p.FileSha256, sum)
			}
		default:
			t.Errorf("a package of registry type %s", p.RegistryType)
		}
	}
	if kinds["npm"] != 1 || kinds["oci"] != 1 || kinds["mcpb"] != len(bundlePlatforms) {
		t.Errorf("packages by registry type: %v", kinds)
	}

	same := func(_, text string) string { return text }
	for _, tc := range []struct {
		name, version string
		bundles       string
		edit          func(name, text string) string
		code          int
		says          string
	}{
		{"not a version", "0.3", standInBundles(t, "0.3", bundlePlatforms...), same, 2, "0.3 is not a semantic version"},
		{"a bundle missing", version, standInBundles(t, version, bundlePlatforms[:3]...), same, 1, "folio_" + version + "_linux_arm64.mcpb: the entry lists the bundle"},
		{"a bundle of another version", version, func() string {
			d := standInBundles(t, version, bundlePlatforms...)
			os.WriteFile(filepath.Join(d, "folio_0.3.0_linux_amd64.mcpb"), []byte("old"), 0o644)
			return d
		}(), same, 1, "folio_0.3.0_linux_amd64.mcpb is not a bundle of " + version},
		{"another mcpName", version, standInBundles(t, version, bundlePlatforms...), func(name, text string) string {
			if name == "packaging/npm/package.json" {
				return strings.Replace(text, `"io.github.folio-mcp/folio"`, `"io.github.folio-mcp/other"`, 1)
			}
			return text
		}, 1, "mcpName is io.github.folio-mcp/other"},
		{"another npm package", version, standInBundles(t, version, bundlePlatforms...), func(name, text string) string {
			if name == "server.json" {
				return strings.Replace(text, `"@folio-mcp/folio"`, `"@folio-mcp/other"`, 1)
			}
			return text
		}, 1, "npm package is @folio-mcp/other"},
		{"an image without the version", version, standInBundles(t, version, bundlePlatforms...), func(name, text string) string {
			if name == "server.json" {
				return strings.Replace(text, "folio:0.0.0", "folio:latest", 1)
			}
			return text
		}, 1, "ghcr.io/folio-mcp/folio:latest does not carry the version"},
	} {
		cmd := exec.Command(registryTree(t, tc.edit), tc.version, tc.bundles, tc.bundles)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != tc.code || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("%s: %v, want exit %d saying %q: %s", tc.name, err, tc.code, tc.says, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(tc.bundles, "server.json")); err == nil {
			t.Errorf("%s: wrote server.json", tc.name)
		}
	}
}

// mcpValidator builds the official MCP Registry's publisher CLI (go
// install, at mcpPublisherVersion) and starts the registry's own
// validation endpoint on loopback (testdata/mcpregistry), and returns a
// function that runs "publisher validate" on a file against it. Without
// the module proxy the test is skipped, unless FOLIO_REQUIRE_MCP_PUBLISHER
// is set.
func mcpValidator(t *testing.T) func(file string) (string, error) {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mcpregistry", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), "github.com/modelcontextprotocol/registry "+mcpPublisherVersion+"\n") {
		t.Fatalf("testdata/mcpregistry/go.mod does not require the registry at %s:\n%s", mcpPublisherVersion, gomod)
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", "github.com/modelcontextprotocol/registry/cmd/publisher@"+mcpPublisherVersion)
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	out, err := install.CombinedOutput()
	var server string
	if err == nil {
		server, err = testmain.Build("mcpregistry", filepath.Join("..", "..", "testdata", "mcpregistry"), []string{"GOWORK=off", "GOFLAGS=-mod=readonly"})
	}
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_MCP_PUBLISHER") == "" {
			t.Skipf("the MCP Registry's publisher or validation could not be built (FOLIO_REQUIRE_MCP_PUBLISHER makes this fail): %v\n%s", err, out)
		}
		t.Fatalf("building the MCP Registry's publisher and validation: %v\n%s", err, out)
	}
	srv := exec.Command(server)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("testdata/mcpregistry printed no address: %v", err)
	}
	// The publisher reads the registry's URL from its token file.
	home := t.TempDir()
	config := filepath.Join(home, ".config", "mcp-publisher")
	os.MkdirAll(config, 0o700)
	token, _ := json.Marshal(map[string]string{"registry": strings.TrimSpace(url)})
	if err := os.WriteFile(filepath.Join(config, "token.json"), token, 0o600); err != nil {
		t.Fatal(err)
	}
	return func(file string) (string, error) {
		cmd := exec.Command(filepath.Join(gobin, "publisher"), "validate", file)
		cmd.Env = testmain.Env(t, "HOME="+home)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// TestServerJSONValidates: the repository's server.json and the release's
// one (packaging/registry/server-json.sh, from stand-in bundles) pass the
// official MCP Registry's validation (its JSON schema of the current
// $schema and its semantic checks) as its publisher CLI's validate reports
// it, with no warning; entries broken in ways the registry refuses fail it.
func TestServerJSONValidates(t *testing.T) {
	t.Parallel()
	needNode(t)
	validate := mcpValidator(t)
	const version = "0.3.1"
	dist := standInBundles(t, version, bundlePlatforms...)
	if out, err := exec.Command(filepath.Join("..", "..", "packaging", "registry", "server-json.sh"), version, dist, dist).CombinedOutput(); err != nil {
		t.Fatalf("server-json.sh: %v\n%s", err, out)
	}
	for _, file := range []string{filepath.Join("..", "..", "server.json"), filepath.Join(dist, "server.json")} {
		out, err := validate(file)
		if err != nil || !strings.Contains(out, "✅ server.json is valid") || strings.Contains(out, "⚠") {
			t.Errorf("publisher validate %s: %v\n%s", file, err, out)
		}
	}
	root, err := os.ReadFile(filepath.Join(dist, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"a bundle's fileSha256 not a sha256", `"fileSha256": "`, `"fileSha256": "x`},
		{"a version range", `"version": "0.3.1"`, `"version": "^0.3.1"`},
		{"a name without a namespace", `"name": "io.github.folio-mcp/folio"`, `"name": "folio"`},
		{"a description past 100 characters", `"description": "`, `"description": "` + strings.Repeat("long ", 20)},
		{"no $schema", `"$schema"`, `"schema"`},
	} {
		broken := strings.Replace(string(root), tc.old, tc.new, 1)
		if broken == string(root) {
			t.Fatalf("%s: %q is not in the release's server.json", tc.name, tc.old)
		}
		file := filepath.Join(t.TempDir(), "server.json")
		os.WriteFile(file, []byte(broken), 0o644)
		if out, err := validate(file); err == nil || strings.Contains(out, "✅") {
			t.Errorf("%s: publisher validate passed it:\n%s", tc.name, out)
		}
	}
}
