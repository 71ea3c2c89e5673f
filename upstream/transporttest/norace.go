//go:build !race

package transporttest

// raceSlowdown is how much longer the checks wait under the race detector.
const raceSlowdown = 1
