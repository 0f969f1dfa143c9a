package audit

import (
	"encoding/json"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/reports"
)

// recordClaimFields writes what the claim says — subject, predicate,
// object, qualifiers, timeframe, modality, polarity, normalization — as
// the claims file gave it: a field the claim does not give is null, an
// object with nothing in it is null.
func recordClaimFields(rec *reports.Record, c *claims.Claim) {
	rec.Subject, rec.Predicate, rec.Object = nonEmpty(c.Subject), nonEmpty(c.Predicate), nonEmpty(c.Object)
	rec.Modality, rec.Polarity = nonEmpty(c.Modality), nonEmpty(c.Polarity)
	if q := c.Qualifiers; q != (claims.Qualifiers{}) {
		rq := &reports.ClaimQualifiers{Unit: nonEmpty(q.Unit), Location: nonEmpty(q.Location),
			Population: nonEmpty(q.Population), Condition: nonEmpty(q.Condition)}
		rq.Quantity, rq.QuantityValue = scalarColumns(q.Quantity)
		rec.Qualifiers = rq
	}
	if tf := c.Timeframe; tf != nil && *tf != (claims.Timeframe{}) {
		rec.Timeframe = &reports.ClaimTimeframe{Start: nonEmpty(tf.Start), End: nonEmpty(tf.End), AsOf: nonEmpty(tf.AsOf)}
	}
	if n := c.Normalization; len(n.Entities) > 0 || n.Value != nil || n.PredicateCanonical != "" {
		rn := &reports.ClaimNormalization{Entities: n.Entities, PredicateCanonical: nonEmpty(n.PredicateCanonical)}
		rn.Value, rn.ValueNum = scalarColumns(n.Value)
		rec.Normalization = rn
	}
}

// scalarColumns is a string-or-number as its text (a number as JSON
// writes it) and, when it is a
// number, its value.
func scalarColumns(s *claims.Scalar) (*string, *float64) {
	switch {
	case s == nil:
		return nil, nil
	case s.IsNum:
		b, _ := json.Marshal(s.Num) // as JSON writes it: 48200000, not 4.82e+07
		return ptr(string(b)), ptr(s.Num)
	}
	return ptr(s.Str), nil
}

// nonEmpty is s, or null when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
