package rules

import (
	"fmt"
	"time"
)

// stale flags a claim whose deciding document was written more than
// MaxAge before the date the claim speaks of: its as_of, else the end of
// its timeframe, else — a claim without a date — the run's date
// (Options.Today). The label stands: old evidence is a reason to look, not
// a verdict. A second flag says how old: evidence_age=<N>y (whole years),
// or <N>d under two years. Documents without created_at are never stale,
// nor undated claims when the caller gives no date.
func stale(in Input, o Options) (finding, bool) {
	p, ok := in.deciding()
	if !ok || p.Doc.CreatedAt.IsZero() {
		return finding{}, false
	}
	when := o.Today
	if tf := in.Claim.Timeframe; tf != nil && (tf.AsOf != "" || tf.End != "") {
		d := tf.AsOf
		if d == "" {
			d = tf.End
		}
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return finding{}, false
		}
		when = t
	}
	if when.IsZero() {
		return finding{}, false
	}
	age := when.Sub(p.Doc.CreatedAt)
	if age <= o.MaxAge {
		return finding{}, false
	}
	return finding{flags: []string{FlagStale, EvidenceAgeFlag(age)}}, true
}

// EvidenceAgeFlag is the flag that says how old the deciding evidence is:
// evidence_age=<N>y in whole years, or <N>d under two years.
func EvidenceAgeFlag(age time.Duration) string {
	days := int(age.Hours() / 24)
	if days >= 730 {
		return fmt.Sprintf("%s%dy", FlagEvidenceAge, days*100/36524)
	}
	return fmt.Sprintf("%s%dd", FlagEvidenceAge, days)
}
