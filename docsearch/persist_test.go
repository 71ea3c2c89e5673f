package docsearch

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// TestSaveLoad saves an index with documents replaced and removed, loads
// it, and asks both the same questions: the same answers, and the loaded
// index keeps changing as the first did.
func TestSaveLoad(t *testing.T) {
	ix := New()
	files := corpus(t)
	for _, f := range files {
		ix.Put(f.path, "v1", []byte(f.text))
	}
	ix.Put(files[0].path, "v2", []byte("# Replaced\n\nA kestrel hovers.\n"))
	ix.Remove(files[1].path)
	var buf bytes.Buffer
	if err := ix.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ix.Stats(), loaded.Stats(); a != b {
		t.Fatalf("stats %+v, loaded %+v", a, b)
	}
	ask := func(ix *Index) string {
		var out bytes.Buffer
		for _, q := range questions(t)[:60] {
			hits, err := ix.Search(context.Background(), q.Question, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&out, hits)
		}
		return out.String()
	}
	if ask(ix) != ask(loaded) {
		t.Error("the loaded index answers otherwise")
	}
	loaded.Put("new.md", "v1", []byte("# New\n\nAn osprey dives.\n"))
	hits, _ := loaded.Search(context.Background(), "osprey dives", 1, nil)
	if len(hits) != 1 || hits[0].Path != "new.md" || !reflect.DeepEqual(hits[0].Headings, []string{"New"}) {
		t.Errorf("after a Put, the loaded index finds %+v", hits)
	}
	// A damaged file is an error, not a panic.
	for _, cut := range []int{0, 10, buf.Len() / 2, buf.Len() - 1} {
		if _, err := Load(bytes.NewReader(buf.Bytes()[:cut])); err == nil {
			t.Errorf("a file cut at %d loads", cut)
		}
	}
}

// FuzzLoad: whatever the bytes, Load answers an index or an error, and
// the index it answers can be searched.
func FuzzLoad(f *testing.F) {
	ix := New()
	ix.Put("a.md", "v", []byte("# A\n\nkestrel osprey heron\n\n## B\n\nheron\n"))
	var buf bytes.Buffer
	if err := ix.Save(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := Load(bytes.NewReader(b))
		if err != nil {
			return
		}
		ix.Search(context.Background(), "kestrel heron", 5, nil)
		ix.Put("a.md", "w", []byte("# A\n\nkestrel\n"))
		ix.Remove("a.md")
	})
}

// TestLoadRefusesOldStems: an index file of format 1, whose terms are
// the stems of the stemmer before Snowball's ("issu" for "issues" where
// the docs' "issue" was "issu" and a question's "issues" "issue"), is
// refused, so that a Tree indexes its documents again rather than search
// terms no question's stems meet.
func TestLoadRefusesOldStems(t *testing.T) {
	ix := New()
	ix.Put("a.md", "v", []byte("An issue closes when its last message is answered.\n"))
	ix.mu.Lock()
	ix.compactNow()
	s := ix.stored()
	ix.mu.Unlock()
	s.Format = 1
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(s); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(&buf); !errors.Is(err, ErrStore) {
		t.Errorf("an index file of format 1 loads: %v", err)
	}
}
