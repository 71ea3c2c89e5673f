package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/folio-mcp/folio/reader"
	"github.com/folio-mcp/folio/toolerr"
)

// FuzzTokensFile: any bytes either fail to parse or give identities that
// survive a round trip through the file format.
func FuzzTokensFile(f *testing.F) {
	f.Add([]byte(`{"tokens":[{"subject":"alice","token_sha256":"` + HashToken("t") + `","allow":["docs/**"]}]}`))
	f.Add([]byte(`{"tokens":[]}`))
	f.Add([]byte(`{"tokens":[{"subject":"a","token_sha256":"00","allow":["[x"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		byHash, err := parseTokens(b)
		if err != nil {
			return
		}
		var tf tokenFile
		for h, id := range byHash {
			if !sha256RE.MatchString(h) || !subjectRE.MatchString(id.Subject) {
				t.Fatalf("accepted %q for %q", h, id.Subject)
			}
			tf.Tokens = append(tf.Tokens, tokenEntry{Subject: id.Subject, TokenSHA256: h, Allow: id.Allow})
		}
		out, _ := json.Marshal(tf)
		again, err := parseTokens(out)
		if err != nil || len(again) != len(byHash) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzToolArguments: any arguments decode or fail as invalid_argument, and
// a decoded mix is either refused as invalid_argument or is one clear mode.
func FuzzToolArguments(f *testing.F) {
	f.Add([]byte(`{"uri":"a.md","max_tokens":2000}`))
	f.Add([]byte(`{"uris":["a","b"],"offset":1,"limit":2}`))
	f.Add([]byte(`{"uri":"a","cursor":"x","max_tokens":1e3}`))
	f.Add([]byte(`{"uri":"a","recursive":true,"max_depth":2,"glob":"**/*.go"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a readArgs
		if e := decodeArgs(b, &a); e != nil {
			if e.Code != toolerr.CodeInvalidArgument {
				t.Fatalf("code %s", e.Code)
			}
		} else {
			args := reader.Args{URI: a.URI, URIs: a.URIs, Offset: a.Offset, Limit: a.Limit, MaxTokens: a.MaxTokens, Cursor: a.Cursor}
			paged, err := args.Paged()
			if err != nil {
				if reader.AsError(err).Code != toolerr.CodeInvalidArgument {
					t.Fatal(err)
				}
			} else if paged && (a.Offset != nil || a.Limit != nil || len(a.URIs) > 0 || *a.MaxTokens <= 0) {
				t.Fatalf("paged with line arguments: %s", b)
			}
		}
		var l listArgs
		if e := decodeArgs(b, &l); e != nil && e.Code != toolerr.CodeInvalidArgument {
			t.Fatalf("code %s", e.Code)
		}
	})
}
