package mcpserver

import (
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/upstream"
)

// TestCatalogStates: a catalog's state is made once, on first use, is
// its own (another catalog's is another), and goes when the catalog is
// collected, with nothing else to drop it.
func TestCatalogStates(t *testing.T) {
	s := &Server{}
	held := &upstream.Catalog{}
	if a, b := s.stateOf(held), s.stateOf(held); a != b {
		t.Error("one catalog has two states")
	}
	for range 10 {
		gone := &upstream.Catalog{}
		s.stateOf(gone).invited.Store(&mcp.Tool{}, &mcp.Tool{})
		if s.stateOf(gone) == s.stateOf(held) {
			t.Error("two catalogs share a state")
		}
	}
	held2 := s.stateOf(held)
	// Cleanups run after a collection, on their own goroutine.
	for i := 0; i < 200 && heldStates(s) > 1; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := heldStates(s); n != 1 {
		t.Errorf("%d catalogs' states held, want the one still in use", n)
	}
	if s.stateOf(held) != held2 {
		t.Error("the state of the catalog still in use was dropped")
	}
	runtime.KeepAlive(held)
}

// heldStates is how many catalogs' states s holds.
func heldStates(s *Server) int {
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	return len(s.catalogs.m)
}
