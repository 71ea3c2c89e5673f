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

func main() {
	tools := flag.String("tools", `[{"name":"echo","inputSchema":{"type":"object"}}]`, "the tools array of tools/list, as JSON")
	answer := flag.Int("answer", 10, "bytes of text each call answers")
	deep := flag.Int("deep", 0, `answer instead {"pad":…,"a":{"pad":…,"a":…}} nested this deep, as JSON text`)
	flood := flag.Int("flood", 0, "tools/list_changed notifications to send once initialized")
	lists := flag.String("lists", "", "append a line to this file at each tools/list")
	spoof := flag.String("spoof", "", "on each call, send progress under the token this file holds, and under guessed ones")
	spoofFor := flag.Duration("spoof-for", time.Second, "how long a call spoofs progress")
	banner := flag.String("banner", "", "print this line on stdout before speaking MCP")
	pages := flag.Int("pages", 1, "answer tools/list with this many pages of the same tools")
	describe := flag.Int("describe", 0, "give each tool a description of this many bytes")
	progress := flag.Int("progress", 0, "send this many progress notifications (no total) before each call's answer, in the same write")
	pidFile := flag.String("pidfile", "", "append this process's pid, and its child's, to this file")
	child := flag.Bool("child", false, "start a child process (sleep) that lives as long as it is let")
	stubborn := flag.Bool("stubborn", false, "ignore SIGTERM and the end of stdin: only SIGKILL ends it")
	flag.Parse()
	if *stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if *describe > 0 {
		var list []map[string]any
		if err := json.Unmarshal([]byte(*tools), &list); err != nil {
			log.Fatal(err)
		}
		for _, t := range list {
			t["description"] = strings.Repeat("d", *describe)
		}
		b, _ := json.Marshal(list)
		*tools = string(b)
	}
	pids := []int{os.Getpid()}
	if *child {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			log.Fatal(err)
		}
		pids = append(pids, c.Process.Pid)
	}
	if *pidFile != "" {
		f, err := os.OpenFile(*pidFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		for _, pid := range pids {
			fmt.Fprintln(f, pid)
		}
		f.Close()
	}
	if *banner != "" {
		fmt.Println(*banner)
	}

	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	send := func(vs ...any) {
		mu.Lock()
		defer mu.Unlock()
		// As given: HTML characters in -tools go out raw.
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		for _, v := range vs {
			if err := enc.Encode(v); err != nil {
				log.Fatal(err)
			}
		}
		out.Flush()
	}
	notify := func(method string, params any) {
		send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			if *stubborn {
				time.Sleep(time.Hour)
			}
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		reply := func(result any) {
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		switch msg.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(msg.Params, &p)
			reply(map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo": map[string]any{"name": "rawmcp", "version": "1"}})
		case "notifications/initialized":
			go func() {
				for range *flood {
					notify("notifications/tools/list_changed", map[string]any{})
				}
			}()
		case "tools/list":
			if *lists != "" {
				f, _ := os.OpenFile(*lists, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				fmt.Fprintln(f, "list")
				f.Close()
			}
			var p struct {
				Cursor string `json:"cursor"`
			}
			json.Unmarshal(msg.Params, &p)
			page := 0
			fmt.Sscanf(p.Cursor, "p%d", &page)
			result := map[string]any{"tools": json.RawMessage(*tools)}
			if page+1 < *pages {
				result["nextCursor"] = fmt.Sprintf("p%d", page+1)
			}
			reply(result)
		case "tools/call":
			if taskRequired(*tools, msg.Params) {
				send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32600, "message": "this tool must be called as a task"}})
				continue
			}
			if *spoof != "" {
				spoofProgress(notify, *spoof, msg.Params, *spoofFor)
			}
			text := strings.Repeat("x", *answer)
			if *deep > 0 {
				text = nested(*deep)
			}
			answer := map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}}
			send(append(progressNotes(msg.Params, *progress), answer)...)
		case "ping":
			reply(map[string]any{})
		default:
			if len(msg.ID) > 0 {
				send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			}
		}
	}
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

// spoofProgress sends progress under the call's own token (which is
// honest while the call runs), then, for d, under the token the file at
// path holds (another server's) and under guessed tokens.
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
