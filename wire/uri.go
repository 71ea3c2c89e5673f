package wire

import "path/filepath"

// FileURI is the canonical file:// URI of a clean absolute path, as
// folio's answers name files: every byte but the unreserved characters
// and "/" percent-encoded, in upper-case hex.
func FileURI(abs string) string {
	const hex = "0123456789ABCDEF"
	p := filepath.ToSlash(abs)
	b := make([]byte, 0, len("file://")+len(p)+16)
	b = append(b, "file://"...)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&0xf])
	}
	return string(b)
}
