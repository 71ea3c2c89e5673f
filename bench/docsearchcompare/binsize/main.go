// Command binsize is the smallest program that indexes text and searches
// it, built twice by bench/docsearchcompare.sh: with folio's docsearch
// (the default) and with bleve (-tags bleve), to measure what bleve adds
// to a binary. It indexes each argument as a passage and prints the
// numbers of the passages that match the first.
package main

import (
	"fmt"
	"log"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: binsize QUERY [PASSAGE...]")
	}
	hits, err := search(os.Args[1], os.Args[2:])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hits)
}
