package numeric

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
		// A multiplier's unit is the comparative after it (the seed's
		// table: "3x faster" → "faster"); without one it is "x".
		{"It is 3x faster than before.", PatternMultiplier, "3x faster", "faster"},
		{"Builds are 2.5× cheaper.", PatternMultiplier, "2.5× cheaper", "cheaper"},
		{"It uses 4x more memory.", PatternMultiplier, "4x more", "more"},
		{"Throughput grew 3x.", PatternMultiplier, "3x", "x"},
		{"It runs at 3x the speed.", PatternMultiplier, "3x", "x"},
		{"Sales rose 3x over two years.", PatternMultiplier, "3x", "x"},
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
	// The seed 000 side reads the same text as the quantity 3x: unit "x".
	q, err := ParseQuantity("3x faster")
	require.NoError(t, err)
	assert.Equal(t, "x", q.Unit)
	// "under 100ms" is an upper bound on the time.
	assert.Equal(t, CmpBelow, FindNumbers("Checks finish under 100ms.")[0].Cmp)
	// Rule 2: up to two words that start with a letter between the number
	// and the counted noun, never another number.
	ms := FindNumbers("It ships 25 built-in lint rules and 3 presets.")
	require.Len(t, ms, 2)
	assert.Equal(t, "25 built-in lint rules", ms[0].Text)
	assert.Equal(t, "3 presets", ms[1].Text)
	// Versions are not claims; neither are years or day numbers of dates.
	assert.Empty(t, FindNumbers("Version v1.0 shipped in 2021 on 4 May."))
}

func TestBetweenPatternIndex(t *testing.T) {
	require.Len(t, scanOrder, len(patterns), "one matcher per pattern")
	for i, p := range patterns {
		assert.Equal(t, p.name, scanOrder[i].name)
	}
	assert.Contains(t, patterns[3].re.String(), "between")
	assert.Equal(t, atBetween, scanOrder[3].at)
}
