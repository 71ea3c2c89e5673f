package fold

import (
	"fmt"
	"strconv"
	"strings"
)

// parsePath splits a path into its segments. A path is a JSON pointer
// (/entries/2/path) or a dot path (entries.2.path, $.entries[2].path,
// $["a.b"]); "" and "$" name the whole value.
func parsePath(p string) ([]string, error) {
	if strings.HasPrefix(p, "/") {
		return parsePointer(p)
	}
	return parseDotPath(p)
}

func parsePointer(p string) ([]string, error) {
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 == len(s) || s[j+1] != '0' && s[j+1] != '1') {
				return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", p)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func parseDotPath(p string) ([]string, error) {
	bad := func(why string) ([]string, error) {
		return nil, fmt.Errorf("path %q: %s (write a dot path like entries.2.path or $.entries[2].path, or a JSON pointer like /entries/2/path)", p, why)
	}
	rest := strings.TrimPrefix(p, "$")
	segs := []string{}
	first := len(rest) == len(p) // no $: the first name has no dot
	for rest != "" {
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return bad("[ without ]")
			}
			if len(rest) > 1 && (rest[1] == '"' || rest[1] == '\'') {
				q := rest[1]
				// Find the closing quote, then the ] after it.
				close := strings.IndexByte(rest[2:], q)
				if close < 0 {
					return bad("unclosed quote")
				}
				name := rest[2 : 2+close]
				after := rest[2+close+1:]
				if !strings.HasPrefix(after, "]") {
					return bad("a quoted name must be followed by ]")
				}
				segs = append(segs, name)
				rest = after[1:]
			} else {
				inner := rest[1:end]
				if _, err := strconv.Atoi(inner); err != nil || inner == "" || inner[0] == '-' || inner[0] == '+' {
					return bad(fmt.Sprintf("[%s] is not an index; quote a name as [\"name\"]", inner))
				}
				segs = append(segs, inner)
				rest = rest[end+1:]
			}
		case rest[0] == '.' || first:
			if !first {
				rest = rest[1:]
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return bad("empty name")
			}
			segs = append(segs, rest[:end])
			rest = rest[end:]
		default:
			return bad(fmt.Sprintf("unexpected %q", rest[:1]))
		}
		first = false
	}
	return segs, nil
}

// pointer writes segments as a JSON pointer; the root is "/" here, for
// messages only.
func pointer(segs []string) string {
	if len(segs) == 0 {
		return "the root"
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		if b.Len() > 2*pointerShown {
			break
		}
	}
	if r := []rune(b.String()); len(r) > pointerShown {
		return string(r[:pointerShown]) + "…"
	}
	return b.String()
}

// pointerShown is the most characters of a place a message shows.
const pointerShown = 200

// keyList names an object's first keys, for a message.
func keyList(keys []string) string {
	const most = 20
	if len(keys) == 0 {
		return "none"
	}
	quoted := make([]string, 0, most)
	for _, k := range keys[:min(len(keys), most)] {
		quoted = append(quoted, strconv.Quote(k))
	}
	s := strings.Join(quoted, ", ")
	if len(keys) > most {
		s += fmt.Sprintf(" and %d more", len(keys)-most)
	}
	return s
}
