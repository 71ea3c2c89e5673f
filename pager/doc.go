// Package pager fits text into token-budgeted pages.
//
// It owns the token counters (o200k_base, cl100k_base and the seed's
// estimate), the page's two encodings (the contract's JSON object, and the
// text page: the content as it is, then a footer line) and the search for
// the longest content prefix whose whole serialized page fits a budget. It never reads files: the
// caller hands it a window of bytes that starts at the page's offset.
package pager
