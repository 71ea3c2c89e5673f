package fileuri

import "testing"

// TestOfAndPath: a path's URI percent-encodes all but the unreserved
// characters and "/", and Path reads the path back from it and from the
// other local forms; a URI of another host, a query or a NUL is refused.
func TestOfAndPath(t *testing.T) {
	for _, tc := range []struct{ path, uri string }{
		{"/srv/docs/a.md", "file:///srv/docs/a.md"},
		{"/a b/é#?%", "file:///a%20b/%C3%A9%23%3F%25"},
		{"/x/~_-.", "file:///x/~_-."},
	} {
		uri := Of(tc.path)
		if uri != tc.uri {
			t.Errorf("Of(%q) = %q, want %q", tc.path, uri, tc.uri)
		}
		if p, err := Path(uri); err != nil || p != tc.path {
			t.Errorf("Path(%q) = %q, %v, want %q", uri, p, err, tc.path)
		}
	}
	for _, tc := range []struct{ uri, path string }{
		{"file:/srv/a", "/srv/a"},
		{"file://localhost/srv/a", "/srv/a"},
	} {
		if p, err := Path(tc.uri); err != nil || p != tc.path {
			t.Errorf("Path(%q) = %q, %v, want %q", tc.uri, p, err, tc.path)
		}
	}
	for _, uri := range []string{"file://host/srv/a", "file:///srv/a?q", "file:///srv/a#f", "file:srv/a", "file:///a%00b", "file://u@localhost/a", "file:///%zz"} {
		if p, err := Path(uri); err == nil {
			t.Errorf("Path(%q) = %q, want an error", uri, p)
		}
	}
}
