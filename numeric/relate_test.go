package numeric

import "testing"

// Bounds in the evidence are read as the set of values they allow: a
// claim is entailed when every one satisfies it, contradicted when none
// does, and otherwise consistent but not entailed.
func TestRelate(t *testing.T) {
	q := func(s string) Quantity {
		t.Helper()
		ms := FindNumbers(s)
		if len(ms) == 0 {
			t.Fatalf("no number in %q", s)
		}
		return ms[0].Quantity
	}
	for _, tc := range []struct {
		claim, evidence string
		want            Relation
	}{
		{"employed 5,000 workers", "employed more than 1,000 workers", Consistent},
		{"employed 1,200 workers", "employed more than 1,000 workers", Consistent},
		{"employed 600 workers", "employed more than 1,000 workers", Contradicted},
		{"employed more than 500 workers", "employed more than 1,000 workers", Entailed},
		{"employed at least 1,000 workers", "employed more than 1,000 workers", Entailed},
		{"employed more than 2,000 workers", "employed more than 1,000 workers", Consistent},
		{"employed fewer than 800 workers", "employed more than 1,000 workers", Contradicted},
		{"costs 40 dollars", "costs up to 30 dollars", Contradicted},
		{"costs 20 dollars", "costs up to 30 dollars", Consistent},
		{"costs under 50 dollars", "costs up to 30 dollars", Entailed},
		{"took 15 days", "took between 10 and 20 days", Consistent},
		{"took 25 days", "took between 10 and 20 days", Contradicted},
		{"took 5–30 days", "took between 10 and 20 days", Entailed},
		{"reached 30%", "reached nearly 40%", Contradicted},
		// 39% is within 5% of every value in [38%, 40%]: entailed under
		// the tolerance.
		{"reached 39%", "reached nearly 40%", Entailed},
		{"reached 45%", "reached nearly 40%", Contradicted},
		{"at least 100 beds", "fewer than 90 beds", Contradicted},
		{"not more than 1,000 staff", "fewer than 800 staff", Entailed},
		{"at most 2,000 staff", "not more than 1,500 staff", Entailed},
	} {
		c, e := q(tc.claim), q(tc.evidence)
		if !e.IsInterval() {
			t.Fatalf("%q is not read as a bound", tc.evidence)
		}
		holds := func(v float64) bool { return c.HoldsFor(v, DefaultRelTol) }
		if got := Relate(holds, c, e, DefaultRelTol); got != tc.want {
			t.Errorf("%q against %q: %s, want %s", tc.claim, tc.evidence, got, tc.want)
		}
	}
	// A value in the evidence is not an interval: Relate is not for it.
	if q("about 1,000 workers").IsInterval() || q("1,000 workers").IsInterval() {
		t.Error("a value (bare or about) read as an interval")
	}
}
