package rules

import (
	"strconv"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

// qualifier: seed 003's "supported ... under the same qualifiers". A
// claim the verifier calls supported must have its normalised entities,
// the years of its timeframe, and the words of its location, population
// and condition in the deciding passage; one missing there, and no other
// retrieved passage holding them all, makes it insufficient (the evidence
// is about something else, or says less). A negative claim the verifier
// calls supported on a passage with no negation is unsupported: the
// passage states the positive. Claims without these fields, and labels
// other than supported, are left alone: a passage about another year can
// still contradict (seed 003's mutually exclusive facts).
func qualifier(in Input, _ Options) (finding, bool) {
	p, ok := in.deciding()
	if !ok {
		return finding{}, false
	}
	// The flags do not depend on the label (a shard's records are
	// re-decided from them); the label applies to supported alone.
	c := in.Claim
	supported := in.Label == label.Supported
	if in.missing(p.Text) && !in.anyHolds() {
		return finding{label: pick(supported, label.Insufficient), flags: []string{FlagQualifierMissing}}, true
	}
	if c.Polarity == "negative" && !negated(p.Text) {
		return finding{label: pick(supported, label.Unsupported), flags: []string{FlagPolarity}}, true
	}
	return finding{}, false
}

// missing says whether a passage leaves out one of the claim's qualifiers.
func (in Input) missing(text string) bool {
	c := in.Claim
	for _, e := range c.Normalization.Entities {
		if !in.contains(text, e) {
			return true
		}
	}
	for _, q := range []string{c.Qualifiers.Location, c.Qualifiers.Population, c.Qualifiers.Condition} {
		for _, w := range contentWords(q) {
			if !in.contains(text, w) {
				return true
			}
		}
	}
	if lo, hi, ok := timeframeYears(c.Timeframe); ok {
		for _, y := range in.yearsIn(text) {
			if y >= lo && y <= hi {
				return false
			}
		}
		return true
	}
	return false
}

// timeframeYears is the span of years a timeframe covers: start to end,
// or the as-of year alone.
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
	if a, okA := year(tf.AsOf); okA {
		return a, a, true
	}
	return 0, 0, false
}

// anyHolds says whether some retrieved passage names all the claim's
// qualifiers.
func (in Input) anyHolds() bool {
	for _, p := range in.Passages {
		if !in.missing(p.Text) {
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
