package rules

import (
	"math"

	"github.com/claimaudit/claimaudit/label"
)

// underspecified: seed 003's "the claim is underspecified (missing
// timeframe ...) and cannot be safely resolved". A claim that states a
// number but no year (neither a timeframe nor a year in its text), whose
// retrieved passages give the same quantity different values for different
// years, is insufficient: which year it means decides its truth.
func underspecified(in Input, _ Options) (finding, bool) {
	c := in.Claim
	if c.Timeframe != nil || len(in.claimYears()) > 0 || !in.hasNumber() {
		return finding{}, false
	}
	byYear := map[int]float64{}
	for _, p := range in.Passages {
		for _, f := range p.Facts {
			if len(f.Years) != 1 || float64(f.Years[0]) == f.Value || !in.sameQuantity(f) || !aboutSubject(in, f.Context, f.Description) {
				continue
			}
			byYear[f.Years[0]] = f.Value
		}
	}
	first, set := 0.0, false
	for _, v := range byYear {
		if !set {
			first, set = v, true
			continue
		}
		if math.Abs(v-first) > 0.005*math.Max(math.Abs(v), math.Abs(first)) {
			return finding{label: label.Insufficient, flags: []string{FlagUnderspecified}}, true
		}
	}
	return finding{}, false
}

// aboutSubject says whether a fact's context names the claim's subject
// (its normalised entities, else its subject field); true when the claim
// names none.
func aboutSubject(in Input, context, description string) bool {
	names := in.Claim.Normalization.Entities
	if len(names) == 0 && in.Claim.Subject != "" {
		names = []string{in.Claim.Subject}
	}
	if context == "" {
		context = description
	}
	for _, n := range names {
		if !in.contains(context, n) {
			return false
		}
	}
	return true
}
