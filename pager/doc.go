// Package pager fits text into token-budgeted pages.
//
// It owns the page formats (the contract's JSON object, the text page: the
// content as it is, then a footer line, and raw chunks; see Format) and
// the search for the longest content prefix whose whole serialized page
// fits a budget, counted by any Counter (package tokencount has folio's). It never reads files: the
// caller hands it a window of bytes that starts at the page's offset.
package pager
