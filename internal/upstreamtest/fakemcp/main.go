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
	sse := flag.Bool("sse", false, "with -http, serve the older HTTP+SSE transport instead")
	tools := flag.String("tools", "echo", "comma-separated tool names")
	version := flag.String("version", "1.0.0", "server version")
	sleep := flag.Duration("sleep", 0, "wait this long before serving")
	hang := flag.Bool("hang", false, "never answer")
	mark := flag.String("mark", "", "append this process's pid to this file when it is ready to serve")
	sleepFile := flag.String("sleepfile", "", "wait as long as this file says (a Go duration) before serving, when it exists")
	toolsFile := flag.String("toolsfile", "", "offer the comma-separated tools this file names (in place of -tools), and follow its changes")
	callTools := flag.Bool("calltools", false, "offer progress (three progress notifications) and block (waits for its cancellation) too")
	cancelFile := flag.String("cancelfile", "", "the block tool writes to this file when its call is cancelled")
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
	names := strings.Split(*tools, ",")
	if *toolsFile != "" {
		b, err := os.ReadFile(*toolsFile)
		if err != nil {
			log.Fatal(err)
		}
		names = strings.Split(strings.TrimSpace(string(b)), ",")
		go follow(s, *toolsFile, names)
	}
	setTools(s, nil, names)
	if *callTools {
		addCallTools(s, *cancelFile)
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
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if *sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.Serve(ln, mux))
}

// setTools offers names in place of was.
func setTools(s *mcp.Server, was, names []string) {
	if len(was) > 0 {
		s.RemoveTools(was...)
	}
	for _, name := range names {
		s.AddTool(&mcp.Tool{
			Name:        name,
			Description: "Answers " + name + " and its arguments.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " " + string(req.Params.Arguments)}}}, nil
		})
	}
}

// follow offers the tools path names each time it changes.
func follow(s *mcp.Server, path string, names []string) {
	last := strings.Join(names, ",")
	for range time.Tick(50 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if now := strings.TrimSpace(string(b)); err == nil && now != last {
			next := strings.Split(now, ",")
			setTools(s, strings.Split(last, ","), next)
			last = now
		}
	}
}

// addCallTools offers progress, which reports three steps under the
// caller's token, 50 ms apart, and block, which waits for its call to be cancelled and
// then writes cancelFile.
func addCallTools(s *mcp.Server, cancelFile string) {
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := range 3 {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 3})
			time.Sleep(50 * time.Millisecond)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		if cancelFile != "" {
			os.WriteFile(cancelFile, []byte("cancelled\n"), 0o644)
		}
		return nil, ctx.Err()
	})
}
