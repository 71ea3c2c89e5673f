package upstream

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestUpstreamsAnswer: a call's error is the upstream's answer when it is
// a JSON-RPC error, even wrapped in go-sdk's rejection by the transport
// (as its streamable client wraps a 4xx with a JSON-RPC body); the
// rejection alone (a request that failed on the way) and any other error
// are failures of the connection.
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
		{fmt.Errorf("%w: %s: %v", rejected, "sending", "Internal Server Error"), false},
		{io.EOF, false},
		{errors.New("connection closed"), false},
	} {
		if got := upstreamsAnswer(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
