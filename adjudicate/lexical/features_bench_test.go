//go:build unix

package lexical

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// processCPU is the process's CPU time (user + system), read around a
// benchmark's loop: on a shared, loaded machine wall time says more about
// the neighbours than about the code.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports CPU nanoseconds per pair since start.
func reportCPU(b *testing.B, start time.Duration, pairs int) {
	b.ReportMetric(float64((processCPU(b)-start).Nanoseconds())/float64(b.N*pairs), "cpu-ns/pair")
}

// BenchmarkFeatures computes the features of the demo's claims, each with
// the five passages sharing most of its words (600 pairs, ~1,000 distinct
// passages): cold with a cache that starts empty each time (every
// distinct passage analysed once), warm with one kept across the loop
// (the steady state of a long run, whose passages fit the cache). new is
// this code, old the code it replaced (features_oracle_test.go) with a map
// for its cache. Run each in its own process (-bench 'Features/old/cold$'
// and so on), alternating: the two share nothing.
func BenchmarkFeatures(b *testing.B) {
	pairs := realPairs(b, filepath.Join("..", "..", "benchdata", "demo"))
	b.Run("old/cold", func(b *testing.B) {
		start := processCPU(b)
		for b.Loop() {
			cache := map[string]*oldDoc{}
			for _, p := range pairs {
				oldFeatures(p, fakeStats{}, cache)
			}
		}
		reportCPU(b, start, len(pairs))
	})
	b.Run("new/cold", func(b *testing.B) {
		start := processCPU(b)
		for b.Loop() {
			cache := newPassageCache(passageCacheSize)
			for _, p := range pairs {
				features(p, fakeStats{}, cache)
			}
		}
		reportCPU(b, start, len(pairs))
	})
	b.Run("old/warm", func(b *testing.B) {
		cache := map[string]*oldDoc{}
		for _, p := range pairs {
			oldFeatures(p, fakeStats{}, cache)
		}
		start := processCPU(b)
		for b.Loop() {
			for _, p := range pairs {
				oldFeatures(p, fakeStats{}, cache)
			}
		}
		reportCPU(b, start, len(pairs))
	})
	b.Run("new/warm", func(b *testing.B) {
		cache := newPassageCache(passageCacheSize)
		for _, p := range pairs {
			features(p, fakeStats{}, cache)
		}
		start := processCPU(b)
		for b.Loop() {
			for _, p := range pairs {
				features(p, fakeStats{}, cache)
			}
		}
		reportCPU(b, start, len(pairs))
	})
}
