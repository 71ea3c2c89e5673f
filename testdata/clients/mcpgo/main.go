// Command mcpgo drives folio with mark3labs/mcp-go's client, as a Go agent
// built on it would: it calls one tool n times in a row, each call with a
// progress token of its own (numbers and strings in turn), and prints, as
// one JSON object per call, the progress values that arrived before the
// call's answer, and after it (within a second of the last answer).
//
//	mcpgo -tool NAME -n N -stdio 'COMMAND ARG...'
//	mcpgo -tool NAME -n N -http URL
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// call is what one call saw.
type call struct {
	Token  any       `json:"token"`
	Before []float64 `json:"before"`
	After  []float64 `json:"after"`
	Text   string    `json:"text"`
}

func main() {
	stdio := flag.String("stdio", "", "the server's command line, split at spaces")
	url := flag.String("http", "", "the server's Streamable HTTP endpoint")
	tool := flag.String("tool", "", "the tool to call")
	n := flag.Int("n", 12, "calls")
	flag.Parse()
	var c *client.Client
	var err error
	if *url != "" {
		c, err = client.NewStreamableHttpClient(*url)
	} else {
		args := strings.Fields(*stdio)
		c, err = client.NewStdioMCPClient(args[0], os.Environ(), args[1:]...)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string][]float64{} // by token, as JSON
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		tok, _ := json.Marshal(n.Params.AdditionalFields["progressToken"])
		p, _ := n.Params.AdditionalFields["progress"].(float64)
		mu.Lock()
		seen[string(tok)] = append(seen[string(tok)], p)
		mu.Unlock()
	})
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo", Version: "1"}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		log.Fatal(err)
	}
	calls := make([]call, *n)
	for i := range calls {
		var token any = i + 1
		if i%2 == 1 {
			token = fmt.Sprintf("call-%d", i+1)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = *tool
		req.Params.Arguments = map[string]any{}
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			log.Fatalf("call %d: %v", i+1, err)
		}
		tok, _ := json.Marshal(token)
		mu.Lock()
		calls[i] = call{Token: token, Before: append([]float64{}, seen[string(tok)]...)}
		mu.Unlock()
		for _, content := range res.Content {
			if t, ok := content.(mcp.TextContent); ok {
				calls[i].Text += t.Text
			}
		}
	}
	time.Sleep(time.Second)
	out := json.NewEncoder(os.Stdout)
	mu.Lock()
	defer mu.Unlock()
	for _, cl := range calls {
		tok, _ := json.Marshal(cl.Token)
		cl.After = seen[string(tok)][len(cl.Before):]
		out.Encode(cl)
	}
}
