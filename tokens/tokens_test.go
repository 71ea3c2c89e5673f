package tokens

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTokensFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	tok, err := Add(path, "alice", []string{"docs/**"}, []string{"read", "gh__*"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), tok) || !strings.Contains(string(b), Hash(tok)) {
		t.Fatalf("the file holds %s", b)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode())
	}
	tk, err := Open(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := tk.Lookup(Hash(tok))
	if !ok || id.Subject != "alice" || id.Allow[0] != "docs/**" {
		t.Fatalf("lookup: %v %v", id, ok)
	}
	for name, want := range map[string]bool{"read": true, "gh__search": true, "grep": false, "ghx__a": false} {
		if id.MayUse(name) != want {
			t.Errorf("MayUse(%s) = %v", name, !want)
		}
	}
	if !(Identity{}).MayUse("anything") {
		t.Error("no tools list should allow every tool")
	}
	if _, err := Add(path, "bob", nil, []string{"[bad"}); err == nil {
		t.Error("a bad tools glob was taken")
	}
	for _, bad := range []struct{ subject, glob string }{{"", ""}, {"has space", ""}, {"alice", "[bad"}} {
		var allow []string
		if bad.glob != "" {
			allow = []string{bad.glob}
		}
		if _, err := Add(path, bad.subject, allow, nil); err == nil {
			t.Errorf("Add(%q, %q) passed", bad.subject, bad.glob)
		}
	}
	for _, content := range []string{`{"tokens":[{"subject":"a","token_sha256":"xyz"}]}`, `{"tokens":[],"extra":1}`, `not json`} {
		os.WriteFile(path, []byte(content), 0o600)
		if _, err := Open(path, nil, nil); err == nil {
			t.Errorf("Open took %s", content)
		}
	}
}

// FuzzTokensFile: any bytes either fail to parse or give identities that
// survive a round trip through the file format.
func FuzzTokensFile(f *testing.F) {
	f.Add([]byte(`{"tokens":[{"subject":"alice","token_sha256":"` + Hash("t") + `","allow":["docs/**"]}]}`))
	f.Add([]byte(`{"tokens":[]}`))
	f.Add([]byte(`{"tokens":[{"subject":"a","token_sha256":"00","allow":["[x"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		byHash, err := parseTokens(b)
		if err != nil {
			return
		}
		var tf tokenFile
		for h, id := range byHash {
			if !sha256RE().MatchString(h) || !subjectRE().MatchString(id.Subject) {
				t.Fatalf("accepted %q for %q", h, id.Subject)
			}
			tf.Tokens = append(tf.Tokens, tokenEntry{Subject: id.Subject, TokenSHA256: h, Allow: id.Allow, Tools: id.Tools})
		}
		out, _ := json.Marshal(tf)
		again, err := parseTokens(out)
		if err != nil || len(again) != len(byHash) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
