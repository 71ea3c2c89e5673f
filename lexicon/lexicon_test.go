package lexicon

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Facts read by hand from WordNet 3.0's files (index.verb's "delete" has
// the synsets 01549205 "delete cancel", 00999833 "erase delete" and
// 00200863 "edit blue-pencil delete"; data.noun's hyperlink, 06586672, has
// the hypernym 06586471, "link"; verb.exc has "went go"; ...).
func TestKnownFacts(t *testing.T) {
	for _, tc := range []struct {
		word, relation string
		got            func(string) []string
		want           []string // each in the answer
		not            []string // none in it
	}{
		{"delete", "synonyms", synonyms, []string{"cancel", "erase", "edit", "blue-pencil"}, []string{"delete"}},
		{"delete", "derived", derived, []string{"deletion"}, nil},
		{"delete", "hypernyms", hypernyms, []string{"remove", "take_away", "censor"}, nil},
		{"remove", "synonyms", synonyms, []string{"take", "take_away", "withdraw", "get_rid_of"}, []string{"remove"}},
		{"remove", "derived", derived, []string{"removal", "remover", "remotion"}, nil},
		{"hyperlink", "hypernyms", hypernyms, []string{"link"}, nil},
		{"link", "synonyms", synonyms, []string{"connect", "nexus", "linkup", "tie-in"}, nil},
		{"link", "derived", derived, []string{"linkage"}, nil},
		{"configure", "derived", derived, []string{"configuration"}, nil},
		{"configure", "hypernyms", hypernyms, []string{"assemble", "set_up"}, nil},
		{"list", "synonyms", synonyms, []string{"listing", "name"}, nil},
		{"list", "hypernyms", hypernyms, []string{"database", "enumerate", "itemize"}, nil},
		{"erase", "synonyms", synonyms, []string{"delete", "wipe_out", "efface"}, nil},
		{"erase", "derived", derived, []string{"erasure", "eraser"}, nil},
		// The fourth sense of "link" (06586471, the one hyperlink is a
		// kind of) is past the three the table keeps.
		{"link", "hypernyms", hypernyms, []string{"linkage", "fastener"}, []string{"instruction"}},
		{"went", "base", Base, []string{"go"}, []string{"went"}},
		{"indices", "base", Base, []string{"index"}, nil},
		{"deleted", "base", Base, []string{"delete"}, nil},
		{"links", "base", Base, []string{"link", "links"}, nil},
		{"boxes", "base", Base, []string{"box"}, nil},
		{"installing", "base", Base, []string{"install"}, nil},
		{"largest", "base", Base, []string{"large"}, nil},
		{"Deleted", "base", Base, []string{"delete"}, nil},
		{"glass", "base", Base, []string{"glass"}, []string{"glas"}},
	} {
		got := tc.got(tc.word)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s of %q: %q, want %q among them", tc.relation, tc.word, got, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("%s of %q: %q, want no %q", tc.relation, tc.word, got, w)
			}
		}
	}
}

func synonyms(w string) []string  { return Related(w).Synonyms }
func derived(w string) []string   { return Related(w).Derived }
func hypernyms(w string) []string { return Related(w).Hypernyms }

// Words WordNet does not have are nil, however asked.
func TestUnknown(t *testing.T) {
	for _, w := range []string{"uninstall", "repo", "goroutine", "", " ", "_", strings.Repeat("a", maxWord+1), "delete\x00", "délete"} {
		if s, b := Senses(w), Base(w); s != nil || b != nil {
			t.Errorf("%q: senses %v, base %v, want none", w, s, b)
		}
	}
}

// Senses come most tagged first (cntlist.rev: remove%2:30:00:: 86, its
// noun sense none), case and spaces as the table spells them.
func TestSenses(t *testing.T) {
	s := Senses("remove")
	if len(s) != 4 || s[0].POS != Verb || s[0].Count != 86 || s[3].POS != Noun || s[3].Count != 0 {
		t.Errorf("senses of remove: %+v, want three verb senses, the first tagged 86 times, then the noun", s)
	}
	if a, b := Senses("Take Away"), Senses("take_away"); len(b) == 0 || !slices.EqualFunc(a, b, equalSense) {
		t.Errorf("Take Away: %+v, take_away: %+v, want the same senses", a, b)
	}
	for _, s := range Senses("list") {
		if s.POS.String() == "unknown" {
			t.Errorf("sense %+v of list has no part of speech", s)
		}
	}
}

// equalSense compares two senses whole.
func equalSense(a, b Sense) bool {
	return a.POS == b.POS && a.Count == b.Count && slices.Equal(a.Synonyms, b.Synonyms) &&
		slices.Equal(a.Derived, b.Derived) && slices.Equal(a.Hypernyms, b.Hypernyms)
}

// Every record of the compiled-in table reads to its end and no further,
// every id in it is in range, and its words are in the byte order the
// binary search needs, none longer than maxWord.
func TestTableWhole(t *testing.T) {
	tb := loaded()
	prev := ""
	for id := range tb.words {
		r := cursor{s: tb.record(id)}
		name := tb.name(id)
		if name <= prev || len(name) > maxWord || name != strings.ToLower(name) || strings.Contains(name, " ") {
			t.Fatalf("word %d %q after %q: want lower-case words in order, without spaces, at most %d bytes", id, name, prev, maxWord)
		}
		prev = name
		if !readsWhole(tb, &r) {
			t.Fatalf("word %q: its record does not read whole", name)
		}
	}
	for id := range tb.synsets {
		r := cursor{s: tb.synRecs[tb.synOff[id]:tb.synOff[id+1]]}
		if !idsWhole(&r, tb.words) || len(r.s) != 0 || len(tb.members(id)) == 0 {
			t.Fatalf("synset %d does not read whole", id)
		}
	}
	if !strings.Contains(Notice(), "WordNet 3.0 Copyright 2006 by Princeton University.") {
		t.Errorf("Notice() has no WordNet copyright line:\n%s", Notice())
	}
}

// readsWhole reads a record's base forms and senses, and reports whether
// every count and id fits and the record ends where its last sense does.
func readsWhole(tb *table, r *cursor) bool {
	for n := r.uvarint(); n > 0; n-- {
		if pos := r.byte(); pos < byte(Noun) || pos > byte(Adverb) || r.uvarint() >= uint64(tb.words) {
			return false
		}
	}
	for n := r.uvarint(); n > 0; n-- {
		if pos := r.byte(); pos < byte(Noun) || pos > byte(Adverb) {
			return false
		}
		r.uvarint()
		if r.uvarint() >= uint64(tb.synsets) {
			return false
		}
		if !idsWhole(r, tb.words) || !idsWhole(r, tb.synsets) {
			return false
		}
	}
	return len(r.s) == 0
}

// idsWhole reads a list of ids and reports whether it holds as many as
// its count says, each below limit.
func idsWhole(r *cursor, limit int) bool {
	count := *r
	return count.uvarint() == uint64(len(r.ids(limit)))
}

// A damaged header, or records that end early or late, are refused;
// damaged records, once loaded, read short or wrong, never out of bounds.
func TestDamagedTable(t *testing.T) {
	for _, data := range []string{"", "lexicon2", "lexicon1" + wordnetTable[8:], wordnetTable[:len(wordnetTable)/2], wordnetTable[:100], wordnetTable + "\x00"} {
		if _, err := parse(data); err == nil {
			t.Errorf("parse of a table of %d bytes: no error", len(data))
		}
	}
	tb, err := parse(wordnetTable)
	if err != nil {
		t.Fatal(err)
	}
	damage := func(s string) string {
		b := []byte(s)
		for i := 3; i < len(b); i += 7 {
			b[i] ^= 0xa5
		}
		return string(b)
	}
	tb.records, tb.synRecs = damage(tb.records), damage(tb.synRecs)
	for _, w := range []string{"delete", "went", "links", "zebra", "aardvark"} {
		tb.senses(w)
		tb.base(w)
	}
}

// FuzzLookup: any string, asked of the real table, panics nowhere; what
// Base gives are lemmas.
func FuzzLookup(f *testing.F) {
	for _, w := range []string{"delete", "went", "indices", "Take Away", "uninstall", "ss", "sses", "men", "\xff", strings.Repeat("s", maxWord)} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		Related(w)
		for _, b := range Base(w) {
			if len(Senses(b)) == 0 {
				t.Errorf("Base(%q) gives %q, which has no senses", w, b)
			}
		}
	})
}

// FuzzTable: any bytes after a table's header, parsed and looked up in,
// panic nowhere.
func FuzzTable(f *testing.F) {
	f.Add(wordnetTable[:headerSize+8], "delete")
	f.Add(wordnetTable[:10000], "aardvark")
	// One word "a", its base form itself as a noun, one noun sense (tag
	// count 9, synset 0, no derived words, no hypernyms); one synset: "a".
	f.Add("lexicon2\x01\x00\x00\x00\x01\x00\x00\x00\x00\x01a\x01\x01\x00\x01\x01\x09\x00\x00\x00\x01\x00", "a")
	f.Fuzz(func(t *testing.T, data, word string) {
		tb, err := parse(data)
		if err != nil {
			return
		}
		tb.senses(word)
		tb.base(word)
	})
}

// Loading reads the records in place: it allocates the table, its words
// and its three indexes, and nothing per word.
func TestLoadAllocates(t *testing.T) {
	if n := testing.AllocsPerRun(10, func() { parse(wordnetTable) }); n > 6 {
		t.Errorf("parse allocates %v times, want at most 6", n)
	}
}

// BenchmarkLoad parses the compiled-in table, and reports the heap that
// a loaded table holds.
func BenchmarkLoad(b *testing.B) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept, err := parse(wordnetTable)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Fatal(err)
	}
	runtime.KeepAlive(kept)
	for b.Loop() {
		parse(wordnetTable)
	}
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "heap-B")
}

// benchWords are the words of folio's rankings' examples.
var benchWords = []string{"delete", "remove", "uninstall", "repo", "link", "hyperlink", "configure", "flag", "list", "goroutine"}

func BenchmarkSenses(b *testing.B) {
	for b.Loop() {
		for _, w := range benchWords {
			Senses(w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/word")
}

func BenchmarkRelated(b *testing.B) {
	for b.Loop() {
		for _, w := range benchWords {
			Related(w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/word")
}

func BenchmarkBase(b *testing.B) {
	words := []string{"deleted", "removes", "uninstalling", "repos", "links", "hyperlinks", "configured", "flags", "listing", "goroutines"}
	for b.Loop() {
		for _, w := range words {
			Base(w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
}
