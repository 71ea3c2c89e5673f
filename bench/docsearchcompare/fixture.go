package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/folio-mcp/folio/docsearch"
	"github.com/folio-mcp/folio/internal/rank"
	"github.com/folio-mcp/folio/tokencount"
)

// question is one line of questions.jsonl, as docsearch/eval_test.go
// reads it.
type question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Answers  []struct {
		Path string `json:"path"`
		Text string `json:"text"`
	} `json:"answers"`
}

// tuneQuestions reads the fixture's questions of the tune half of
// split.txt; the held-out half is never read.
func tuneQuestions(fixture string) ([]question, error) {
	tune := map[string]bool{}
	f, err := os.Open(filepath.Join(fixture, "split.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if id, half, ok := strings.Cut(sc.Text(), " "); ok && half == "tune" {
			tune[id] = true
		}
	}
	raw, err := os.ReadFile(filepath.Join(fixture, "questions.jsonl"))
	if err != nil {
		return nil, err
	}
	var qs []question
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var q question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, err
		}
		if tune[q.ID] {
			qs = append(qs, q)
		}
	}
	return qs, nil
}

// file is a document of the corpus: its path under corpus/ and its text.
type file struct {
	path string
	text string
}

// corpus reads the fixture's documents (licences aside), and their size.
func corpus(fixture string) ([]file, int, error) {
	root := filepath.Join(fixture, "corpus")
	var files []file
	size := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LICENSE" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files = append(files, file{filepath.ToSlash(rel), string(b)})
		size += len(b)
		return err
	})
	return files, size, err
}

// chunk is a passage as docsearch's index cuts it, as bleve indexes it:
// the file's lines first..last, the units' text (the body field) and the
// headings it falls under (the headings field).
type chunk struct {
	path        string
	first, last int
	body        string
	headings    string
}

// chunks cuts a file as docsearch's index does: docsearch.Units joined
// into chunks of at most most words within one section.
func chunks(f file, most int) []chunk {
	units := docsearch.Units(f.path, []byte(f.text))
	var out []chunk
	for i := 0; i < len(units); {
		j, words, body := i+1, len(rank.Words(units[i].Text, rank.Options{CJK: true})), units[i].Text
		for j < len(units) && units[j].Section == units[i].Section {
			n := len(rank.Words(units[j].Text, rank.Options{CJK: true}))
			if words+n > most {
				break
			}
			words += n
			body += units[j].Text
			j++
		}
		out = append(out, chunk{f.path, units[i].First, units[j-1].Last, body, strings.Join(units[i].Headings, " ")})
		i = j
	}
	return out
}

// scores are an engine's figures on the tune half.
type scores struct {
	answered, hit2000, hit500 int
	none, noneTokens          int
	over                      int
}

// evaluate asks every question at budgets 2000 and 500, as
// docsearch/eval_test.go does: an answer hits when its packed text holds
// a label; for a question with no answer, what counts is its tokens.
// lines are each file's lines, by path.
func evaluate(counter tokencount.Counter, qs []question, lines map[string][]string, search func(string) ([]place, error)) (scores, error) {
	var s scores
	for _, q := range qs {
		ranked, err := search(q.Question)
		if err != nil {
			return s, err
		}
		if len(q.Answers) > 0 {
			s.answered++
		}
		for _, budget := range []int{2000, 500} {
			text, err := pack(counter, lines, ranked, budget)
			if err != nil {
				return s, err
			}
			n := counter.Count(text)
			if n > budget {
				s.over++
			}
			switch {
			case len(q.Answers) == 0 && budget == 2000:
				s.none++
				s.noneTokens += n
			case hits(text, q) && budget == 2000:
				s.hit2000++
			case hits(text, q):
				s.hit500++
			}
		}
	}
	return s, nil
}

// pack writes the passages' lines, best first, each under a line saying
// where it is, as many as fit the budget whole.
func pack(counter tokencount.Counter, lines map[string][]string, ranked []place, budget int) (string, error) {
	var b strings.Builder
	for _, p := range ranked {
		ls := lines[p.path]
		if p.first < 1 || p.last < p.first || p.last > len(ls) {
			return "", fmt.Errorf("passage %s:%d-%d is not in its file", p.path, p.first, p.last)
		}
		next := b.String() + fmt.Sprintf("%s:%d-%d\n%s\n", p.path, p.first, p.last, strings.Join(ls[p.first-1:p.last], ""))
		if counter.Count(next) <= budget {
			b.Reset()
			b.WriteString(next)
		}
	}
	return b.String(), nil
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
