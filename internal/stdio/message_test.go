package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzDecodeMessage holds decodeMessage to go-sdk's own decoder
// (jsonrpc.DecodeMessage, the judge): for any JSON object, both take it or
// both refuse it, and what both take is the same message: kind, id,
// method, params, result and error.
func FuzzDecodeMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":7.9,"error":{"code":-32601,"message":"no","data":[1]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`,
		`{"jsonrpc":"2.0","method":null,"id":null}`,
		`{"jsonrpc":"2.0","Method":"x","id":1}`,
		`{"jsonrpc":"2.0","method":"a","method":"b","id":1,"id":"2"}`,
		`{"jsonrpc":"2.0","meth\u006fd":"x","params":null}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e400,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":"bad"}`,
		`{"jsonrpc":"2.0","id":1,"error":null,"result":null}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":2,"id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":-0,"method":3}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimSpace(data)
		if !json.Valid(data) || len(data) == 0 || data[0] != '{' || !utf8.Valid(data) {
			return
		}
		want, wantErr := jsonrpc.DecodeMessage(data)
		got, err := decodeMessage(data)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: error %v, go-sdk's %v", data, err, wantErr)
		}
		if err != nil {
			var inv *invalidMessage
			if !errors.As(err, &inv) {
				t.Fatalf("%s: %v is no *invalidMessage", data, err)
			}
			return
		}
		if !sameMessage(got, want) {
			t.Fatalf("%s:\n got %#v\nwant %#v", data, got, want)
		}
	})
}

// sameMessage reports whether two decoded messages say the same.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameRaw(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || !sameRaw(a.Result, b.Result) || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		if a.Error == nil {
			return true
		}
		ae, be := a.Error.(*jsonrpc.Error), b.Error.(*jsonrpc.Error)
		return ae.Code == be.Code && ae.Message == be.Message && sameRaw(ae.Data, be.Data)
	}
	return false
}

// sameRaw compares raw values, a JSON null and nothing alike (go-sdk
// reads neither as a value).
func sameRaw(a, b json.RawMessage) bool {
	null := func(r json.RawMessage) bool { return len(r) == 0 || string(r) == "null" }
	if null(a) || null(b) {
		return null(a) && null(b)
	}
	return bytes.Equal(a, b)
}

// TestDecodeLine: a line is one message or a batch of them, read as
// go-sdk reads each; an empty batch, a batch with a bad member, a line
// that is not JSON are refused.
func TestDecodeLine(t *testing.T) {
	msgs, isBatch, err := decodeLine([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","method":"notifications/initialized"}]`))
	if err != nil || !isBatch || len(msgs) != 2 {
		t.Fatalf("%v %v %v", msgs, isBatch, err)
	}
	id1, _ := jsonrpc.MakeID(float64(1))
	if want := (&jsonrpc.Request{ID: id1, Method: "ping"}); !reflect.DeepEqual(msgs[0], want) {
		t.Errorf("%#v, want %#v", msgs[0], want)
	}
	for line, want := range map[string]string{
		`[]`: "invalid",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2}]`: "invalid",
		`[1]`:              "invalid",
		`{"jsonrpc":"2.0"`: "not JSON",
		`"hello"`:          "invalid",
	} {
		_, _, err := decodeLine([]byte(line))
		var inv *invalidMessage
		switch {
		case want == "invalid" && !errors.As(err, &inv):
			t.Errorf("%s: %v, want an invalid message", line, err)
		case want == "not JSON" && !errors.Is(err, errNotJSON):
			t.Errorf("%s: %v, want errNotJSON", line, err)
		}
	}
}
