package jsonvalue

import "bytes"

// The skipper: folio's one reader of JSON that passes values without
// reading them. Scanner.Skip passes a kept answer's values with it, and
// telemetry reads a JSON-RPC message's id and method with it, off the
// wire, without decoding the message. None of it checks the JSON: a
// caller skips what is valid JSON, or what a decoder will refuse later.

// SkipSpace is the index of the first byte of b at or after i that is not
// JSON white space (len(b) when there is none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipString is the index just past the string whose opening quote is
// b[i], -1 when b ends before the string does. It passes the string's
// text a block at a time, from quote to quote.
func SkipString(b []byte, i int) int {
	start := i + 1
	for i = start; ; {
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
			return q + 1
		}
		i = q + 1
	}
}

// SkipValue is the index just past the JSON value that starts at b[i],
// -1 when b ends before a string, an array or an object does (a number,
// true, false or null ends where b does). It stays in bounds on any
// input.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = SkipString(b, i); i < 0 {
					return -1
				}
				continue
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
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

// StringText is the text between the quotes of the string whose opening
// quote is b[i], undecoded, and the index just past its closing quote;
// end is -1 when b ends before the string does. escaped tells that the
// text holds an escape: DecodeString reads the string then.
func StringText(b []byte, i int) (text []byte, end int, escaped bool) {
	end = SkipString(b, i)
	if end < 0 {
		return nil, -1, false
	}
	text = b[i+1 : end-1]
	return text, end, bytes.IndexByte(text, '\\') >= 0
}
