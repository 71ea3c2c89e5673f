package mcpserver

import (
	"runtime"
	"sync"
	"weak"

	"github.com/folio-mcp/folio/upstream"
)

// catalogState is what folio derives from one catalog of upstream tools,
// for the sessions given that catalog: made when the catalog is first
// used, and dropped with it (see catalogStates), as a session's state is
// with the session. Each map is by a tool's upstream definition
// (upstream.Tool.Def), or by its definition as advertised.
type catalogState struct {
	// invited holds each tool as advertised (see advertised), and
	// definitions its JSON as offered, by the advertised tool (see
	// offered), for tools/list to write.
	invited, definitions sync.Map
	// schemas holds the checker of each tool's input schema (nil for one
	// folio cannot judge), outputs the compiled output schema it
	// advertises, referables the arguments that take references.
	schemas, outputs, referables sync.Map
	// unfoldable names the tools warned of once: their answers could not
	// fold.
	unfoldable sync.Map
	// search is search mode's state, made once (see searchFor).
	searchOnce sync.Once
	search     *searchState
}

// catalogStates holds the state of each catalog in use, by a weak pointer
// to the catalog: the gateway holds its current catalog and each session
// of the older era the one it was given, and once none does, the catalog
// is collected and its state dropped.
type catalogStates struct {
	mu sync.Mutex
	m  map[weak.Pointer[upstream.Catalog]]*catalogState
}

// stateOf is the state of catalog c, made on first use.
func (s *Server) stateOf(c *upstream.Catalog) *catalogState {
	all := &s.catalogs
	key := weak.Make(c)
	all.mu.Lock()
	defer all.mu.Unlock()
	if st, ok := all.m[key]; ok {
		return st
	}
	if all.m == nil {
		all.m = map[weak.Pointer[upstream.Catalog]]*catalogState{}
	}
	st := &catalogState{}
	all.m[key] = st
	runtime.AddCleanup(c, all.drop, key)
	return st
}

// drop forgets the state of the catalog key pointed to, now collected.
func (all *catalogStates) drop(key weak.Pointer[upstream.Catalog]) {
	all.mu.Lock()
	defer all.mu.Unlock()
	delete(all.m, key)
}
