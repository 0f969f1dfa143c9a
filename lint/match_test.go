package lint

import (
	"fmt"
	"testing"

	"github.com/claimaudit/claimaudit/numeric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSimilarityByHand(t *testing.T) {
	// Identical descriptions: Jaccard 1, so 0.5 + unit bonus 0.3 + value bonus 0.2.
	f := Fact{Description: "Rail carried passengers", Value: 100, Unit: "passengers"}
	j := Jaccard("Rail carried passengers", "Rail carried passengers")
	assert.Equal(t, 1.0, j)
	s, ok := Similarity("Rail carried passengers", 100, "passengers", f, 0.05)
	require.True(t, ok)
	assert.InDelta(t, 0.5+0.3+0.2, s, 1e-12)

	s, ok = Similarity("Rail carried passengers", 120, "passengers", f, 0.05)
	require.True(t, ok)
	assert.InDelta(t, 0.8, s, 1e-12, "value bonus lost, the fact still matches")

	_, ok = Similarity("Rail carried passengers", 100, "trains", f, 0.05)
	assert.False(t, ok, "different units skip the fact")

	// Jaccard of {alpha, beta, gamma} and {beta, gamma, delta} = 2/4.
	assert.Equal(t, 0.5, Jaccard("alpha beta gamma", "beta gamma delta"))
}

func TestValuesMatch(t *testing.T) {
	assert.True(t, numeric.ValuesMatch(105, 100, 0.05))
	assert.False(t, numeric.ValuesMatch(105.1, 100, 0.05))
	assert.True(t, numeric.ValuesMatch(95, 100, 0.05))
	assert.True(t, numeric.ValuesMatch(0, 0, 0.05))
	assert.False(t, numeric.ValuesMatch(0.1, 0, 0.05))
}

func TestVerifyNumeric(t *testing.T) {
	facts := append(FactsFromText("span_001", "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022."),
		FactsFromText("span_002", "Punctuality reached 91.4% on regional lines. The company operated 412 trains.")...)
	tests := []struct {
		claim  string
		status string
		fact   string
	}{
		{"Meridian Rail carried 48.2 million passengers in 2023.", NumericVerified, "48.2 million passengers"},
		{"Meridian Rail carried 48 million passengers in 2023.", NumericVerified, "48.2 million passengers"},
		{"Meridian Rail carried 60 million passengers in 2023.", NumericMismatch, "48.2 million passengers"},
		{"Punctuality reached 80% on regional lines.", NumericMismatch, "91.4%"},
		{"The company operated 412 trains.", NumericVerified, "412 trains"},
		{"The museum holds 3,000 paintings.", NumericUnverifiable, ""},
		{"Meridian Rail is a railway.", NumericUnverifiable, ""},
	}
	for _, tt := range tests {
		got := VerifyNumeric(tt.claim, facts, MatchOptions{})
		assert.Equal(t, tt.status, got.Status, "%s: %s", tt.claim, got.Reason)
		assert.Equal(t, "rel_tol=0.05", got.Policy)
		if tt.fact != "" {
			require.NotNil(t, got.Fact, tt.claim)
			assert.Equal(t, tt.fact, got.Fact.Text, tt.claim)
		}
	}
}

func ExampleVerifyNumeric() {
	facts := FactsFromText("span_013", "The Kestrel X2 drone weighs 1.2 kg and has a maximum flight time of 34 minutes.")
	c := VerifyNumeric("The Kestrel X2 has a flight time of 40 minutes.", facts, MatchOptions{})
	fmt.Println(c.Status, "-", c.Reason)
	// Output: mismatch - 40 minutes differs from 34 minutes in span_013: 34 is not within 5% of 40
}

// Seed 001's matching rules: the threshold is inclusive, value agreement is
// a bonus (a mismatch is still found), ties go to the earlier fact.
func TestSeed001MatchingRules(t *testing.T) {
	// Jaccard("alpha beta", "alpha gamma") = 1/3: 0.5/3 + 0 unit + 0 value < 0.3.
	facts := []Fact{{ID: "f", Description: "alpha gamma", Value: 7}}
	_, _, found := FindMatchingFact("alpha beta", 9, "", facts, MatchOptions{})
	assert.False(t, found, "0.17 is below the threshold")
	// Same unit: 0.5/3 + 0.3 = 0.47 >= 0.3, value differs: still found.
	facts[0].Unit = "rules"
	f, s, found := FindMatchingFact("alpha beta", 9, "rules", facts, MatchOptions{})
	require.True(t, found)
	assert.InDelta(t, 0.5/3+0.3, s, 1e-12)
	assert.Equal(t, "f", f.ID)
	// The threshold is inclusive.
	_, _, found = FindMatchingFact("alpha beta", 9, "rules", facts, MatchOptions{MinSimilarity: 0.5/3 + 0.3})
	assert.True(t, found)
	// Ties go to the earlier fact.
	tie := []Fact{{ID: "first", Description: "x y", Value: 1, Unit: "u"}, {ID: "second", Description: "x y", Value: 1, Unit: "u"}}
	f, _, _ = FindMatchingFact("x y", 1, "u", tie, MatchOptions{})
	assert.Equal(t, "first", f.ID)
}
