package jsonvalue

// AppendString appends s as a JSON string, escaped as folio writes JSON
// (pages, folded answers, Marshal): quote, backslash and control
// characters escaped, everything else raw. s must be valid UTF-8.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, []byte(s))
	return append(b, '"')
}

// AppendEscaped appends s escaped for a JSON string: quote, backslash and
// control characters escaped, everything else raw UTF-8 (no HTML escaping).
func AppendEscaped(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	last := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[last:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		last = i + 1
	}
	return append(b, s[last:]...)
}
