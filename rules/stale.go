package rules

import (
	"time"
)

// stale flags a claim whose deciding document was written more than
// MaxAge before the date the claim speaks of: its as_of, else the end of
// its timeframe. The label stands: old evidence is a reason to look, not a
// verdict. Documents without created_at, and claims without a date, are
// never stale.
func stale(in Input, o Options) (finding, bool) {
	p, ok := in.deciding()
	if !ok || p.Doc.CreatedAt.IsZero() || in.Claim.Timeframe == nil {
		return finding{}, false
	}
	when := in.Claim.Timeframe.AsOf
	if when == "" {
		when = in.Claim.Timeframe.End
	}
	t, err := time.Parse(time.DateOnly, when)
	if err != nil || t.Sub(p.Doc.CreatedAt) <= o.MaxAge {
		return finding{}, false
	}
	return finding{flags: []string{FlagStale}}, true
}
