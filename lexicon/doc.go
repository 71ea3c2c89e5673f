// Package lexicon bridges the words of a question and the words of what
// answers it, for folio's rankings (docs search, issue 36; tool search,
// issue 37): the synonyms, derivationally related forms and hypernyms that
// WordNet 3.0 gives an English word (Senses, Related), and the lemmas an
// inflected word is a form of, by WordNet's morphy (Base). It says how
// words relate; how much a relation counts in a ranking is the ranking's.
//
// The data is WordNet 3.0 as Debian's wordnet-base package (1:3.0-37)
// installs it, compiled by internal/gen into one table (data/wordnet.bin,
// its licence data/LICENSE) that the binary embeds: sorted words, each
// front-coded against the word before, with their records, and synsets
// shared by their words, all numbers varints (3.9 MB). Loading it, at
// first use, reads it once (11 ms) and keeps the words spelled out and
// where each record starts (3.4 MB of heap); the records are read in
// place, a word is found by binary search and a lookup decodes one
// record. The
// table keeps a word's first three senses in each part of speech (WordNet
// orders them by frequency; rarer senses mostly add noise) with their tag
// counts, so that a ranking can weigh the common senses over the rest.
//
// The package's tests hold the table to WordNet's own files when they are
// there (FOLIO_WORDNET, or /usr/share/wordnet): that it is what
// internal/gen makes of them, and that what Senses and Base answer is what
// the files say; and to facts checked by hand when they are not.
package lexicon
