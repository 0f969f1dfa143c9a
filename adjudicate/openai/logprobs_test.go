package openai

import (
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24 cases 15 and 26: a log-probability above 0 (+50, 1e308) is not a
// probability e^50 nor an infinite logit: the claim's verdict carries an
// error matching ErrInvalidLogits and ErrPositiveLogprob (the scheduler
// makes it that claim's error; Verify itself succeeds, so the batch's other
// claims are unaffected).
func TestPositiveLogprobIsAClaimError(t *testing.T) {
	for _, lp := range []float64{50, 1e308} {
		vd, err := judgeWith(t, remotetest.Answer{Content: `{"label": "supported", "passage": 1}`,
			LabelTop: []remotetest.TopLogprob{{Token: "supported", Logprob: lp}, {Token: "uns", Logprob: -2.5}}},
			Options{Logprobs: true})
		require.NoError(t, err, "%v", lp)
		assert.ErrorIs(t, vd.Err, adjudicate.ErrInvalidLogits, "%v", lp)
		assert.ErrorIs(t, vd.Err, adjudicate.ErrPositiveLogprob, "%v", lp)
		assert.Equal(t, [3]float64{}, vd.Logits)
	}
	// A logprob that rounds a hair above 0 is a certain token.
	vd, err := judgeWith(t, remotetest.Answer{Content: `{"label": "supported", "passage": 1}`,
		LabelTop: []remotetest.TopLogprob{{Token: "supported", Logprob: 2e-7}}}, Options{Logprobs: true})
	require.NoError(t, err)
	require.NoError(t, vd.Err)
	assert.Equal(t, 0.0, vd.Logits[adjudicate.Supported])
}
