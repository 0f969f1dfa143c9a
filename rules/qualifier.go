package rules

import (
	"strconv"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

// qualifier: seed 003's "supported ... under the same qualifiers" and
// "incomplete, ambiguous or underspecified → insufficient". The claim's
// normalised entities, the words of its location, population and
// condition, and the years of its timeframe (start to end; as_of is when
// the claim was made, not what the evidence must state) must be in the
// deciding passage — or, when it lacks one, in some other retrieved
// passage that holds them all. When none does:
//
//   - a qualifier the passage does not address at all (no word of the
//     place, no year when the claim has a timeframe): the passage says less
//     than the claim, so it can neither entail nor contradict it — a
//     supported or unsupported label becomes insufficient, flag
//     qualifier_missing;
//   - only the timeframe, and the passage names other years: it speaks of
//     another time — supported becomes insufficient, flag
//     qualifier_differs; unsupported stands (another year's fact can
//     exclude the claim's: seed 003's mutually exclusive facts).
//
// A negative claim the verifier calls supported on a passage with no
// negation is unsupported (flag polarity): the passage states the positive.
func qualifier(in Input, _ Options) (finding, bool) {
	p, ok := in.deciding()
	if !ok {
		return finding{}, false
	}
	// The flags do not depend on the label (a shard's records are
	// re-decided from them); the labels do.
	c := in.Claim
	if gap := in.missing(p.Text); gap != qualifierHeld && !in.anyHolds() {
		if gap == qualifierOtherYear {
			return finding{label: pick(in.Label == label.Supported, label.Insufficient), flags: []string{FlagQualifierDiffers}}, true
		}
		decided := in.Label == label.Supported || in.Label == label.Unsupported
		return finding{label: pick(decided, label.Insufficient), flags: []string{FlagQualifierMissing}}, true
	}
	if c.Polarity == "negative" && !negated(p.Text) {
		return finding{label: pick(in.Label == label.Supported, label.Unsupported), flags: []string{FlagPolarity}}, true
	}
	return finding{}, false
}

// What a passage leaves out of the claim's qualifiers.
type qualifierGap int

const (
	qualifierHeld      qualifierGap = iota // it holds them all
	qualifierMissing                       // it does not address one
	qualifierOtherYear                     // it holds all but the timeframe, and names other years
)

// missing says what a passage leaves out of the claim's qualifiers.
func (in Input) missing(text string) qualifierGap {
	c := in.Claim
	for _, e := range c.Normalization.Entities {
		if !in.contains(text, e) {
			return qualifierMissing
		}
	}
	if in.qualifierAbsent(text) {
		return qualifierMissing
	}
	if lo, hi, ok := timeframeYears(c.Timeframe); ok {
		ys := in.yearsIn(text)
		for _, y := range ys {
			if y >= lo && y <= hi {
				return qualifierHeld
			}
		}
		if len(ys) > 0 {
			return qualifierOtherYear
		}
		return qualifierMissing
	}
	return qualifierHeld
}

// timeframeYears is the span of years a timeframe covers: start to end,
// or the one of them given. as_of is when the claim was made, not a time
// the claim speaks of: it spans nothing here.
func timeframeYears(tf *claims.Timeframe) (lo, hi int, ok bool) {
	if tf == nil {
		return 0, 0, false
	}
	year := func(d string) (int, bool) {
		if len(d) < 4 {
			return 0, false
		}
		y, err := strconv.Atoi(d[:4])
		return y, err == nil
	}
	s, okS := year(tf.Start)
	e, okE := year(tf.End)
	switch {
	case okS && okE:
		return s, e, true
	case okS:
		return s, s, true
	case okE:
		return e, e, true
	}
	return 0, 0, false
}

// anyHolds says whether some retrieved passage names all the claim's
// qualifiers.
func (in Input) anyHolds() bool {
	for _, p := range in.Passages {
		if in.missing(p.Text) == qualifierHeld {
			return true
		}
	}
	return false
}

// pick is l when ok, None otherwise.
func pick(ok bool, l label.Label) label.Label {
	if ok {
		return l
	}
	return label.None
}
