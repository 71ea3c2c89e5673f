package rank

import (
	"sync"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// Stem is the word's stem by Snowball's English stemmer (Porter2), so
// that "issues" and "issue" meet ("issu"), as do "closes", "closed",
// "closing" and "close", "queries" and "query" ("queri"). The stemmer is
// the Snowball project's own algorithm, compiled to Go by its compiler
// (github.com/blevesearch/snowballstem); it agrees word for word with
// Snowball 2's reference vocabulary. A word is given in lower case, as
// Words gives it; one with any letter outside a to z (a CJK pair,
// "naïve") is its own stem.
func Stem(word string) string {
	for i := 0; i < len(word); i++ {
		if c := word[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return word
		}
	}
	if len(word) <= 2 {
		return word
	}
	env := snowballstem.NewEnv(word)
	english.Stem(env)
	return env.Current()
}

// Stemmer is Stem with a memory of the stems it gave, for an index that
// stems the same words over and over: safe for concurrent use, and
// bounded (past maxRemembered words it forgets them all and starts
// again). The zero Stemmer is ready to use.
type Stemmer struct {
	mu    sync.RWMutex
	stems map[string]string
}

// maxRemembered bounds what a Stemmer remembers: a corpus's common words
// are remembered soon after each forgetting, its rare ones cost a stem
// each time.
const maxRemembered = 1 << 16

// Stem is Stem(word), remembered.
func (s *Stemmer) Stem(word string) string {
	s.mu.RLock()
	stem, ok := s.stems[word]
	s.mu.RUnlock()
	if ok {
		return stem
	}
	stem = Stem(word)
	s.mu.Lock()
	if s.stems == nil || len(s.stems) >= maxRemembered {
		s.stems = make(map[string]string, 1024)
	}
	s.stems[word] = stem
	s.mu.Unlock()
	return stem
}

// Stems are the words of s (see Words) each cut to its stem.
func (s *Stemmer) Stems(text string, o Options) []string {
	words := Words(text, o)
	for i, w := range words {
		words[i] = s.Stem(w)
	}
	return words
}
