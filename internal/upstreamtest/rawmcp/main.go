// Command rawmcp is a hostile MCP server over stdio for folio's gateway
// tests: it speaks JSON-RPC by hand, so that it can send what no SDK
// would. It offers the tools -tools gives (a JSON array, sent as it is),
// and each call of any of them answers -answer bytes of text (or, with
// -deep, an object nested that deep). -flood sends
// that many tools/list_changed notifications once initialized; -lists
// appends a line to a file at each tools/list; -spoof makes each call send
// progress under the token another server wrote to a file, and under
// guessed tokens, for as long as -spoof-for. -banner prints a line that is
// not JSON-RPC first; -pages answers tools/list in that many pages, and
// -describe gives each tool a long description; -progress sends that
// many progress notifications (no total) before each call's answer, all
// in the answer's own write. A call of a tool whose
// execution.taskSupport is "required" that is not a task is refused, as
// server-everything refuses it. -child
// starts a child process, -stubborn ignores
// SIGTERM and the end of stdin, -pidfile records the pids.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// options are rawmcp's flags (see the package comment).
type options struct {
	tools                     string
	answer, deep, flood       int
	lists, spoof              string
	spoofFor                  time.Duration
	banner                    string
	pages, describe, progress int
	pidFile                   string
	child, stubborn           bool
}

func main() {
	o := parseFlags()
	if o.stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if o.describe > 0 {
		o.tools = describeTools(o.tools, o.describe)
	}
	recordPids(o.pidFile, startProcesses(o.child))
	if o.banner != "" {
		fmt.Println(o.banner)
	}
	s := &server{o: o, out: bufio.NewWriter(os.Stdout)}
	s.serve(bufio.NewReader(os.Stdin))
}

// parseFlags reads rawmcp's flags.
func parseFlags() options {
	var o options
	flag.StringVar(&o.tools, "tools", `[{"name":"echo","inputSchema":{"type":"object"}}]`, "the tools array of tools/list, as JSON")
	flag.IntVar(&o.answer, "answer", 10, "bytes of text each call answers")
	flag.IntVar(&o.deep, "deep", 0, `answer instead {"pad":…,"a":{"pad":…,"a":…}} nested this deep, as JSON text`)
	flag.IntVar(&o.flood, "flood", 0, "tools/list_changed notifications to send once initialized")
	flag.StringVar(&o.lists, "lists", "", "append a line to this file at each tools/list")
	flag.StringVar(&o.spoof, "spoof", "", "on each call, send progress under the token this file holds, and under guessed ones")
	flag.DurationVar(&o.spoofFor, "spoof-for", time.Second, "how long a call spoofs progress")
	flag.StringVar(&o.banner, "banner", "", "print this line on stdout before speaking MCP")
	flag.IntVar(&o.pages, "pages", 1, "answer tools/list with this many pages of the same tools")
	flag.IntVar(&o.describe, "describe", 0, "give each tool a description of this many bytes")
	flag.IntVar(&o.progress, "progress", 0, "send this many progress notifications (no total) before each call's answer, in the same write")
	flag.StringVar(&o.pidFile, "pidfile", "", "append this process's pid, and its child's, to this file")
	flag.BoolVar(&o.child, "child", false, "start a child process (sleep) that lives as long as it is let")
	flag.BoolVar(&o.stubborn, "stubborn", false, "ignore SIGTERM and the end of stdin: only SIGKILL ends it")
	flag.Parse()
	return o
}

// describeTools is the tools array with a description of n bytes given
// to each tool.
func describeTools(tools string, n int) string {
	var list []map[string]any
	if err := json.Unmarshal([]byte(tools), &list); err != nil {
		log.Fatal(err)
	}
	for _, t := range list {
		t["description"] = strings.Repeat("d", n)
	}
	b, _ := json.Marshal(list)
	return string(b)
}

// startProcesses starts the child (a sleep), when asked for, and gives
// the pids of this process and of the child.
func startProcesses(child bool) []int {
	pids := []int{os.Getpid()}
	if child {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			log.Fatal(err)
		}
		pids = append(pids, c.Process.Pid)
	}
	return pids
}

// recordPids appends pids to the file at path, one a line, unless path is
// "".
func recordPids(path string, pids []int) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	for _, pid := range pids {
		fmt.Fprintln(f, pid)
	}
	f.Close()
}

// server speaks JSON-RPC over stdio by hand: a message a line in, each
// answer or notification a line out, written whole under mu.
type server struct {
	o   options
	mu  sync.Mutex
	out *bufio.Writer
}

// message is a JSON-RPC request or notification as it comes in.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// serve answers the messages of in until it ends (or, stubborn, sleeps an
// hour first); a line that is not JSON is passed over.
func (s *server) serve(in *bufio.Reader) {
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			if s.o.stubborn {
				time.Sleep(time.Hour)
			}
			return
		}
		var msg message
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		s.handle(msg)
	}
}

// send writes vs, each as a JSON line, in one write.
func (s *server) send(vs ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// As given: HTML characters in -tools go out raw.
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			log.Fatal(err)
		}
	}
	s.out.Flush()
}

// notify sends a notification.
func (s *server) notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// reply sends the result of the request id.
func (s *server) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// replyError sends the error of the request id.
func (s *server) replyError(id json.RawMessage, code int, message string) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

// handle answers one message by its method; a request of a method it
// does not know is refused, a notification of one ignored.
func (s *server) handle(msg message) {
	switch msg.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(msg.Params, &p)
		s.reply(msg.ID, map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo": map[string]any{"name": "rawmcp", "version": "1"}})
	case "notifications/initialized":
		go func() {
			for range s.o.flood {
				s.notify("notifications/tools/list_changed", map[string]any{})
			}
		}()
	case "tools/list":
		s.listTools(msg)
	case "tools/call":
		s.callTool(msg)
	case "ping":
		s.reply(msg.ID, map[string]any{})
	default:
		if len(msg.ID) > 0 {
			s.replyError(msg.ID, -32601, "no such method")
		}
	}
}

// listTools answers tools/list: the tools, in as many pages as -pages
// says (cursors p1, p2…), each list noted in the -lists file.
func (s *server) listTools(msg message) {
	if s.o.lists != "" {
		f, _ := os.OpenFile(s.o.lists, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, "list")
		f.Close()
	}
	var p struct {
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(msg.Params, &p)
	page := 0
	fmt.Sscanf(p.Cursor, "p%d", &page)
	result := map[string]any{"tools": json.RawMessage(s.o.tools)}
	if page+1 < s.o.pages {
		result["nextCursor"] = fmt.Sprintf("p%d", page+1)
	}
	s.reply(msg.ID, result)
}

// callTool answers tools/call: a refusal of a tool that must be called as
// a task and is not; else, after any spoofed progress, the -progress
// notifications and the answer (-answer bytes, or -deep nesting) in one
// write.
func (s *server) callTool(msg message) {
	if taskRequired(s.o.tools, msg.Params) {
		s.replyError(msg.ID, -32600, "this tool must be called as a task")
		return
	}
	if s.o.spoof != "" {
		spoofProgress(s.notify, s.o.spoof, msg.Params, s.o.spoofFor)
	}
	text := strings.Repeat("x", s.o.answer)
	if s.o.deep > 0 {
		text = nested(s.o.deep)
	}
	answer := map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}}
	s.send(append(progressNotes(msg.Params, s.o.progress), answer)...)
}

// taskRequired reports whether the call params names a tool of tools whose
// execution.taskSupport is "required", and is not a task.
func taskRequired(tools string, params json.RawMessage) bool {
	var call struct {
		Name string          `json:"name"`
		Task json.RawMessage `json:"task"`
	}
	var list []struct {
		Name      string `json:"name"`
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	json.Unmarshal(params, &call)
	json.Unmarshal([]byte(tools), &list)
	for _, t := range list {
		if t.Name == call.Name && t.Execution.TaskSupport == "required" {
			return call.Task == nil
		}
	}
	return false
}

// nested is an object n deep: each level a pad of 50 bytes and "a", the
// next level; the last "a" is "bottom".
func nested(n int) string {
	var b strings.Builder
	pad := strings.Repeat("p", 50)
	for range n {
		b.WriteString(`{"pad":"` + pad + `","a":`)
	}
	b.WriteString(`"bottom"`)
	b.WriteString(strings.Repeat("}", n))
	return b.String()
}

// progressNotes are n progress notifications (1 to n, no total) under the
// progress token of the call params, if it has one.
func progressNotes(params json.RawMessage, n int) []any {
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	var out []any
	for i := 1; i <= n && p.Meta.ProgressToken != nil; i++ {
		out = append(out, map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": p.Meta.ProgressToken, "progress": i, "message": fmt.Sprint("step ", i)}})
	}
	return out
}

// spoofProgress sends progress under the call's own token (which is
// honest while the call runs), then, for d, under the token the file at
// path holds (another server's) and under guessed tokens.
func spoofProgress(notify func(string, any), path string, params json.RawMessage, d time.Duration) {
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	if p.Meta.ProgressToken != nil {
		notify("notifications/progress", map[string]any{"progressToken": p.Meta.ProgressToken, "progress": 1, "message": "own"})
	}
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(time.Millisecond) {
		tokens := []any{"folio-1", "folio-2", "folio-3", 1, 2}
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			tokens = append(tokens, strings.TrimSpace(string(b)))
		}
		for _, tok := range tokens {
			notify("notifications/progress", map[string]any{"progressToken": tok, "progress": 99, "total": 100, "message": "spoofed"})
		}
	}
}
