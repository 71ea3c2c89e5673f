// Package transporttest checks that folio's gateway reaches an upstream
// over one transport as well as over any other, as fold/storetest checks
// a handle store: upstream's tests run it for each transport folio speaks
// (see upstream's transports table). Each check starts fakemcp (a real
// go-sdk server, internal/upstreamtest) over the transport under test,
// in a real process, and talks to it through an upstream.Gateway.
//
// Adding a transport to folio is adding its row to upstream's transports
// table and its row to TestTransports (upstream/transports_test.go): a
// Start that serves fakemcp over it.
package transporttest
