package audit

import (
	"testing"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
)

// A verifier is degenerate when one of its own labels covers at least 99%
// of at least 100 answered claims; abstained and unscored claims do not
// count, and any label can be the one.
func TestDegenerateVerifier(t *testing.T) {
	mk := func(label metrics.Class, same, other, abstained int) []metrics.Score {
		var s []metrics.Score
		for i := 0; i < same+other; i++ {
			p := label
			if i >= same {
				p = (label + 1) % 3
			}
			s = append(s, metrics.Score{Scored: true, Predicted: p})
		}
		for i := 0; i < abstained; i++ {
			s = append(s, metrics.Score{Scored: true, Abstained: true, Predicted: (label + 2) % 3})
		}
		return s
	}
	l, n, answered, deg := degenerateVerifier(mk(metrics.Insufficient, 99, 1, 50))
	assert.True(t, deg)
	assert.Equal(t, "insufficient", l)
	assert.Equal(t, [2]int{99, 100}, [2]int{n, answered}, "the abstained claims are not counted")
	_, _, _, deg = degenerateVerifier(mk(metrics.Supported, 98, 2, 0))
	assert.False(t, deg, "98% is not degenerate")
	_, _, _, deg = degenerateVerifier(mk(metrics.Unsupported, 99, 0, 0))
	assert.False(t, deg, "fewer than 100 answered claims say nothing")
	l, _, _, deg = degenerateVerifier(mk(metrics.Unsupported, 1000, 5, 0))
	assert.True(t, deg)
	assert.Equal(t, "unsupported", l)
	_, _, _, deg = degenerateVerifier(nil)
	assert.False(t, deg)
}

// Under --weak-retrieval insufficient a weak-retrieval abstention becomes
// an insufficient label decided by weak_retrieval; other abstentions and
// the default policy leave the decision alone; a shard's such record keeps
// its label when re-decided.
func TestWithWeakRetrieval(t *testing.T) {
	o := &Options{WeakRetrieval: WeakRetrievalInsufficient}
	d := o.withWeakRetrieval(decision{reason: ReasonWeakRetrieval, scored: true, pred: metrics.Supported})
	assert.Equal(t, "", d.reason)
	assert.Equal(t, metrics.Insufficient, d.pred)
	assert.Equal(t, DecidedByWeakRetrieval, d.rule)
	assert.Equal(t, []string{FlagWeakRetrieval}, d.flags)
	d = o.withWeakRetrieval(decision{reason: ReasonNoEvidence})
	assert.Equal(t, ReasonNoEvidence, d.reason)
	d = (&Options{}).withWeakRetrieval(decision{reason: ReasonWeakRetrieval})
	assert.Equal(t, ReasonWeakRetrieval, d.reason, "abstain is the default")

	by := DecidedByWeakRetrieval
	out := o.redecide(reports.Record{DecidedBy: &by, Evidence: []reports.Evidence{{}}}, metrics.Outcome{Scored: true, Logits: [3]float64{5, 0, 0}}, 1)
	assert.False(t, out.Abstained)
	assert.Equal(t, metrics.Insufficient, out.Predicted)
}
