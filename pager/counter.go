package pager

// Counter counts the tokens of a text: what Fit pages by (package
// tokencount has folio's counters). Implementations are safe for
// concurrent use.
type Counter interface {
	// Name is the counter's name as given on the command line.
	Name() string
	// Count returns the number of tokens in s. It keeps no reference to
	// s once it returns: the pager hands it memory it writes again.
	Count(s string) int
	// MaxBytesPerToken bounds how many bytes of text one token can stand
	// for, so that a window of budget*MaxBytesPerToken bytes always holds
	// more text than a page of that budget can carry.
	MaxBytesPerToken() int
}

// unitCounter is a Counter whose count is ceil(Units/UnitsPerToken), with
// Units a sum over code points: the pager adds up the units of pieces
// exactly, where token counts of pieces would each round up.
type unitCounter interface {
	Counter
	Units(s string) int
	UnitsPerToken() int
}
