package rank

// IsStop reports whether the word (a stem, as Stem gives it) is a stop
// word: an English word so common in questions, docs and tools'
// descriptions that it says nothing of what they are about ("the", "how",
// "does", "show"). Both searches drop a query's stop words, unless a
// query has nothing else.
func IsStop(stem string) bool {
	switch stem {
	case "a", "an", "the", "and", "or", "not", "no", "so", "but", "if", "than", "then",
		"of", "to", "in", "on", "for", "from", "with", "by", "at", "as", "into", "out", "up",
		"is", "are", "be", "it", "this", "that", "these", "those", "there", "their",
		"i", "my", "me", "you", "your", "we", "our", "us",
		"can", "do", "doe", "will", "would", "should", "could",
		"how", "what", "when", "which", "who", "whi",
		"all", "ani", "some", "use", "show", "give", "get":
		return true
	}
	return false
}
