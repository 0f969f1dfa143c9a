package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMcNemarExact(t *testing.T) {
	assert.Equal(t, 1.0, McNemar(0, 0))
	assert.InDelta(t, 0.25, McNemar(0, 3), 1e-12, "2 × (1/2)^3")
	assert.InDelta(t, 0.25, McNemar(3, 0), 1e-12)
	assert.Equal(t, 1.0, McNemar(5, 5))
	// scipy.stats.binomtest(2, 12, 0.5).pvalue = 0.03857421875
	assert.InDelta(t, 0.03857421875, McNemar(2, 10), 1e-12)
}

// A run against itself: every paired delta is exactly 0. A run that fixes
// claims: the accuracy delta's interval lies above 0.
func TestPairedBootstrap(t *testing.T) {
	a := synthetic(2000, 1.5, 3)
	ci, err := PairedBootstrap(a, a, 1, BootstrapOptions{Resamples: 200, Seed: 1})
	require.NoError(t, err)
	for _, name := range PairedMetrics {
		assert.Equal(t, Interval{}, ci[name], name)
	}
	b := append([]Outcome(nil), a...)
	fixed := 0
	for i := range b {
		if !b[i].Abstained && b[i].Predicted != b[i].Gold && fixed < 200 {
			b[i].Predicted = b[i].Gold
			var z [3]float64
			z[b[i].Gold] = 3
			b[i].Logits = z
			fixed++
		}
	}
	ci, err = PairedBootstrap(a, b, 1, BootstrapOptions{Resamples: 200, Seed: 1})
	require.NoError(t, err)
	assert.Greater(t, ci["accuracy"].Low, 0.0)
	assert.Less(t, ci["tier1_fa_conditional"].High, 0.0001)
	_, err = PairedBootstrap(a, b[:10], 1, BootstrapOptions{})
	assert.Error(t, err)
}
