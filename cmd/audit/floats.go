package main

import (
	"math"

	"github.com/spf13/pflag"
)

// checkFloats refuses NaN and ±Inf in the named float flags before any work:
// every float that enters the metrics must be a number.
func checkFloats(f *pflag.FlagSet, names ...string) error {
	for _, n := range names {
		v, err := f.GetFloat64(n)
		if err != nil {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return usageErrorf("--%s must be a finite number, got %v", n, v)
		}
	}
	return nil
}

// Bounds of the integer flags that size memory (a channel, a batch, a
// worker pool): past them a run would end in an out-of-memory crash, not
// in a result.
const (
	maxK         = 1000    // passages per claim
	maxWorkers   = 1024    // concurrent verifier calls
	maxBatchSize = 100_000 // claims per verifier call
)

// intRange is an integer flag and its allowed range.
type intRange struct {
	name     string
	v        int
	min, max int
}

// intRanges refuses the first flag outside its range (exit 2), naming it
// and the range.
func intRanges(rs ...intRange) error {
	for _, r := range rs {
		if r.v < r.min || r.v > r.max {
			return usageErrorf("--%s %d is outside [%d, %d]", r.name, r.v, r.min, r.max)
		}
	}
	return nil
}

// finiteFloatFlags refuses NaN and ±Inf in every float flag of every
// command (exit 2 naming the flag), before the command runs: a NaN
// tolerance would answer "not verified", a NaN share would generate a
// broken set.
func finiteFloatFlags(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "float64" {
			return
		}
		if v, perr := fs.GetFloat64(f.Name); perr == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = usageErrorf("--%s must be a finite number, got %v", f.Name, v)
		}
	})
	return err
}
