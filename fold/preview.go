package fold

// Preview returns v with each list cut to its first items items and each
// string to its first chars characters. When members > 0, each object also
// keeps only its first members members.
func Preview(v any, items, chars, members int) any {
	switch v := v.(type) {
	case string:
		return cutString(v, chars)
	case []any:
		n := min(len(v), items)
		out := make([]any, n)
		for i := range n {
			out[i] = Preview(v[i], items, chars, members)
		}
		return out
	case *Object:
		n := len(v.Keys)
		if members > 0 {
			n = min(n, members)
		}
		out := &Object{Keys: v.Keys[:n:n], Values: make([]any, n)}
		for i := range n {
			out.Values[i] = Preview(v.Values[i], items, chars, members)
		}
		return out
	}
	return v
}

// cutString returns the first n characters of s.
func cutString(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
