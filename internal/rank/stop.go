package rank

// IsStop reports whether the word (a stem, as Stem gives it) is a stop
// word: an English word so common in questions and docs that it says
// nothing of what they are about ("the", "how", "does"); with o.Requests,
// the words a request to a tool asks with too ("show", "get", "all",
// "these"), which in docs may name what they are about (Go's "any", "go
// get"). Both searches drop a query's stop words, unless a query has
// nothing else.
func (o Options) IsStop(stem string) bool {
	switch stem {
	case "a", "an", "the", "and", "or", "not", "no", "so", "but", "if", "than", "then",
		"of", "to", "in", "on", "for", "from", "with", "by", "at", "as", "into",
		"is", "are", "be", "it", "this", "that", "there", "their",
		"i", "my", "me", "you", "your", "we", "our", "us",
		"can", "do", "doe", "will", "would", "should", "could",
		"how", "what", "when", "which", "who", "whi", "use":
		return true
	case "these", "those", "out", "up", "all", "ani", "some", "show", "give", "get":
		return o.Requests
	}
	return false
}
