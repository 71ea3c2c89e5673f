package mcpserver

import (
	"testing"

	"github.com/folio-mcp/folio/toolerr"
	"github.com/folio-mcp/folio/wire"
)

// FuzzToolArguments: any arguments decode or fail as invalid_argument, and
// a decoded mix is either refused as invalid_argument or is one clear mode.
func FuzzToolArguments(f *testing.F) {
	f.Add([]byte(`{"uri":"a.md","max_tokens":2000}`))
	f.Add([]byte(`{"uris":["a","b"],"offset":1,"limit":2}`))
	f.Add([]byte(`{"uri":"a","cursor":"x","max_tokens":1e3}`))
	f.Add([]byte(`{"uri":"a","recursive":true,"max_depth":2,"glob":"**/*.go"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a wire.ReadArgs
		if e := decodeArgs(b, &a); e != nil {
			if e.Code != toolerr.CodeInvalidArgument {
				t.Fatalf("code %s", e.Code)
			}
		} else {
			paged, err := a.Paged()
			if err != nil {
				if toolerr.From(err).Code != toolerr.CodeInvalidArgument {
					t.Fatal(err)
				}
			} else if paged && (a.Offset != nil || a.Limit != nil || len(a.URIs) > 0 || *a.MaxTokens <= 0) {
				t.Fatalf("paged with line arguments: %s", b)
			}
		}
		var l wire.ListArgs
		if e := decodeArgs(b, &l); e != nil && e.Code != toolerr.CodeInvalidArgument {
			t.Fatalf("code %s", e.Code)
		}
	})
}
