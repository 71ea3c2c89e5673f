package remote

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoServerPackages: the client builds without the server's packages
// (the file view, cursors, the tokenizers, readers, search, folding, the
// gateway, the server itself): what it shares with them is the contract,
// package wire, and the page formats, package pager.
func TestNoServerPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	const module = "github.com/folio-mcp/folio/"
	for _, server := range []string{"fsview", "cursor", "pager/bpe", "tokencount", "reader", "search", "fold", "upstream", "mcpserver", "keyfile"} {
		for _, d := range deps {
			if d == module+server {
				t.Errorf("remote depends on %s", d)
			}
		}
	}
	if !strings.Contains(string(out), module+"wire\n") || !strings.Contains(string(out), module+"pager\n") {
		t.Errorf("go list -deps gives no wire or pager: is it this module?\n%s", out)
	}
}
