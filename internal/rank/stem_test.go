package rank

import (
	"fmt"
	"sync"
	"testing"
)

// TestStemJoinsForms holds Stem to what the searches need of it: a noun's
// singular and plural meet, and a verb's forms meet, each at the stem
// Snowball's reference vocabulary gives (snowballstem/snowball-data,
// english/voc.txt and output.txt).
func TestStemJoinsForms(t *testing.T) {
	for stem, forms := range map[string][]string{
		"issu":    {"issue", "issues"},
		"messag":  {"message", "messages"},
		"file":    {"file", "files", "filed"},
		"queri":   {"query", "queries"},
		"index":   {"index", "indexes"},
		"box":     {"box", "boxes"},
		"close":   {"close", "closes", "closed", "closing"},
		"run":     {"run", "runs", "running"},
		"answer":  {"answer", "answers", "answered", "answering"},
		"connect": {"connect", "connection", "connections", "connecting", "connected"},
		"hope":    {"hope", "hoped", "hoping"},
		"write":   {"write", "writes", "writing"},
		"sky":     {"sky", "skies"},
		"die":     {"dying"},
		"cri":     {"cried", "cries"},
	} {
		for _, w := range forms {
			if got := Stem(w); got != stem {
				t.Errorf("Stem(%q) = %q, want %q", w, got, stem)
			}
		}
	}
}

// TestStemKeepsApart holds that words of other meanings keep stems of
// their own.
func TestStemKeepsApart(t *testing.T) {
	for _, pair := range [][2]string{
		{"new", "news"}, {"arm", "army"}, {"general", "generous"}, {"community", "communism"},
		{"police", "policy"}, {"wander", "wand"}, {"hop", "hope"}, {"ran", "run"},
	} {
		if a, b := Stem(pair[0]), Stem(pair[1]); a == b {
			t.Errorf("%q and %q both stem to %q", pair[0], pair[1], a)
		}
	}
}

// TestStemReference holds Stem to Snowball's English reference, a word in
// every 500 of its vocabulary (english/voc.txt and output.txt of
// snowballstem/snowball-data as of Snowball 2; the whole of it, 42,603
// words, agrees), and a few of the algorithm's special cases.
func TestStemReference(t *testing.T) {
	for _, c := range stemReference {
		if got := Stem(c[0]); got != c[1] {
			t.Errorf("Stem(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

var stemReference = [][2]string{
	{"generously", "generous"}, {"happiness", "happi"}, {"conditional", "condit"},
	{"caresses", "caress"}, {"ponies", "poni"}, {"cats", "cat"}, {"hopping", "hop"},
	{"agreed", "agre"}, {"feed", "feed"}, {"national", "nation"}, {"lying", "lie"},
	{"news", "news"}, {"skies", "sky"}, {"installed", "instal"}, {"written", "written"},
	{"adjutant", "adjut"},
	{"alights", "alight"},
	{"antilles", "antill"},
	{"articles", "articl"},
	{"avocation", "avoc"},
	{"bated", "bate"},
	{"berry", "berri"},
	{"blount", "blount"},
	{"brave", "brave"},
	{"burier", "burier"},
	{"caracaras", "caracara"},
	{"chameleon", "chameleon"},
	{"chucked", "chuck"},
	{"cocked", "cock"},
	{"comprised", "compris"},
	{"containing", "contain"},
	{"countermand", "countermand"},
	{"cryptogamic", "cryptogam"},
	{"deadens", "deaden"},
	{"deo", "deo"},
	{"digestion", "digest"},
	{"disport", "disport"},
	{"dowlas", "dowla"},
	{"eating", "eat"},
	{"enamelled", "enamel"},
	{"er", "er"},
	{"exemplify", "exemplifi"},
	{"fanaticism", "fanatic"},
	{"fille", "fill"},
	{"folair", "folair"},
	{"freshes", "fresh"},
	{"gaudiest", "gaudiest"},
	{"godhead", "godhead"},
	{"grouping", "group"},
	{"harriet", "harriet"},
	{"higher", "higher"},
	{"huddlestons", "huddleston"},
	{"imperceiverant", "imperceiver"},
	{"inelegance", "ineleg"},
	{"interdiction", "interdict"},
	{"jays", "jay"},
	{"kitchens", "kitchen"},
	{"leadership", "leadership"},
	{"listener", "listen"},
	{"lx", "lx"},
	{"marking", "mark"},
	{"mervyn", "mervyn"},
	{"mm", "mm"},
	{"mum", "mum"},
	{"newborn", "newborn"},
	{"observable", "observ"},
	{"ostlers", "ostler"},
	{"palsied", "palsi"},
	{"peaked", "peak"},
	{"petting", "pet"},
	{"play", "play"},
	{"postponed", "postpon"},
	{"principal", "princip"},
	{"psychological", "psycholog"},
	{"ra", "ra"},
	{"reclining", "reclin"},
	{"removal", "remov"},
	{"reverberating", "reverber"},
	{"rougher", "rougher"},
	{"satins", "satin"},
	{"seaward", "seaward"},
	{"shawl", "shawl"},
	{"sinecure", "sinecur"},
	{"snappishly", "snappish"},
	{"speckelation", "speckel"},
	{"station", "station"},
	{"struthio", "struthio"},
	{"surety", "sureti"},
	{"tapsters", "tapster"},
	{"third", "third"},
	{"topp", "topp"},
	{"trombones", "trombon"},
	{"unbonneted", "unbonnet"},
	{"unhurt", "unhurt"},
	{"untalk", "untalk"},
	{"vehemence", "vehem"},
	{"voluta", "voluta"},
	{"weening", "ween"},
	{"wistfully", "wist"},
	{"yon", "yon"},
}

// TestStemLeavesOthers: short words, words in capitals and words of
// letters outside a to z are their own stems.
func TestStemLeavesOthers(t *testing.T) {
	for _, w := range []string{"", "a", "is", "索引", "naïve", "Issues", "über"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q", w, got)
		}
	}
}

// TestStemmer holds the remembering stemmer to Stem, from goroutines at
// once and past what it remembers.
func TestStemmer(t *testing.T) {
	var s Stemmer
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range maxRemembered + 100 {
				w := fmt.Sprintf("issues%dx%d", i%3000, g)
				if got, want := s.Stem(w), Stem(w); got != want {
					t.Errorf("%q: %q, want %q", w, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := s.Stems("When do Issues close?", Options{}); fmt.Sprint(got) != "[when do issu close]" {
		t.Errorf("Stems: %q", got)
	}
}

// TestIsStop: the function words of questions are stop words in every
// form a question writes them, a request's verbs and quantifiers only
// for requests, and the words that say what a question is about never.
func TestIsStop(t *testing.T) {
	questions, requests := Options{}, Options{Requests: true}
	for _, w := range []string{"the", "does", "its", "why", "using", "uses", "when", "should"} {
		if !questions.IsStop(Stem(w)) || !requests.IsStop(Stem(w)) {
			t.Errorf("%q (%q) is not a stop word", w, Stem(w))
		}
	}
	for _, w := range []string{"any", "get", "show", "these", "all"} {
		if questions.IsStop(Stem(w)) || !requests.IsStop(Stem(w)) {
			t.Errorf("%q (%q): a stop word of questions %v, of requests %v", w, Stem(w), questions.IsStop(Stem(w)), requests.IsStop(Stem(w)))
		}
	}
	for _, w := range []string{"issues", "close", "file", "message", "index", "search"} {
		if requests.IsStop(Stem(w)) {
			t.Errorf("%q (%q) is a stop word", w, Stem(w))
		}
	}
}
