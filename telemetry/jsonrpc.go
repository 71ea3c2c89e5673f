package telemetry

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	i := space(body, 0)
	if i >= len(body) || body[i] != '{' {
		return "", false
	}
	i++
	for {
		i = space(body, i)
		if i >= len(body) || body[i] != '"' {
			return "", false // "}" (no id), or not JSON
		}
		start := i + 1
		end, escaped := stringEnd(body, start)
		if end < 0 {
			return "", false
		}
		isID := !escaped && end-start == 2 && body[start] == 'i' && body[start+1] == 'd'
		if escaped {
			var key string
			isID = json.Unmarshal(body[start-1:end+1], &key) == nil && key == "id"
		}
		i = space(body, end+1)
		if i >= len(body) || body[i] != ':' {
			return "", false
		}
		i = space(body, i+1)
		if isID {
			return idValue(body, i)
		}
		if i = skipValue(body, i); i < 0 {
			return "", false
		}
		i = space(body, i)
		if i >= len(body) || body[i] != ',' {
			return "", false // "}" (no id), or not JSON
		}
		i++
	}
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
		end, escaped := stringEnd(body, i+1)
		if end < 0 {
			return "", false
		}
		if !escaped && utf8.Valid(body[i+1:end]) {
			return string(body[i+1 : end]), true
		}
		var s string
		if json.Unmarshal(body[i:end+1], &s) != nil {
			return "", false
		}
		return s, true
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

// space is the index of the first byte at or after i that is not JSON
// white space.
func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index of the quote that ends the string whose text
// starts at b[i], -1 when it does not end; escaped tells it holds an
// escape.
func stringEnd(b []byte, i int) (end int, escaped bool) {
	end = skipString(b, i)
	return end, end >= 0 && bytes.IndexByte(b[i:end], '\\') >= 0
}

// skipString is the index of the quote that ends the string whose text
// starts at b[i], -1 when it does not end.
func skipString(b []byte, i int) int {
	start := i
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		// The quote is escaped when an odd number of backslashes
		// precede it.
		n := 0
		for k := q - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// skipValue is the index just past the JSON value that starts at b[i],
// -1 when it does not end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		if end := skipString(b, i+1); end >= 0 {
			return end + 1
		}
		return -1
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i+1); i < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number, true, false or null: up to what ends it.
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
