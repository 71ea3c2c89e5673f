package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/lexicon"
)

// source reads WordNet's files from FOLIO_WORDNET or /usr/share/wordnet
// (Debian's wordnet-base), or skips the test without them.
func source(t *testing.T) *db {
	t.Helper()
	dir := wordnetDir()
	if _, err := os.Stat(filepath.Join(dir, "index.noun")); err != nil {
		t.Skipf("no WordNet files in %s (install wordnet-base, or set FOLIO_WORDNET): %v", dir, err)
	}
	d, err := readDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The committed table is what the generator makes of WordNet's files, and
// its licence is theirs.
func TestTableIsCurrent(t *testing.T) {
	d := source(t)
	want, err := build(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../data/wordnet.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("lexicon/data/wordnet.bin (%d bytes) is not what gen makes of %s (%d bytes): run go generate ./lexicon", len(got), wordnetDir(), len(want))
	}
	head, err := os.ReadFile(filepath.Join(wordnetDir(), "data.noun"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(head[:bytes.Index(head, []byte("\n0"))]), "\n") {
		_, text, _ := strings.Cut(strings.TrimSpace(line), " ")
		if !strings.Contains(lexicon.Notice(), strings.TrimSpace(text)) {
			t.Errorf("lexicon/data/LICENSE lacks the licence's line %q", text)
		}
	}
}

// What lexicon answers for a sample of words is what WordNet's files say,
// read here the plain way: each sense's synset, its words, its '+'
// pointers from the word, its '@' and '@i' synsets' words.
func TestRoundTrip(t *testing.T) {
	d := source(t)
	for pos := 1; pos <= 4; pos++ {
		lemmas := sortedKeys(d.index[pos])
		for i := 0; i < len(lemmas); i += 53 {
			w := lemmas[i]
			got := lexicon.Senses(w)
			for num, off := range d.index[pos][w][:min(3, len(d.index[pos][w]))] {
				want := plainSense(t, d, w, key{pos, off})
				want.Count = d.counts[senseKey{w, pos, num + 1}]
				at := slices.IndexFunc(got, func(s lexicon.Sense) bool { return sameSense(s, want) })
				if at < 0 {
					t.Fatalf("%s, sense %d of POS %d: want %+v among %+v", w, num+1, pos, want, got)
				}
				got = slices.Delete(got, at, at+1)
			}
		}
	}
}

// Every base form an exception list gives, and that is a lemma of its part
// of speech, is among Base's.
func TestExceptions(t *testing.T) {
	d := source(t)
	for pos := 1; pos <= 4; pos++ {
		for _, form := range sortedKeys(d.exc[pos]) {
			got := lexicon.Base(form)
			for _, base := range d.exc[pos][form] {
				if _, ok := d.index[pos][base]; ok && !slices.Contains(got, base) {
					t.Errorf("Base(%q) = %q, want %q (%s.exc)", form, got, base, parts[pos-1].file)
				}
			}
		}
	}
}

// plainSense reads w's sense in the synset k straight from the files.
func plainSense(t *testing.T, d *db, w string, k key) lexicon.Sense {
	s, err := d.synset(k)
	if err != nil {
		t.Fatal(err)
	}
	out := lexicon.Sense{POS: lexicon.POS(k.pos)}
	out.Synonyms = without(s.lemmas, w)
	for _, p := range s.pointers {
		target, err := d.synset(p.target)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case p.symbol == "@" || p.symbol == "@i":
			out.Hypernyms = append(out.Hypernyms, without(target.lemmas, w)...)
		case p.symbol == "+" && p.source > 0 && s.lemmas[p.source-1] == w && target.lemmas[p.toWord-1] != w:
			out.Derived = append(out.Derived, target.lemmas[p.toWord-1])
		}
	}
	return out
}

// sameSense compares senses, each relation as a set.
func sameSense(a, b lexicon.Sense) bool {
	set := func(s []string) []string { return slices.Compact(slices.Sorted(slices.Values(s))) }
	return a.POS == b.POS && a.Count == b.Count && slices.Equal(set(a.Synonyms), set(b.Synonyms)) &&
		slices.Equal(set(a.Derived), set(b.Derived)) && slices.Equal(set(a.Hypernyms), set(b.Hypernyms))
}

// without is words but w.
func without(words []string, w string) []string {
	var out []string
	for _, x := range words {
		if x != w {
			out = append(out, x)
		}
	}
	return out
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Damaged lines are errors, not panics or wrong synsets.
func TestBadLines(t *testing.T) {
	for _, line := range []string{
		"",
		"00001740 03 n",
		"00001740 03 n zz entity 0 000",
		"00001740 03 n 02 entity 0 000",
		"00001740 03 n 01 entity 0 x",
		"00001740 03 n 01 entity 0 001 @ 00001930",
		"00001740 03 n 01 entity 0 001 @ 00001930 q 0000",
		"00001740 03 n 01 entity 0 001 @ 00001930 n 00",
	} {
		if s, err := parseSynset(strings.Fields(line)); err == nil {
			t.Errorf("%q: %+v, want an error", line, s)
		}
	}
	if _, err := build(&db{}, 0); err == nil {
		t.Error("build with no senses: no error")
	}
}
