package upstream

import (
	"testing"

	"github.com/folio-mcp/folio/internal/testmain"
	"github.com/folio-mcp/folio/internal/upstreamtest"
)

// TestMain builds fakemcp and rawmcp while the first tests run, in the
// temporary directory testmain runs the tests in and removes after.
func TestMain(m *testing.M) {
	testmain.Main(m, func() error {
		upstreamtest.Prebuild()
		return nil
	})
}
