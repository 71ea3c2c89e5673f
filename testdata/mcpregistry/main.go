// Command mcpregistry serves the official MCP Registry's own validation
// endpoint, POST /v0/validate (the registry's handler, from its module at
// the version go.mod pins), on a free loopback port, and prints its base
// URL. The publisher CLI's "validate" posts server.json to a registry's
// /v0/validate; folio's tests point it here, as the registry's schema and
// semantic checks without a database or the network.
//
// The module is named under the registry's path only so that Go lets it
// import the registry's internal packages, where that handler lives.
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	v0 "github.com/modelcontextprotocol/registry/internal/api/handlers/v0"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	api := humago.New(mux, huma.DefaultConfig("MCP Registry validation", "1.0.0"))
	v0.RegisterValidateEndpoint(api, "/v0")
	fmt.Println("http://" + ln.Addr().String())
	log.Fatal(http.Serve(ln, mux))
}
