package adjudicate_test

import (
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/stretchr/testify/assert"
)

func TestStrongestPicksTheStrongestEvidenceEitherWay(t *testing.T) {
	batch := []adjudicate.Pair{
		{ClaimID: "a", Passages: []adjudicate.Passage{{ID: "p0"}, {ID: "p1"}, {ID: "p2"}}},
		{ClaimID: "b"}, // no passages: scored once against nothing
	}
	pairs := []adjudicate.PairIndex{{0, 0}, {0, 1}, {0, 2}, {1, 0}}
	logits := [][3]float64{
		{1, 0, 0}, // weak support
		{0, 3, 0}, // strong refutation: decides claim a
		{0, 0, 5}, // confident neutral: no evidence either way
		{2, 0, 0},
	}
	out := adjudicate.Strongest(batch, pairs, logits, adjudicate.EvidenceEitherWay)
	assert.Equal(t, 1, out[0].Passage)
	assert.Equal(t, logits[1], out[0].Logits, "the deciding pair's raw logits")
	assert.Equal(t, -1, out[1].Passage, "a claim without passages has no deciding passage")
	assert.Equal(t, logits[3], out[1].Logits)

	supportOnly := func(p [3]float64) float64 { return p[adjudicate.Supported] }
	out = adjudicate.Strongest(batch, pairs, logits, supportOnly)
	assert.Equal(t, 0, out[0].Passage, "the strength function decides")

	tied := [][3]float64{{0, 2, 0}, {0, 2, 0}, {0, 2, 0}, {0, 0, 0}}
	assert.Equal(t, 0, adjudicate.Strongest(batch, pairs, tied, adjudicate.EvidenceEitherWay)[0].Passage, "ties go to the first pair")
}

func TestProbabilities(t *testing.T) {
	p := adjudicate.Probabilities([3]float64{1000, 1000, -1000})
	assert.InDelta(t, 0.5, p[0], 1e-12, "stable for large logits")
	assert.InDelta(t, 0.5, p[1], 1e-12)
	assert.InDelta(t, 0, p[2], 1e-12)
}
