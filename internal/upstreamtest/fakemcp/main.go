// Command fakemcp is a real go-sdk MCP server for folio's upstream tests:
// over stdio, or over Streamable HTTP with -http. Its tools (-tools) each
// answer with their name and arguments; -sleep holds it back before it
// serves, -hang makes it never answer, -mark records each start, -sleepfile
// makes a start slow without changing the command line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (prints the URL on stdout); else stdio")
	tools := flag.String("tools", "echo", "comma-separated tool names")
	version := flag.String("version", "1.0.0", "server version")
	sleep := flag.Duration("sleep", 0, "wait this long before serving")
	hang := flag.Bool("hang", false, "never answer")
	mark := flag.String("mark", "", "append this process's pid to this file when it is ready to serve")
	sleepFile := flag.String("sleepfile", "", "wait as long as this file says (a Go duration) before serving, when it exists")
	flag.Parse()
	if *hang {
		select {}
	}
	time.Sleep(*sleep)
	if b, err := os.ReadFile(*sleepFile); err == nil {
		d, err := time.ParseDuration(strings.TrimSpace(string(b)))
		if err != nil {
			log.Fatal(err)
		}
		time.Sleep(d)
	}
	if *mark != "" {
		f, err := os.OpenFile(*mark, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fakemcp", Version: *version}, nil)
	for _, name := range strings.Split(*tools, ",") {
		s.AddTool(&mcp.Tool{
			Name:        name,
			Description: "Answers " + name + " and its arguments.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " " + string(req.Params.Arguments)}}}, nil
		})
	}
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	os.Stdout.Sync()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.Serve(ln, mux))
}
