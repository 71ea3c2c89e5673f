package telemetry

import (
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/folio-mcp/folio/internal/jsonvalue"
)

// IDText is id as jsonrpc.request.id gives it: a string's value, a
// number's digits; empty for no id (a notification).
func IDText(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}

// RequestID is the id of the JSON-RPC message body (one object, as an
// HTTP request of MCP carries it) as its text: a string's value, a
// number as it is written. ok is false for a message without one (a
// notification; an id of null), for a batch (an array: JSON-RPC batches
// are of MCP before 2025-06-18), and for what is not a JSON object.
//
// It reads no more of the body than it must: the id given last (as the
// TypeScript SDK writes it) is read from the end, any other from the
// start, as far as the id, other members' strings skipped a block at a
// time. It checks no more of the JSON than it reads: the server that
// decodes the body refuses a broken one. Of a body that gives the id
// twice, which it gives is not said.
func RequestID(body []byte) (id string, ok bool) {
	if id, ok, last := lastID(body); last {
		return id, ok
	}
	i := jsonvalue.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return "", false
	}
	i++
	for {
		if i = jsonvalue.SkipSpace(body, i); i >= len(body) {
			return "", false
		}
		kind, start, _ := memberKey(body, i)
		switch {
		case start < 0:
			return "", false // "}" (no id), or not JSON
		case kind == idMember:
			return idValue(body, start)
		}
		if i = jsonvalue.SkipValue(body, start); i < 0 {
			return "", false
		}
		i = jsonvalue.SkipSpace(body, i)
		if i >= len(body) || body[i] != ',' {
			return "", false // "}" (no id), or not JSON
		}
		i++
	}
}

// memberKind is what readHead and RequestID make of an object member, by its key.
type memberKind int

const (
	otherMember    memberKind = iota
	idMember                  // "id"
	methodMember              // "method"
	responseMember            // "result" or "error": the message is a response
)

// kindOf is the kind of the member whose key, unescaped, is key.
func kindOf(key []byte) memberKind {
	switch string(key) {
	case "id":
		return idMember
	case "method":
		return methodMember
	case "result", "error":
		return responseMember
	}
	return otherMember
}

// memberKey reads the key of the object member at b[i] and the colon
// after it: the member's kind, and where its value starts; or a start of
// -1 when b cuts the member short (complete false) or it is not JSON.
func memberKey(b []byte, i int) (kind memberKind, start int, complete bool) {
	if b[i] != '"' {
		return otherMember, -1, true // not JSON
	}
	key, end, escaped := jsonvalue.StringText(b, i)
	if end < 0 {
		return otherMember, -1, false
	}
	if escaped {
		k, err := jsonvalue.DecodeString(b[i:end])
		if err != nil {
			return otherMember, -1, true
		}
		key = []byte(k)
	}
	if i = jsonvalue.SkipSpace(b, end); i >= len(b) {
		return otherMember, -1, false
	}
	if b[i] != ':' {
		return otherMember, -1, true
	}
	return kindOf(key), jsonvalue.SkipSpace(b, i+1), true
}

// lastID is the id of body when it is the object's last member (last),
// read backward from the end.
func lastID(body []byte) (id string, ok, last bool) {
	k := spaceBack(body, len(body))
	if k == 0 || body[k-1] != '}' {
		return "", false, false
	}
	end := spaceBack(body, k-1) // the end of the last value
	if end == 0 {
		return "", false, false
	}
	start := lastValueStart(body, end)
	if start < 0 || !idKeyBefore(body, start) {
		return "", false, false
	}
	id, ok = idValue(body[:end], start)
	return id, ok, true
}

// lastValueStart is where the value that ends at body[end-1] starts, read
// backward: a string's opening quote, a number's first byte; -1 for any
// other value, which no id is.
func lastValueStart(body []byte, end int) int {
	start := end - 1
	switch c := body[start]; {
	case c == '"':
		// Back to the quote that opens the string: the first one
		// before that no odd run of backslashes escapes.
		for start--; start >= 0; start-- {
			if body[start] == '"' && backslashes(body, start)%2 == 0 {
				break
			}
		}
		return start // -1 when there is none
	case '0' <= c && c <= '9':
		for start > 0 && isNumberByte(body[start-1]) {
			start--
		}
		return start
	}
	return -1
}

// idKeyBefore reports whether the value at body[start] is the value of a
// member "id", read backward: a colon, the key, and before it the comma
// or the brace that opens the member.
func idKeyBefore(body []byte, start int) bool {
	colon := spaceBack(body, start)
	if colon == 0 || body[colon-1] != ':' {
		return false
	}
	key := spaceBack(body, colon-1)
	if key < 4 || string(body[key-4:key]) != `"id"` || backslashes(body, key-4)%2 != 0 {
		return false
	}
	before := spaceBack(body, key-4)
	return before > 0 && (body[before-1] == ',' || body[before-1] == '{')
}

// spaceBack is the index just past the last byte before i that is not
// JSON white space.
func spaceBack(b []byte, i int) int {
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t' || b[i-1] == '\n' || b[i-1] == '\r') {
		i--
	}
	return i
}

// backslashes is how many backslashes come right before b[i].
func backslashes(b []byte, i int) int {
	n := 0
	for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n
}

// idValue is the id whose value starts at body[i]: a string's value or a
// number's text.
func idValue(body []byte, i int) (string, bool) {
	if i >= len(body) {
		return "", false
	}
	switch c := body[i]; {
	case c == '"':
		end := jsonvalue.SkipString(body, i)
		if end < 0 {
			return "", false
		}
		s, err := jsonvalue.DecodeString(body[i:end])
		return s, err == nil
	case c == '-' || '0' <= c && c <= '9':
		j := i + 1
		for j < len(body) && isNumberByte(body[j]) {
			j++
		}
		return string(body[i:j]), true
	}
	return "", false // null, or what no id is
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}
