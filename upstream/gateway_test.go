package upstream

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestUpstreamsAnswer: a call's error is the upstream's answer when it is
// a JSON-RPC error, even wrapped in go-sdk's rejection by the transport
// (as its streamable client wraps a 4xx with a JSON-RPC body), or the
// rejection of a passing status (429, 500, 502, 503, 504, written as
// go-sdk writes it); the rejection of a request that failed on the way
// (net/http's *url.Error, a cut exchange) and any other error are
// failures of the connection.
func TestUpstreamsAnswer(t *testing.T) {
	rejected := &jsonrpc.Error{Code: codeRejected, Message: "rejected by transport"}
	own := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such argument"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{own, true},
		{fmt.Errorf("calling %q: %w", "tools/call", own), true},
		{fmt.Errorf("sending %q: %w: %w: %v", "tools/call", own, rejected, "Bad Request"), true},
		{fmt.Errorf("sending %q: %w: %w", "tools/call", rejected, io.EOF), false},
		{fmt.Errorf("%w: %s: %v", rejected, "sending", "Internal Server Error"), true},
		{fmt.Errorf("%w: %s: %v", rejected, "sending", "Too Many Requests"), true},
		{fmt.Errorf("%w: %s: %v", rejected, "sending", "Service Unavailable"), true},
		{fmt.Errorf("%s: %w: %w", "sending", rejected, &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: errors.New("connection refused")}), false},
		{fmt.Errorf("%w: write to closed stream", rejected), false},
		{io.EOF, false},
		{errors.New("connection closed"), false},
	} {
		if got := upstreamsAnswer(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
