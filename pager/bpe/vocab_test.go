package bpe

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the vocabulary indexes in data/")

// The compiled-in indexes are the ones buildIndex makes of the compiled-in
// tokens. After testdata/tokref/generate.mjs writes new tokens, run
// go test ./pager/bpe -run TestIndexIsCurrent -update.
func TestIndexIsCurrent(t *testing.T) {
	for _, tc := range []struct{ name, tokens, index string }{
		{O200kBase, o200kTokens, o200kIndex},
		{Cl100kBase, cl100kTokens, cl100kIndex},
	} {
		want, err := buildIndex(tc.tokens)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if *update {
			if err := os.WriteFile(filepath.Join("data", tc.name+".index"), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal([]byte(tc.index), want) {
			t.Errorf("%s: data/%[1]s.index is not the index of data/%[1]s.tokens: run go test ./pager/bpe -run TestIndexIsCurrent -update", tc.name)
		}
	}
}
