package wire

// NotePrefix starts every line of an answer that is folio's own note and
// not the content asked for: a text page's footer, a line read's footer,
// what a listing, a grep, an outline, a docs answer or a made llms.txt
// left out, the call that goes on. Clients (and folio's own tests) tell
// a note from the content by it, so it is written from here only.
const NotePrefix = "[folio] "

// Note is the note line that says text: NotePrefix, text and a newline.
func Note(text string) string {
	return NotePrefix + text + "\n"
}
