package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskTools is a tools/list result with one tool of each kind of tasks.
const taskTools = `{"tools":[
	{"name":"plain","inputSchema":{"type":"object"}},
	{"name":"maybe","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},
	{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`

// serveTasks serves MCP over streamable HTTP by hand, as go-sdk's server
// cannot speak of tasks: tools/list is answered with result as JSON, or as
// an event stream (with CRLF line ends, cut across writes, when crlf).
func serveTasks(t *testing.T, stream, crlf bool, result string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &msg)
		w.Header().Set("Mcp-Session-Id", "s1")
		var res string
		switch msg.Method {
		case "initialize":
			res = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tasks","version":"1"}}`
		case "tools/list":
			res = result
		default:
			if msg.ID == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			// server/discover, of a later protocol.
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, msg.ID)
			return
		}
		out := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, strings.ReplaceAll(res, "\n", ""))
		if !stream || msg.Method != "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, out)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		end := "\n"
		if crlf {
			end = "\r\n"
		}
		event := ": a comment" + end + "event: message" + end + "data: " + out + end + end
		for i := 0; i < len(event); i += 7 {
			io.WriteString(w, event[i:min(i+7, len(event))])
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestTaskRequiredOverHTTP: what an upstream's tool list says of tasks is
// read off streamable HTTP, answered as JSON or as an event stream.
func TestTaskRequiredOverHTTP(t *testing.T) {
	for _, c := range []struct {
		name         string
		stream, crlf bool
	}{{"json", false, false}, {"stream", true, false}, {"stream with CRLF", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			url := serveTasks(t, c.stream, c.crlf, taskTools)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			e, err := Discover(ctx, Server{Name: "up", Transport: HTTP, URL: url}, "test")
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Tools) != 3 {
				t.Fatalf("%d tools", len(e.Tools))
			}
			c, problems := newCatalog([]Server{{Name: "up"}}, map[string]Entry{"up": e})
			var names []string
			for _, tool := range c.Tools {
				names = append(names, tool.Name)
			}
			if !slices.Equal(names, []string{"up__maybe", "up__plain"}) || len(problems["up"]) != 1 || !strings.Contains(problems["up"][0].Error(), "research") {
				t.Errorf("offered %v; problems %v", names, problems)
			}
			if maybe, _ := c.Lookup("up__maybe"); !strings.Contains(string(maybe.Raw), `"execution":{"taskSupport":"optional"}`) {
				t.Errorf("up__maybe is kept as %s", maybe.Raw)
			}
		})
	}
}

// TestWatchTools: the definitions of a tools/list answer are kept as
// they came, every field in its order (compact), those of the latest
// answer only, as often as they are asked for.
func TestWatchTools(t *testing.T) {
	w := &watch{}
	w.sawTools([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","required":["z"],"properties":{"z":{}}},"execution":{"taskSupport":"forbidden"},"x-new":[1, 2],"description":"a<b & c"},{"name":"b"}]}`))
	if got := string(w.definition("a")); got != `{"name":"a","inputSchema":{"type":"object","required":["z"],"properties":{"z":{}}},"execution":{"taskSupport":"forbidden"},"x-new":[1,2],"description":"a<b & c"}` {
		t.Errorf("a: %s", got)
	}
	if got := string(w.definition("a")); !strings.HasPrefix(got, `{"name":"a",`) {
		t.Errorf("a, asked again (by a discovery that overlapped): %s", got)
	}
	w.sawTools([]byte(`{"tools":[{"name":"c"}]}`))
	if w.definition("b") != nil || string(w.definition("c")) != `{"name":"c"}` {
		t.Error("the definitions of an earlier answer were kept")
	}
	if !taskRequired([]byte(`{"name":"r","execution":{"taskSupport":"required"}}`)) || taskRequired([]byte(`{"name":"o","execution":{"taskSupport":"optional"}}`)) {
		t.Error("taskRequired")
	}
}

// defs are the definitions of tools as go-sdk writes them.
func defs(tools ...*mcp.Tool) []json.RawMessage {
	var out []json.RawMessage
	for _, t := range tools {
		b, _ := json.Marshal(t)
		out = append(out, b)
	}
	return out
}

// TestWatchedConnSizes: a call's answer gives its size, as it came, to the
// call that asked; the requests of calls given up (cancelled, never
// answered) are forgotten, however many there are.
func TestWatchedConnSizes(t *testing.T) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	c, err := watchedTransport{ct, &watch{}}.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	server, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer server.Close()
	go func() {
		for {
			if _, err := server.Read(ctx); err != nil {
				return
			}
		}
	}()
	call := func(i int) *atomic.Int64 {
		size := new(atomic.Int64)
		id, _ := jsonrpc.MakeID(float64(i))
		if err := c.Write(context.WithValue(ctx, answerSizeKey{}, size), &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		return size
	}
	for i := range 1000 {
		call(i).Store(-1) // given up
	}
	if n := len(c.(*watchedConn).sizes); n > maxSizesKept {
		t.Errorf("%d requests given up are kept", n)
	}
	size := call(5000)
	id, _ := jsonrpc.MakeID(float64(5000))
	result := json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)
	go server.Write(ctx, &jsonrpc.Response{ID: id, Result: result})
	if _, err := c.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if size.Load() != int64(len(result)) {
		t.Errorf("size %d, the answer's result is %d bytes", size.Load(), len(result))
	}
}
