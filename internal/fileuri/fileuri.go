// Package fileuri is folio's file URI: the one form every answer names a
// file by (Of), and the file URIs a caller may name a file by (Path). The
// server's view of files (fsview) and its client (remote) both use it; it
// imports nothing of folio.
package fileuri

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Of is the canonical file:// URI of a clean absolute path, as
// folio's answers name files: every byte but the unreserved characters
// and "/" percent-encoded, in upper-case hex.
func Of(abs string) string {
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

// Path is the absolute path a file URI (RFC 8089) names: file:///p,
// file:/p or file://localhost/p, percent-encoded; an error for any other
// URI, or a path that holds a NUL byte.
func Path(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if u.Opaque != "" || u.User != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) ||
		u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || !strings.HasPrefix(u.Path, "/") {
		return "", fmt.Errorf("%q is not a local file URI (want file:///absolute/path)", s)
	}
	if strings.IndexByte(u.Path, 0) >= 0 {
		return "", fmt.Errorf("the name holds a NUL byte")
	}
	return u.Path, nil
}
