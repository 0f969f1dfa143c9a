package numeric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The published reference implementation's numeric-policy fixture, case by
// case, in this project's terms (our own data, written from what each case
// asserts). One difference is deliberate and one parameter away: the
// reference's tolerance verifies a token without a qualifier; seed 000's
// prose requires one, which is the default here.
func TestReferencePolicyCases(t *testing.T) {
	var none PolicySet
	tests := []struct {
		name, policy, claim, token string
		verified                   bool
	}{
		{"exact", `{"type": "exact"}`, "5.7", "5.7", true},
		{"rounded to 2 places", `{"type": "rounded", "decimals": 2}`, "3.14159", "3.14", true},
		{"rounded to 1 place, wrong", `{"type": "rounded", "decimals": 1}`, "3.14159", "3.2", false},
		{"tolerance 2%, reference form (no qualifier needed)", `{"type": "tolerance", "tolerance": 0.02, "require_qualifier": false}`, "100", "102", true},
		{"tolerance 2%, seed default: a bare 102 is not approximate", `{"type": "tolerance", "tolerance": 0.02}`, "100", "102", false},
		{"tolerance 2%, qualified", `{"type": "tolerance", "tolerance": 0.02}`, "100", "about 102", true},
		{"tolerance 2%, outside", `{"type": "tolerance", "tolerance": 0.02, "require_qualifier": false}`, "100", "103", false},
		// Ratios are read as ratios on both sides.
		{"1 in 2 is a ratio, not 1", "exact", "1", "1 in 2", false},
		{"1 in 2 = 0.5", "ratio", "0.5", "1 in 2", true},
		{"1 in 2 is not 0.9", "ratio", "0.9", "1 in 2", false},
		{"3:4 = 75%", "ratio", "75%", "3:4", true},
		{"half = 1:2", "ratio", "1:2", "half", true},
	}
	for _, tt := range tests {
		p, err := none.Resolve(tt.policy, PolicyParams{})
		require.NoError(t, err, tt.name)
		d := p.Check(tt.claim, tt.token)
		assert.Equal(t, tt.verified, d.Verified, "%s: %s", tt.name, d.Reason)
	}
}

// The year policy takes a claim's year apart from its value: a tag under
// policy year checks the table's year, not the 5.7.
func TestYearPolicyUsesTheClaimsYear(t *testing.T) {
	tc, _ := readTagged(t)
	nums, errs := tc.Check(`in <claim id="clm 7ef6" policy="year">2024</claim>, not <claim id="clm 7ef6" policy="year">2023</claim>`)
	require.Empty(t, errs)
	require.Len(t, nums, 2)
	assert.Equal(t, StatusVerified, nums[0].Status, nums[0].Reason)
	assert.Equal(t, StatusFlagged, nums[1].Status, nums[1].Reason)
}
