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
