package numeric

import (
	"math"
	"testing"
)

// FuzzRelate: a claim and a bound read from any two texts relate without a
// panic, and consistently: evidence that entails a claim is never read as
// contradicting it, and a value the evidence allows that satisfies the
// claim means it is not contradicted.
func FuzzRelate(f *testing.F) {
	f.Add("employed 5,000 workers", "more than 1,000 workers")
	f.Add("at least 100 beds", "fewer than 90 beds")
	f.Add("took 5–30 days", "between 10 and 20 days")
	f.Add("not more than 1,000 staff", "nearly 40%")
	f.Fuzz(func(t *testing.T, claim, evidence string) {
		cs, es := FindNumbers(claim), FindNumbers(evidence)
		if len(cs) == 0 || len(es) == 0 || !es[0].Quantity.IsInterval() {
			return
		}
		q, e := cs[0].Quantity, es[0].Quantity
		holds := func(v float64) bool { return q.HoldsFor(v, DefaultRelTol) }
		r := Relate(holds, q, e, DefaultRelTol)
		lo, hi, loOpen, hiOpen, ok := e.interval(DefaultRelTol)
		if !ok || math.IsNaN(lo) || math.IsNaN(hi) {
			return
		}
		for _, x := range []float64{lo, hi, (lo + hi) / 2} {
			in := (x > lo || !loOpen && x >= lo) && (x < hi || !hiOpen && x <= hi)
			if in && holds(x) && r == Contradicted {
				t.Fatalf("%q against %q: contradicted, but %v is allowed and satisfies the claim", claim, evidence, x)
			}
			if in && !holds(x) && r == Entailed && math.Abs(x) < huge/2 {
				t.Fatalf("%q against %q: entailed, but %v is allowed and does not satisfy the claim", claim, evidence, x)
			}
		}
	})
}
