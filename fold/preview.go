package fold

// Preview returns the JSON value d (valid JSON) with each list cut to its
// first items items and each string to its first chars characters. When
// members > 0, each object also keeps only its first members members. It
// reads no further into a list than the items it keeps.
func Preview(d []byte, items, chars, members int) any {
	d = trim(d)
	switch d[0] {
	case '"':
		s, _ := (&parser{data: d}).string()
		return cutString(s, chars)
	case '[':
		out := []any{}
		i := skipSpace(d, 1)
		for len(out) < items && i < len(d) && d[i] != ']' {
			end := skipValue(d, i)
			out = append(out, Preview(d[i:end], items, chars, members))
			i = skipSpace(d, end)
			if i < len(d) && d[i] == ',' {
				i = skipSpace(d, i+1)
			}
		}
		return out
	case '{':
		elems, _ := elements(d)
		n := len(elems)
		if members > 0 {
			n = min(n, members)
		}
		out := &Object{Keys: make([]string, n), Values: make([]any, n)}
		for i := range n {
			out.Keys[i] = elems[i].key
			out.Values[i] = Preview(d[elems[i].start:elems[i].end], items, chars, members)
		}
		return out
	}
	v, _ := Parse(d)
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
