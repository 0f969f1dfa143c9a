package adjudicate_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckLogits(t *testing.T) {
	ok := [][3]float64{{0, 0, 0}, {-12.5, 3, 40}, {adjudicate.MaxLogit, -adjudicate.MaxLogit, 0}}
	for _, z := range ok {
		assert.NoError(t, adjudicate.CheckLogits(z), "%v", z)
	}
	bad := []struct {
		z    [3]float64
		kind error
	}{
		{[3]float64{math.NaN(), 0, 0}, adjudicate.ErrNonFiniteLogits},
		{[3]float64{0, math.Inf(1), 0}, adjudicate.ErrNonFiniteLogits},
		{[3]float64{0, 0, math.Inf(-1)}, adjudicate.ErrNonFiniteLogits},
		{[3]float64{1e300, -1e300, 0}, adjudicate.ErrLogitOutOfRange}, // issue 24 case 1 (FP64)
		{[3]float64{0, 1e7, 0}, adjudicate.ErrLogitOutOfRange},
	}
	for _, c := range bad {
		err := adjudicate.CheckLogits(c.z)
		require.Error(t, err, "%v", c.z)
		assert.ErrorIs(t, err, adjudicate.ErrInvalidLogits)
		assert.ErrorIs(t, err, c.kind)
		for _, other := range []error{adjudicate.ErrNonFiniteLogits, adjudicate.ErrLogitOutOfRange, adjudicate.ErrPositiveLogprob} {
			if other != c.kind {
				assert.False(t, errors.Is(err, other), "%v is one kind only", c.z)
			}
		}
	}
}

func TestCheckLogprob(t *testing.T) {
	v, err := adjudicate.CheckLogprob(-0.25)
	assert.NoError(t, err)
	assert.Equal(t, -0.25, v)
	v, err = adjudicate.CheckLogprob(3e-7) // float32 rounding of a certain token
	assert.NoError(t, err)
	assert.Equal(t, 0.0, v)
	for lp, kind := range map[float64]error{
		50:           adjudicate.ErrPositiveLogprob, // issue 24 case 26: not e^50
		1e308:        adjudicate.ErrPositiveLogprob, // case 15
		math.Inf(1):  adjudicate.ErrNonFiniteLogits,
		math.NaN():   adjudicate.ErrNonFiniteLogits,
		math.Inf(-1): adjudicate.ErrNonFiniteLogits,
		-1e300:       adjudicate.ErrLogitOutOfRange,
	} {
		_, err := adjudicate.CheckLogprob(lp)
		assert.ErrorIs(t, err, adjudicate.ErrInvalidLogits, "%v", lp)
		assert.ErrorIs(t, err, kind, "%v", lp)
	}
}

// One pair whose logits overflow fails its claim: it is never skipped in
// favour of the claim's other passages, and a claim whose only pair
// overflows never becomes "no evidence" with p = 1/3 (issue 24 case 1).
func TestStrongestFailsAClaimWithAnyInvalidPair(t *testing.T) {
	batch := []adjudicate.Pair{
		{ClaimID: "a", Passages: []adjudicate.Passage{{ID: "p0"}, {ID: "p1"}}},
		{ClaimID: "b", Passages: []adjudicate.Passage{{ID: "q0"}}},
		{ClaimID: "c"},
	}
	pairs := []adjudicate.PairIndex{{0, 0}, {0, 1}, {1, 0}, {2, 0}}
	inf := math.Inf(1)
	logits := [][3]float64{{3, 0, 0}, {inf, math.Inf(-1), 0}, {0, 2, 0}, {math.NaN(), 0, 0}}
	out := adjudicate.Strongest(batch, pairs, logits, adjudicate.EvidenceEitherWay)
	require.Len(t, out, 3)
	assert.ErrorIs(t, out[0].Err, adjudicate.ErrNonFiniteLogits)
	assert.Contains(t, out[0].Err.Error(), "passage 1")
	assert.Equal(t, -1, out[0].Passage)
	assert.NoError(t, out[1].Err)
	assert.Equal(t, [3]float64{0, 2, 0}, out[1].Logits)
	assert.ErrorIs(t, out[2].Err, adjudicate.ErrInvalidLogits)
}

// badAt answers fixed logits, with some claims' verdicts broken.
type badAt struct{ bad map[string]adjudicate.Verdict }

func (b badAt) Verify(_ context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(batch))
	for i, p := range batch {
		out[i] = adjudicate.Verdict{Logits: [3]float64{1, 0, 0}, Passage: -1, Rationale: "fine"}
		if v, ok := b.bad[p.ClaimID]; ok {
			out[i] = v
		}
	}
	return out, nil
}

// The scheduler checks every verdict: an invalid one is that claim's error
// (matching the kind), carries no logits (so nothing non-finite reaches a
// spool or a cache), and the batch's other claims are unaffected.
func TestSchedulerChecksEveryVerdict(t *testing.T) {
	pairs := many(6)
	v := badAt{bad: map[string]adjudicate.Verdict{
		pairs[1].ClaimID: {Logits: [3]float64{1e300, -1e300, 0}},
		pairs[2].ClaimID: {Logits: [3]float64{math.Inf(1), 0, 0}, Rationale: "+Inf"},
		pairs[4].ClaimID: {Err: &adjudicate.LogitsError{Kind: adjudicate.ErrPositiveLogprob, Values: []float64{50}, What: "logprob"}},
	}}
	rs := collect(t, v, pairs, adjudicate.SchedulerOptions{BatchSize: 6, Backoff: -1})
	kinds := map[int]error{1: adjudicate.ErrLogitOutOfRange, 2: adjudicate.ErrNonFiniteLogits, 4: adjudicate.ErrPositiveLogprob}
	for i, r := range rs {
		if kind, bad := kinds[i]; bad {
			assert.ErrorIs(t, r.Err, adjudicate.ErrInvalidLogits, "claim %d", i)
			assert.ErrorIs(t, r.Err, kind, "claim %d", i)
			assert.Contains(t, r.Err.Error(), pairs[i].ClaimID)
			assert.Equal(t, adjudicate.Verdict{Passage: -1}, r.Verdict, "nothing of a failed verdict travels on")
			continue
		}
		assert.NoError(t, r.Err, "claim %d", i)
		assert.Equal(t, "fine", r.Verdict.Rationale)
	}
}
