//go:build !race

package main

// raceEnabled: the race detector is on; the binary under test is built
// with it too, and bounds on its memory and CPU are not held (the detector
// multiplies both).
const raceEnabled = false
