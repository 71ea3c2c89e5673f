// Command gen compiles WordNet's database files, as Debian's wordnet-base
// package installs them (/usr/share/wordnet), into the table package
// lexicon embeds (lexicon/data/wordnet.bin):
//
//	go generate ./lexicon
//
// runs, in lexicon's directory,
//
//	go run ./internal/gen -o data/wordnet.bin
//
// which reads the directory FOLIO_WORDNET names, or /usr/share/wordnet
// (-wordnet), and keeps three senses of a word in each part of speech
// (-senses). Without wordnet-base installed, `apt-get download
// wordnet-base` and `dpkg-deb -x wordnet-base_*.deb DIR` give the files
// under DIR/usr/share/wordnet. The same files and -senses give the same
// bytes: this package's tests check the committed table against them when
// they are there.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("wordnet", wordnetDir(), "the directory of WordNet's index.*, data.*, *.exc and cntlist.rev files")
	senses := flag.Int("senses", 3, "how many senses of each word in each part of speech to keep, most frequent first")
	out := flag.String("o", "data/wordnet.bin", "the table to write")
	flag.Parse()
	if err := run(*dir, *senses, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// wordnetDir is where WordNet's files are: FOLIO_WORDNET, or where
// Debian's wordnet-base puts them.
func wordnetDir() string {
	if dir := os.Getenv("FOLIO_WORDNET"); dir != "" {
		return dir
	}
	return "/usr/share/wordnet"
}

// run compiles the files of dir into the table at out.
func run(dir string, senses int, out string) error {
	d, err := readDB(dir)
	if err != nil {
		return err
	}
	table, err := build(d, senses)
	if err != nil {
		return err
	}
	return os.WriteFile(out, table, 0o644)
}
