// Package llmstxt makes the two files the llms.txt proposal
// (llmstxt.org) asks of a docs tree: llms.txt, a map of the tree (an H1
// with its title, a blockquote with its summary, a line of detail, then
// an H2 section per directory with one link line per document), and
// llms-full.txt, every document whole in one file.
//
// Both are made from a tree as a view (package fsview) shows it, walked as
// list walks it: the deny list, the ignore files, the size cap and the
// text check apply, and only the view's documents appear (see IsDoc).
// llms-full.txt is written as the walk goes, one document held at a time;
// llms.txt is held, within its bound.
package llmstxt
