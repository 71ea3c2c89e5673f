//go:build race

package mcpserver

// raceEnabled: the race detector is on, and heavy tests run fewer rounds.
const raceEnabled = true
