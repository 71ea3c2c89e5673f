package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// errNotJSON: a line is not one JSON value.
var errNotJSON = errors.New("not JSON")

// invalidMessage is a JSON value that is no JSON-RPC message (or list of
// them); id is the message's id, when it has a valid one.
type invalidMessage struct {
	id  jsonrpc.ID
	why string
}

func (e *invalidMessage) Error() string { return "invalid JSON-RPC message: " + e.why }

// decodeLine reads a line as one message or a batch of them (isBatch).
// It reads the message as go-sdk's jsonrpc.DecodeMessage does (its keys
// exactly, a repeated key's last value, a numeric id made an integer),
// without decoding any value it passes on: params and result stay as
// they came. The error is errNotJSON or an *invalidMessage.
func decodeLine(line []byte) (msgs []jsonrpc.Message, isBatch bool, err error) {
	if !json.Valid(line) {
		return nil, false, errNotJSON
	}
	if line[0] != '[' {
		msg, err := decodeMessage(line)
		if err != nil {
			return nil, false, err
		}
		return []jsonrpc.Message{msg}, false, nil
	}
	items, err := jsonvalue.Elements(line)
	if err != nil {
		return nil, true, errNotJSON
	}
	if len(items) == 0 {
		return nil, true, &invalidMessage{why: "an empty batch"}
	}
	for _, item := range items {
		msg, err := decodeMessage(line[item.Start:item.End])
		if err != nil {
			return nil, true, err
		}
		msgs = append(msgs, msg)
	}
	return msgs, true, nil
}

// decodeMessage reads one JSON-RPC message (valid JSON).
func decodeMessage(raw []byte) (jsonrpc.Message, error) {
	if raw[0] != '{' {
		return nil, &invalidMessage{why: "not an object"}
	}
	members, err := jsonvalue.Elements(raw)
	if err != nil {
		return nil, errNotJSON
	}
	var (
		version, method, params, result, wireErr []byte
		id                                       jsonrpc.ID
		idErr                                    error
	)
	for _, m := range members {
		v := raw[m.Start:m.End]
		switch m.Key {
		case "jsonrpc":
			version = v
		case "id":
			id, idErr = decodeID(v)
		case "method":
			method = v
		case "params":
			params = v
		case "result":
			result = v
		case "error":
			wireErr = v
		}
	}
	if s, err := jsonString(version); err != nil || s != "2.0" {
		return nil, &invalidMessage{id: id, why: `no "jsonrpc":"2.0"`}
	}
	if idErr != nil {
		return nil, &invalidMessage{why: idErr.Error()}
	}
	if method != nil {
		name := ""
		if !bytes.Equal(method, []byte("null")) {
			if name, err = jsonString(method); err != nil {
				return nil, &invalidMessage{id: id, why: "a method that is not a string"}
			}
		}
		return &jsonrpc.Request{ID: id, Method: name, Params: nullable(params)}, nil
	}
	if !id.IsValid() {
		return nil, &invalidMessage{why: "neither a method nor an id"}
	}
	resp := &jsonrpc.Response{ID: id, Result: nullable(result)}
	if wireErr != nil && !bytes.Equal(wireErr, []byte("null")) {
		var e jsonrpc.Error
		if err := decodeError(wireErr, &e); err != nil {
			return nil, &invalidMessage{id: id, why: "an error that is not a JSON-RPC error object"}
		}
		resp.Error = &e
	}
	return resp, nil
}

// nullable is a member's value as go-sdk keeps it: absent, a JSON null
// as it came.
func nullable(v []byte) json.RawMessage {
	if v == nil {
		return nil
	}
	return json.RawMessage(v)
}

// decodeID reads an id as go-sdk does: a string, or a number made an
// integer; null is no id.
func decodeID(v []byte) (jsonrpc.ID, error) {
	switch v[0] {
	case 'n':
		return jsonrpc.ID{}, nil
	case '"':
		s, err := jsonString(v)
		if err != nil {
			return jsonrpc.ID{}, err
		}
		return jsonrpc.MakeID(s)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("an id out of range: %s", v)
		}
		return jsonrpc.MakeID(f)
	}
	return jsonrpc.ID{}, fmt.Errorf("an id of type %s", jsonvalue.TypeName(v))
}

// jsonString decodes the JSON string v.
func jsonString(v []byte) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", errors.New("not a string")
	}
	return jsonvalue.DecodeString(v)
}

// decodeError reads a JSON-RPC error object by its exact keys.
func decodeError(v []byte, e *jsonrpc.Error) error {
	if v[0] != '{' {
		return errors.New("not an object")
	}
	members, err := jsonvalue.Elements(v)
	if err != nil {
		return err
	}
	for _, m := range members {
		field := v[m.Start:m.End]
		switch m.Key {
		case "code":
			if err := json.Unmarshal(field, &e.Code); err != nil {
				return err
			}
		case "message":
			if err := json.Unmarshal(field, &e.Message); err != nil {
				return err
			}
		case "data":
			if !bytes.Equal(field, []byte("null")) {
				e.Data = json.RawMessage(field)
			}
		}
	}
	return nil
}
