package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases: a bound is not a tolerance, and a fact about another
// year does not verify a claim.
func TestVerifyNumericBoundsAndYears(t *testing.T) {
	facts := FactsFromText("p1", "The city had 100 libraries.")
	c := VerifyNumeric("The city had more than 104 libraries.", facts, MatchOptions{})
	assert.Equal(t, NumericMismatch, c.Status, c.Reason)
	assert.Contains(t, c.Reason, "100 is not more than 104")
	c = VerifyNumeric("The city had more than 96 libraries.", facts, MatchOptions{})
	assert.Equal(t, NumericVerified, c.Status, c.Reason)
	c = VerifyNumeric("The city had nearly 100 libraries.", facts, MatchOptions{})
	assert.Equal(t, NumericVerified, c.Status, c.Reason)

	facts = FactsFromText("p2", "In 2022 the city had 980,000 residents.")
	c = VerifyNumeric("The city had more than 1,000,000 residents in 2023.", facts, MatchOptions{})
	assert.Equal(t, NumericUnverifiable, c.Status, c.Reason)
	assert.Equal(t, DisagreeYear, c.Disagreement)
	assert.Contains(t, c.Reason, "2023")
	assert.Contains(t, c.Reason, "2022")
	require.NotNil(t, c.Nearest)
	assert.Equal(t, "980,000 residents", c.Nearest.Text)

	// Same year: the bound decides, and 980,000 is not more than 1,000,000.
	c = VerifyNumeric("The city had more than 1,000,000 residents in 2022.", facts, MatchOptions{})
	assert.Equal(t, NumericMismatch, c.Status, c.Reason)
	c = VerifyNumeric("The city had nearly 1,000,000 residents in 2022.", facts, MatchOptions{})
	assert.Equal(t, NumericVerified, c.Status, c.Reason)
	// No year on the claim: nothing to disagree with.
	c = VerifyNumeric("The city had about 980,000 residents.", facts, MatchOptions{})
	assert.Equal(t, NumericVerified, c.Status, c.Reason)
}

func TestVerifyNumericAgreement(t *testing.T) {
	facts := FactsFromText("p", "Northwind Rail carried 48.2 million passengers in 2023. Punctuality reached 91.4%.")
	tests := []struct {
		claim, status, disagree string
	}{
		{"Meridian Air carried 48.2 million passengers in 2023.", NumericUnverifiable, DisagreeEntity},
		{"Northwind Rail carried 48.2 million passengers in 2023.", NumericVerified, ""},
		// A fact in other units is skipped, not named as the nearest.
		{"Northwind Rail carried 48.2 million tonnes in 2023.", NumericUnverifiable, ""},
		{"Northwind Rail carried 48.2 million passengers in 2021.", NumericUnverifiable, DisagreeYear},
		// The entity is named in the sentence before the fact.
		{"Northwind Rail had a punctuality of 91%.", NumericVerified, ""},
	}
	for _, tt := range tests {
		c := VerifyNumeric(tt.claim, facts, MatchOptions{})
		assert.Equal(t, tt.status, c.Status, "%s: %s", tt.claim, c.Reason)
		assert.Equal(t, tt.disagree, c.Disagreement, "%s: %s", tt.claim, c.Reason)
		if tt.disagree == "" && c.Status == NumericUnverifiable {
			assert.Nil(t, c.Nearest, tt.claim)
			assert.Contains(t, c.Reason, "no fact about", tt.claim)
		}
	}
}
