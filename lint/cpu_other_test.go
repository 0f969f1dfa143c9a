//go:build !unix

package lint

import "time"

// cpuTime is unknown here: the benchmarks report 0 CPU per operation.
func cpuTime() time.Duration { return 0 }
