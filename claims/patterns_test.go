package claims

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pattern table of seed 001, row by row.
func TestSeed001Patterns(t *testing.T) {
	tests := []struct {
		text, pattern, match, unit string
	}{
		{"Our accuracy is 94% today.", PatternPercentage, "94%", "%"},
		{"It ships 25 built-in rules.", PatternCount, "25 built-in rules", "rules"},
		{"Checks finish under 100ms.", PatternTime, "100ms", "ms"},
		{"It is 3x faster than before.", PatternMultiplier, "3x", "x"},
		{"Plans cost $29/user.", PatternMoney, "$29", "dollars"},
		{"Plans cost $29 per user.", PatternMoney, "$29", "dollars"},
		{"Score: 87% on the benchmark.", PatternTrustScore, "Score: 87%", "%"},
		{"Results ranged 85-95% overall.", PatternRange, "85-95%", "%"},
		{"We saw an average of 94% uptake.", PatternAverage, "average of 94%", "%"},
	}
	for _, tt := range tests {
		ms := FindNumbers(tt.text)
		require.NotEmpty(t, ms, tt.text)
		assert.Equal(t, tt.pattern, ms[0].Pattern, tt.text)
		assert.Equal(t, tt.match, ms[0].Text, tt.text)
		assert.Equal(t, tt.unit, ms[0].Unit, tt.text)
	}
	// Versions are not claims; neither are years or day numbers of dates.
	assert.Empty(t, FindNumbers("Version v1.0 shipped in 2021 on 4 May."))
}
