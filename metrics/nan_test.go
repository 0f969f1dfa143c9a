package metrics

import (
	"math"
	"testing"
)

// A NaN confidence once made the tie loops spin for ever (and the risk
// curve grow without bound): each loop must advance past it.
func TestTieLoopsAdvancePastNaN(t *testing.T) {
	nan := math.NaN()
	pts := RiskCoverageOf([]float64{0.9, nan, nan, 0.5, nan}, []bool{true, false, true, true, false})
	if len(pts) > 5 {
		t.Fatalf("%d points for 5 claims", len(pts))
	}
	outs := []Outcome{
		{Gold: Supported, Scored: true, Predicted: Supported, Logits: [3]float64{nan, 0, 0}},
		{Gold: Unsupported, Scored: true, Predicted: Supported, Logits: [3]float64{1, 0, 0}},
		{Gold: Supported, Scored: true, Predicted: Supported, Logits: [3]float64{nan, nan, nan}},
	}
	if got := RiskCoverage(outs, 1); len(got) > len(outs) {
		t.Fatalf("%d points for %d claims", len(got), len(outs))
	}
	if _, err := Bootstrap(outs, 1, BootstrapOptions{Resamples: 20, Seed: 1}); err != nil {
		t.Log(err) // an error is fine; spinning is not
	}
}
