//go:build race

package triton

// raceEnabled: the race detector slows the 10k-claim load test tenfold.
const raceEnabled = true
