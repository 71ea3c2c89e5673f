package docsearch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio-mcp/folio/tokencount"
)

// fixture is testdata/docsearch: its corpus and its questions (see its
// README), split once into tune and heldout.
const fixture = "../testdata/docsearch"

// question is one line of questions.jsonl.
type question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Answers  []struct {
		Path string `json:"path"`
		Text string `json:"text"`
	} `json:"answers"`
	Kind string `json:"kind"`
	// Split is "tune" or "heldout", from split.txt.
	Split string `json:"-"`
}

// questions reads the fixture's questions with their split.
func questions(t testing.TB) []question {
	t.Helper()
	split := map[string]string{}
	f, err := os.Open(filepath.Join(fixture, "split.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if id, half, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(id, "#") {
			split[id] = half
		}
	}
	raw, err := os.ReadFile(filepath.Join(fixture, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []question
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var q question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		if q.Split = split[q.ID]; q.Split == "" {
			t.Fatalf("%s is in no half of split.txt", q.ID)
		}
		qs = append(qs, q)
	}
	return qs
}

// corpusFile is a file of the corpus: its path under corpus/ and its text.
type corpusFile struct {
	path string
	text string
}

// corpus reads the fixture's documents (licences aside).
func corpus(t testing.TB) []corpusFile {
	t.Helper()
	root := filepath.Join(fixture, "corpus")
	var files []corpusFile
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LICENSE" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files = append(files, corpusFile{filepath.ToSlash(rel), string(b)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// passage is a run of a file's lines a search may answer with.
type passage struct {
	path        string
	first, last int
	text        string
}

// figures are a searcher's figures on one half of the questions.
type figures struct {
	answered, hit2000, hit500 int
	none, noneTokens          int
	over                      int // answers over their budget
}

// evaluateAnswers asks every question of half, at budgets 2000 and 500:
// an answer hits when its text holds a label of the question; for a
// question with no answer, what counts is the tokens it returned.
func evaluateAnswers(t testing.TB, qs []question, half string, answer func(q string, budget int) string) figures {
	t.Helper()
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var s figures
	for _, q := range qs {
		if q.Split != half {
			continue
		}
		if len(q.Answers) > 0 {
			s.answered++
		}
		for _, budget := range []int{2000, 500} {
			text := answer(q.Question, budget)
			n := counter.Count(text)
			if n > budget {
				s.over++
			}
			switch {
			case len(q.Answers) == 0 && budget == 2000:
				s.none++
				s.noneTokens += n
			case len(q.Answers) > 0 && hits(text, q) && budget == 2000:
				s.hit2000++
			case len(q.Answers) > 0 && hits(text, q):
				s.hit500++
			}
		}
	}
	return s
}

// pack writes the passages, best first, each under a line saying where
// it is, as many as fit the budget whole.
func packPlain(counter tokencount.Counter, ranked []passage, budget int) string {
	var b strings.Builder
	for _, p := range ranked {
		next := b.String() + fmt.Sprintf("%s:%d-%d\n%s\n", p.path, p.first, p.last, p.text)
		if counter.Count(next) <= budget {
			b.Reset()
			b.WriteString(next)
		}
	}
	return b.String()
}

// hits reports whether text holds one of q's labels.
func hits(text string, q question) bool {
	for _, a := range q.Answers {
		if strings.Contains(text, a.Text) {
			return true
		}
	}
	return false
}

// report logs s as the figures the issue names.
func report(t testing.TB, name, half string, s figures) {
	t.Helper()
	t.Logf("%s, %s (%d answered, %d without an answer): hit@2000 %.3f, hit@500 %.3f, tokens on no-answer questions %.0f of 2000, answers over budget %d",
		name, half, s.answered, s.none, float64(s.hit2000)/float64(s.answered), float64(s.hit500)/float64(s.answered), float64(s.noneTokens)/float64(max(s.none, 1)), s.over)
}

// paragraphs cuts each file at its blank lines: the units of the plain
// baseline, raw text as the file has it.
func paragraphs(files []corpusFile) []passage {
	var out []passage
	for _, f := range files {
		lines := strings.Split(f.text, "\n")
		start := -1
		for i := 0; i <= len(lines); i++ {
			blank := i == len(lines) || strings.TrimSpace(lines[i]) == ""
			switch {
			case !blank && start < 0:
				start = i
			case blank && start >= 0:
				out = append(out, passage{f.path, start + 1, i, strings.Join(lines[start:i], "\n")})
				start = -1
			}
		}
	}
	return out
}

// TestPlainBM25 reports the baseline the issue names: plain BM25 over the
// corpus's paragraphs (cut at blank lines, raw text, no fields, stems or
// stop words), the best packed whole into the budget. It holds only that
// no answer passes its budget and that the set is whole; the figures are
// the bar the docs search must clear (go test -run PlainBM25 -v
// ./docsearch).
func TestPlainBM25(t *testing.T) {
	qs := questions(t)
	if len(qs) < 150 {
		t.Fatalf("%d questions", len(qs))
	}
	units := paragraphs(corpus(t))
	ix := newPlainBM25(words)
	for _, u := range units {
		ix.Add(field{u.text, 1})
	}
	answer := func(q string) []passage {
		var out []passage
		for _, h := range ix.Search(q, 60) {
			out = append(out, units[h.Passage])
		}
		return out
	}
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	packed := func(q string, budget int) string { return packPlain(counter, answer(q), budget) }
	for _, half := range []string{"tune", "heldout"} {
		s := evaluateAnswers(t, qs, half, packed)
		report(t, "plain BM25 over paragraphs", half, s)
		if s.over > 0 {
			t.Errorf("%s: %d answers over budget", half, s.over)
		}
	}
}

// corpusIndex is the corpus indexed, and a Source reading it.
func corpusIndex(t testing.TB) (*Index, Source) {
	t.Helper()
	ix := New()
	text := map[string][]byte{}
	for _, f := range corpus(t) {
		text[f.path] = []byte(f.text)
		ix.Put(f.path, "v1", text[f.path])
	}
	return ix, func(_ context.Context, path string) ([]byte, string, error) {
		return text[path], "v1", nil
	}
}

// TestRanking reports the docs search's answers (Index.Answer, as the
// search tool gives them) on the tune half of the questions, which its
// choices are made by, and on the held-out half, which none is.
func TestRanking(t *testing.T) {
	qs := questions(t)
	ix, read := corpusIndex(t)
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(q string, budget int) string {
		a, err := ix.Answer(context.Background(), Query{Text: q, MaxTokens: budget}, counter.Count, read)
		if err != nil {
			t.Fatal(err)
		}
		return a.Text
	}
	for _, half := range []string{"tune", "heldout"} {
		s := evaluateAnswers(t, qs, half, answer)
		report(t, "docsearch", half, s)
		if s.over > 0 {
			t.Errorf("%s: %d answers over budget", half, s.over)
		}
		report(t, "docsearch, the questions answered in HTML (Go's spec, memory model, assembler guide)", half, evaluateAnswers(t, inHTML(qs), half, answer))
	}
}

// inHTML are the questions of qs whose answers are all in HTML documents.
func inHTML(qs []question) []question {
	var out []question
	for _, q := range qs {
		html := len(q.Answers) > 0
		for _, a := range q.Answers {
			html = html && strings.HasSuffix(a.Path, ".html")
		}
		if html {
			out = append(out, q)
		}
	}
	return out
}
