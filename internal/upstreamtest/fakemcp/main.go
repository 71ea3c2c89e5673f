// Command fakemcp is a real go-sdk MCP server for folio's upstream tests:
// over stdio, or over Streamable HTTP with -http. Its tools (-tools) each
// answer with their name and arguments; -sleep holds it back before it
// serves, -burn keeps a core busy first, -hang makes it never answer, -mark records each start, -sleepfile
// makes a start slow without changing the command line; -rich gives its
// tools a title and annotations, -big offers big (an answer of that many
// bytes) and -die offers die (the process exits while the call is in
// flight).
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

// options are fakemcp's flags (see parseFlags).
type options struct {
	addr                       string
	sse, stateless             bool
	ttl                        time.Duration
	tools, version             string
	sleep, burn                time.Duration
	hang                       bool
	mark, sleepFile, toolsFile string
	callTools, dataTools       bool
	callLog, metaLog, failFile string
	cancelFile, tokenFile      string
	progressGap                time.Duration
	propagate, rich, die       bool
	big                        int
}

func main() {
	o := parseFlags()
	startUp(o)
	s := newServer(o)
	if o.addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	serveHTTP(s, o)
}

// parseFlags reads fakemcp's flags.
func parseFlags() options {
	var o options
	flag.StringVar(&o.addr, "http", "", "serve Streamable HTTP on this address (prints the URL on stdout); else stdio")
	flag.BoolVar(&o.sse, "sse", false, "with -http, serve the older HTTP+SSE transport instead")
	flag.DurationVar(&o.ttl, "ttl", -1, "the ttlMs of tools/list (the SDK's 0 when not given)")
	flag.BoolVar(&o.stateless, "stateless", false, "with -http, serve without sessions (and so speak 2026-07-28, which go-sdk serves only so)")
	flag.StringVar(&o.tools, "tools", "echo", "comma-separated tool names")
	flag.StringVar(&o.version, "version", "1.0.0", "server version")
	flag.DurationVar(&o.sleep, "sleep", 0, "wait this long before serving")
	flag.DurationVar(&o.burn, "burn", 0, "keep a core busy this long before serving (as a runtime booting does)")
	flag.BoolVar(&o.hang, "hang", false, "never answer")
	flag.StringVar(&o.mark, "mark", "", "append this process's pid to this file when it is ready to serve")
	flag.StringVar(&o.sleepFile, "sleepfile", "", "wait as long as this file says (a Go duration) before serving, when it exists")
	flag.StringVar(&o.toolsFile, "toolsfile", "", "offer the comma-separated tools this file names (in place of -tools), and follow its changes")
	flag.BoolVar(&o.callTools, "calltools", false, "offer progress (three progress notifications), block (waits for its cancellation) and confirm (two rounds of input_required) too")
	flag.BoolVar(&o.dataTools, "datatools", false, "offer series (a 240-row time series), ingest (takes data, an array, answers its rows and sum), log (long plain text), strict (an output schema a folded answer fails) and cite (its own doc_uri) too")
	flag.StringVar(&o.callLog, "calllog", "", "append each call's tool name to this file")
	flag.StringVar(&o.metaLog, "metalog", "", "append each call's params._meta, as JSON, to this file")
	flag.StringVar(&o.failFile, "failfile", "", "exit 1 at once, before serving, while this file exists")
	flag.StringVar(&o.cancelFile, "cancelfile", "", "the block tool writes to this file when its call is cancelled")
	flag.StringVar(&o.tokenFile, "tokenfile", "", "the progress tool writes the progress token it was given to this file")
	flag.DurationVar(&o.progressGap, "progressgap", 50*time.Millisecond, "the time between the progress tool's notifications")
	flag.BoolVar(&o.propagate, "propagate", false, "with -stateless, end a call's work when its POST ends (go-sdk's PropagateRequestCancellation: without it no client can cancel a call)")
	flag.BoolVar(&o.rich, "rich", false, "give each tool of -tools a title (its name in capitals) and annotations (read-only, open world)")
	flag.IntVar(&o.big, "big", 0, "offer big too, whose answer is a text of this many bytes")
	flag.BoolVar(&o.die, "die", false, "offer die too: its call makes this process exit before it answers")
	flag.Parse()
	return o
}

// startUp does what comes before serving: it fails while -failfile
// exists, hangs (-hang), sleeps (-sleep), keeps a core busy (-burn),
// sleeps as long as -sleepfile says, and records the pid (-mark).
func startUp(o options) {
	if _, err := os.Stat(o.failFile); o.failFile != "" && err == nil {
		log.Fatalf("%s exists: failing", o.failFile)
	}
	if o.hang {
		select {}
	}
	time.Sleep(o.sleep)
	for end := time.Now().Add(o.burn); time.Now().Before(end); {
	}
	if b, err := os.ReadFile(o.sleepFile); err == nil {
		d, err := time.ParseDuration(strings.TrimSpace(string(b)))
		if err != nil {
			log.Fatal(err)
		}
		time.Sleep(d)
	}
	if o.mark != "" {
		f, err := os.OpenFile(o.mark, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
}

// newServer is the server o describes: its tools/list ttl, its tools
// (those of -tools or of -toolsfile, followed), the call and data tools,
// and the logs of each call.
func newServer(o options) *mcp.Server {
	opts := &mcp.ServerOptions{}
	if o.ttl >= 0 {
		opts.SetCacheable = func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.GetParams().(*mcp.ListToolsParams); ok {
				c.TTLMs = int(o.ttl.Milliseconds())
			}
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fakemcp", Version: o.version}, opts)
	names := strings.Split(o.tools, ",")
	if o.toolsFile != "" {
		b, err := os.ReadFile(o.toolsFile)
		if err != nil {
			log.Fatal(err)
		}
		names = strings.Split(strings.TrimSpace(string(b)), ",")
		go follow(s, o.toolsFile, names)
	}
	setTools(s, nil, names, o.rich)
	addFaultTools(s, o.big, o.die)
	if o.callTools {
		addCallTools(s, o.cancelFile, o.tokenFile, o.progressGap)
	}
	if o.dataTools {
		addDataTools(s)
	}
	if o.callLog != "" || o.metaLog != "" {
		s.AddReceivingMiddleware(callLogger(o.callLog, o.metaLog))
	}
	return s
}

// callLogger is middleware that appends each call's tool name to the
// file callLog names, and its params._meta, as JSON, to metaLog's (either
// "" for none).
func callLogger(callLog, metaLog string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				appendLine(callLog, p.Name)
				meta, _ := json.Marshal(p.Meta)
				appendLine(metaLog, string(meta))
			}
			return next(ctx, method, req)
		}
	}
}

// appendLine appends line to the file at path, unless path is "".
func appendLine(path, line string) {
	if path == "" {
		return
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	fmt.Fprintln(f, line)
	f.Close()
}

// serveHTTP serves s at /mcp on -http's address, over Streamable HTTP (or
// HTTP+SSE, -sse), once it has printed the endpoint's URL.
func serveHTTP(s *mcp.Server, o options) {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	os.Stdout.Sync()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: o.stateless, PropagateRequestCancellation: o.propagate})
	if o.sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.Serve(ln, mux))
}

// addFaultTools offers big, whose answer is a text of big bytes (when big
// is above 0), and die, whose call makes the process exit before it
// answers (when die is set).
func addFaultTools(s *mcp.Server, big int, die bool) {
	if big > 0 {
		s.AddTool(&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("b", big)}}}, nil
		})
	}
	if die {
		s.AddTool(&mcp.Tool{Name: "die", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	}
}

// setTools offers names in place of was; rich gives each a title and
// annotations.
func setTools(s *mcp.Server, was, names []string, rich bool) {
	if len(was) > 0 {
		s.RemoveTools(was...)
	}
	for _, name := range names {
		tool := &mcp.Tool{
			Name:        name,
			Description: "Answers " + name + " and its arguments.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		}
		if rich {
			open := true
			tool.Title = strings.ToUpper(name)
			tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &open}
		}
		s.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
			setTools(s, strings.Split(last, ","), next, false)
			last = now
		}
	}
}

// addCallTools offers progress, which writes the caller's token to
// tokenFile (when given) and reports three steps under it, gap apart;
// confirm; and block, which waits for its call to be cancelled and then
// writes cancelFile.
func addCallTools(s *mcp.Server, cancelFile, tokenFile string, gap time.Duration) {
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tokenFile != "" {
			os.WriteFile(tokenFile, []byte(fmt.Sprint(req.Params.GetProgressToken())), 0o644)
		}
		for i := range 3 {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 3})
			time.Sleep(gap)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "confirm", Description: "Asks twice (input_required) before it answers.", InputSchema: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}}}`)}, confirm)
	s.AddTool(&mcp.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		if cancelFile != "" {
			os.WriteFile(cancelFile, []byte("cancelled\n"), 0o644)
		}
		return nil, ctx.Err()
	})
}

// confirm asks its client, in two rounds of input_required (SEP-2322), for
// "ok" and then "really", keeping nothing between the rounds but the
// requestState it gives (this process's pid, the round, the action); a
// round whose state is not the one it gave is refused; the action
// "ask-many" asks 17 things at once. It answers what was
// confirmed, by which process, with the client's answers.
func confirm(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct{ Action string }
	json.Unmarshal(req.Params.Arguments, &args)
	state := func(round int) string { return fmt.Sprintf("fakemcp/%d/%d/%s", os.Getpid(), round, args.Action) }
	ask := func(id, question string, round int) *mcp.CallToolResult {
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{id: &mcp.ElicitParams{Message: question + " " + args.Action, RequestedSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)}},
			RequestState:  state(round),
		}
	}
	answer := func(id string) string {
		r, _ := req.Params.InputResponses[id].(*mcp.ElicitResult)
		if r == nil || r.Action != "accept" {
			return ""
		}
		return fmt.Sprint(r.Content["answer"])
	}
	switch req.Params.RequestState {
	case "":
		if args.Action == "ask-many" {
			// Seventeen questions at once.
			many := ask("ok", "ok to", 1)
			for i := range 16 {
				many.InputRequests[fmt.Sprint("q", i)] = many.InputRequests["ok"]
			}
			return many, nil
		}
		return ask("ok", "ok to", 1), nil
	case state(1):
		if answer("ok") == "" {
			return ask("ok", "ok to", 1), nil
		}
		return ask("really", "really", 2), nil
	case state(2):
		if answer("really") == "" {
			return ask("really", "really", 2), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("confirmed %s by %d: %s", args.Action, os.Getpid(), answer("really"))}}}, nil
	}
	return nil, fmt.Errorf("requestState %q is not one this server gave", req.Params.RequestState)
}

// addDataTools offers the tools of the result-by-reference tests: series
// answers 240 rows {"t","v"} as JSON text; ingest takes data (an array of
// rows or numbers) and answers "rows N sum S" of their v (or values);
// log answers 40 KB of plain text; strict answers structuredContent under
// an output schema that admits only the whole answer; readtext answers
// 44 KB of text as servers on today's SDKs do (the text, and
// {"content": the text} under an output schema); cite, whose doc_uri
// is its own argument, answers its arguments as it got them.
func addDataTools(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "series", Description: "A time series of 240 rows.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: series()}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "ingest", Description: "Counts and sums the rows of data.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"data":{"type":"array"}},"required":["data"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Data []json.RawMessage }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			sum := 0.0
			for _, row := range args.Data {
				var r struct{ V float64 }
				if json.Unmarshal(row, &r) != nil {
					json.Unmarshal(row, &r.V)
				}
				sum += r.V
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("rows %d sum %g", len(args.Data), sum)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "readtext", Description: "A long text, as text and as structuredContent {content}.", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := strings.Repeat("a line of a long file\n", 2000)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"content": text}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "cite", Description: "Answers its arguments as it got them.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"doc_uri":{"type":"string"},"note":{"type":"string"}},"required":["doc_uri"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "log", Description: "A long log.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("a log line, not JSON\n", 2000)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "strict", Description: "A series under a strict output schema.", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"series":{"type":"array"}},"required":["series"],"additionalProperties":false}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(series())}, nil
		})
}

// series is {"series":[{"t":…,"v":…}, …]} of 240 rows.
func series() string {
	var b strings.Builder
	b.WriteString(`{"series":[`)
	for i := range 240 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"t":"2026-11-30T%02d:%02d:00Z","v":%d.5}`, i/60, i%60, i)
	}
	b.WriteString(`]}`)
	return b.String()
}
