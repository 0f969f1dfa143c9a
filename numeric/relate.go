package numeric

import "math"

// Relation is how what a claim states of a number stands to what the
// evidence states of it, when the evidence states a bound or an interval
// ("more than 1,000", "up to 5%", "between 10 and 20") rather than a value.
type Relation int

// Relations.
const (
	// Contradicted: no value the evidence allows satisfies the claim
	// ("600 workers" against "more than 1,000").
	Contradicted Relation = iota
	// Consistent: some values the evidence allows satisfy the claim and
	// some do not — consistent, not entailed ("5,000 workers" against
	// "more than 1,000").
	Consistent
	// Entailed: every value the evidence allows satisfies the claim ("more
	// than 500 workers" against "more than 1,000").
	Entailed
)

// String names a relation.
func (r Relation) String() string {
	switch r {
	case Contradicted:
		return "contradicted"
	case Consistent:
		return "consistent"
	}
	return "entailed"
}

// IsInterval says whether a quantity, read as evidence, allows a set of
// values rather than one: a bound (more than, at least, below, up to,
// nearly, between, or a negated one) or a range. "About 100" is a value.
func (q Quantity) IsInterval() bool {
	return q.Cmp.IsBound() || q.Negated || q.Kind == KindRange
}

// huge stands for an unbounded end of an interval.
const huge = 1e300

// interval is the set of values a quantity allows as evidence: [lo, hi],
// each end open or not; ok is false for what is not one interval ("not
// between 10 and 20").
func (q Quantity) interval(relTol float64) (lo, hi float64, loOpen, hiOpen, ok bool) {
	v := q.Value
	cmp := q.Cmp
	if q.Kind == KindRange || cmp == CmpBetween {
		if q.Negated {
			return 0, 0, false, false, false
		}
		return q.Lo, q.Hi, false, false, true
	}
	if q.Negated { // "not more than 100" is at most 100, and so on
		switch cmp {
		case CmpAbove:
			cmp = CmpAtMost
		case CmpAtLeast:
			cmp = CmpBelow
		case CmpBelow:
			cmp = CmpAtLeast
		case CmpAtMost:
			cmp = CmpAbove
		default:
			return 0, 0, false, false, false
		}
	}
	switch cmp {
	case CmpAbove:
		return v, huge, true, false, true
	case CmpAtLeast:
		return v, huge, false, false, true
	case CmpBelow:
		return -huge, v, false, true, true
	case CmpAtMost:
		return -huge, v, false, false, true
	case CmpNearly:
		return v - relTol*math.Abs(v), v, false, false, true
	}
	return v, v, false, false, true
}

// Relate relates a claim to evidence that states an interval
// (IsInterval): holds says whether a value satisfies the claim, under the
// numeric policy in force, and q is the claim (its value and bounds are
// where a value that satisfies it is looked for). Both the values that
// satisfy a claim and those the evidence allows are intervals, so the
// evidence entails the claim when both its ends satisfy it, and
// contradicts it when no end of either lies in the other.
func Relate(holds func(float64) bool, q, evidence Quantity, relTol float64) Relation {
	lo, hi, loOpen, hiOpen, ok := evidence.interval(relTol)
	if !ok || q.Negated && !q.Cmp.IsBound() && q.Kind != KindRange {
		// "not 100" allows two intervals: not read here
		return Consistent
	}
	loIn, hiIn := lo, hi
	if loOpen {
		loIn = lo + nudge(lo)
	}
	if hiOpen {
		hiIn = hi - nudge(hi)
	}
	if loIn > hiIn {
		return Contradicted // an empty interval allows nothing (and entails nothing)
	}
	if holds(loIn) && holds(hiIn) {
		return Entailed
	}
	inside := func(x float64) bool {
		return (x > lo || !loOpen && x >= lo) && (x < hi || !hiOpen && x <= hi)
	}
	// Points of the claim's own set: its value, its range's ends, and each
	// just beside its bound (a strict bound excludes the value itself).
	for _, x := range []float64{q.Value, q.Lo, q.Hi, q.Value + nudge(q.Value), q.Value - nudge(q.Value)} {
		if inside(x) && holds(x) {
			return Consistent
		}
	}
	// The evidence's ends that lie in the claim's set were tried above
	// (both ends failing leaves only a claim set strictly inside the
	// evidence's interval, which the claim's own points cover).
	if holds(loIn) || holds(hiIn) {
		return Consistent
	}
	return Contradicted
}

// nudge is a step past a bound that is larger than the comparisons' own
// tolerance (tiny) and far smaller than any written precision.
func nudge(v float64) float64 { return 1e-7 * math.Max(1, math.Abs(v)) }
