package audit

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// heapLimit sets a limit at least minHeapHeadroom above the live heap it
// finds (here with 64 MiB held), and its restore puts back the limit there
// was; with GOMEMLIMIT set by the user it changes nothing.
func TestHeapLimitSetsAndRestores(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	held := make([]byte, 64<<20)
	for i := range held {
		held[i] = byte(i)
	}
	restore := heapLimit()
	limit := debug.SetMemoryLimit(-1)
	require.Less(t, limit, int64(math.MaxInt64), "a limit is set")
	require.GreaterOrEqual(t, limit, int64(len(held)+minHeapHeadroom))
	restore()
	require.Equal(t, before, debug.SetMemoryLimit(-1))
	require.Equal(t, byte(7), held[7]) // held is live until here

	t.Setenv("GOMEMLIMIT", "1GiB")
	heapLimit()()
	require.Equal(t, before, debug.SetMemoryLimit(-1))
	restoreSet := heapLimit()
	require.Equal(t, before, debug.SetMemoryLimit(-1), "the user's limit is left alone")
	restoreSet()
}
