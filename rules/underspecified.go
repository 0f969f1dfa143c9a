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
	if _, _, dated := timeframeYears(c.Timeframe); dated || len(in.claimYears()) > 0 || !in.hasNumber() {
		return finding{}, false
	}
	// The values of the same quantity by year: the claim is
	// underspecified when two years' values differ by more than 0.5% —
	// read as the smallest against the largest, so the answer does not
	// depend on the order the years are visited in.
	lo, hi, years := math.Inf(1), math.Inf(-1), map[int]bool{}
	for _, p := range in.Passages {
		for _, f := range p.Facts {
			if len(f.Years) != 1 || float64(f.Years[0]) == f.Value || !in.sameQuantity(f) || !in.factAboutEntity(&f) {
				continue
			}
			years[f.Years[0]] = true
			lo, hi = min(lo, f.Value), max(hi, f.Value)
		}
	}
	if len(years) >= 2 && hi-lo > 0.005*math.Max(math.Abs(hi), math.Abs(lo)) {
		return finding{label: label.Insufficient, flags: []string{FlagUnderspecified}}, true
	}
	return finding{}, false
}
