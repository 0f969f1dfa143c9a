//go:build !race

package triton

const raceEnabled = false
