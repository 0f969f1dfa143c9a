package numeric

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Policy names (seed 000).
const (
	PolicyExact     = "exact"
	PolicyRounded   = "rounded"
	PolicyAbbr      = "abbr"
	PolicyTolerance = "tolerance"
	PolicyPercent   = "percent"
	PolicyRange     = "range"
	PolicyRatio     = "ratio"
	PolicyYear      = "year"
	PolicyAuto      = "auto"
)

// Policies lists every policy name, for help text and validation.
var Policies = []string{PolicyExact, PolicyRounded, PolicyAbbr, PolicyTolerance, PolicyPercent, PolicyRange, PolicyRatio, PolicyYear, PolicyAuto}

// PolicyParams tune a policy. Zero values take the defaults noted.
type PolicyParams struct {
	Decimals   int      // rounded: decimal places d (default 0); -1 in auto: the token's own
	AbsTol     float64  // tolerance: absolute δ (default 0)
	RelTol     float64  // tolerance: relative ρ (default 0.05, seed 001's 5%)
	Qualifiers []string // tolerance: qualifier set Q (default approxQualifiers)
}

// DefaultRelTol is seed 001's default relative tolerance.
const DefaultRelTol = 0.05

// Decision is the outcome of checking a token against a claimed value.
type Decision struct {
	Verified bool   `json:"verified"`
	Policy   string `json:"policy"` // the policy applied; auto names what it chose, e.g. "auto:abbr"
	Reason   string `json:"reason"`
}

// Equal compares floats with a relative epsilon, so 0.1+0.2 equals 0.3 but
// 5.7 does not equal 5.71.
func Equal(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// RoundTo rounds v to d decimal places (half away from zero).
func RoundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// FormatNumber writes a plain number as FormatQuantity does.
func FormatNumber(v float64) string { return FormatQuantity(Quantity{Kind: KindNumber, Value: v}) }

// Check decides whether the numeric token verifies the claimed value under
// policy p. It fails closed: a token or claim that does not parse, or that
// cannot be compared under p, is unverified with a reason.
func Check(policy string, params PolicyParams, claim, token string) Decision {
	c, err := ParseQuantity(claim)
	if err != nil {
		return Decision{Policy: policy, Reason: fmt.Sprintf("claim value does not parse: %v", err)}
	}
	t, err := ParseQuantity(token)
	if err != nil {
		return Decision{Policy: policy, Reason: fmt.Sprintf("token does not parse: %v", err)}
	}
	return CheckQuantity(policy, params, c, t)
}

// CheckQuantity is Check on parsed quantities.
func CheckQuantity(policy string, params PolicyParams, c, t Quantity) Decision {
	d := Decision{Policy: policy}
	verdict := func(ok bool, format string, args ...any) Decision {
		d.Verified, d.Reason = ok, fmt.Sprintf(format, args...)
		return d
	}
	// Normalise the token into the claim's unit where a conversion exists.
	tv, cv := t.Value, c.Value
	if ts, ok := unitSeconds[t.Unit]; ok {
		if cs, ok := unitSeconds[c.Unit]; ok {
			tv = t.Value * ts / cs
		}
	}
	unitsClash := t.Unit != "" && c.Unit != "" && t.Unit != c.Unit && !(isTime(t.Unit) && isTime(c.Unit)) &&
		!(t.Kind == KindYear || c.Kind == KindYear || t.Kind == KindDate || c.Kind == KindDate)

	// A token that states a bound ("more than 104", "up to 5%", "not over
	// 10") is verified when the claimed value satisfies the bound — never
	// by being within a tolerance of it. Policies that compare values
	// exactly do not accept a bound.
	if t.Cmp.IsBound() || t.Negated {
		switch policy {
		case PolicyTolerance, PolicyRange:
			if unitsClash {
				return verdict(false, "unit %q differs from the claim's %q", t.Unit, c.Unit)
			}
			if c.Kind == KindRange {
				return verdict(false, "a bound cannot be checked against a claimed range")
			}
			b := t
			if b.Kind != KindRange {
				b.Value = tv
			}
			rel := params.RelTol
			if rel == 0 {
				rel = DefaultRelTol
			}
			ok, why := b.Holds(cv, rel)
			return verdict(ok, "%s (the token says %q)", why, strings.TrimSpace(t.Text))
		case PolicyExact, PolicyRounded, PolicyAbbr, PolicyPercent, PolicyRatio, PolicyYear:
			return verdict(false, "the token states a bound (%q); policy %s compares values: use tolerance, range or auto", t.Qualifier, policy)
		}
	}

	switch policy {
	case PolicyExact:
		if unitsClash {
			return verdict(false, "unit %q differs from the claim's %q", t.Unit, c.Unit)
		}
		if t.Kind == KindRange || c.Kind == KindRange {
			return verdict(false, "a range needs policy range")
		}
		if t.Scale != c.Scale && t.Scale != 1 {
			return verdict(false, "token is written with a scale alias (×%s); that needs policy abbr", FormatNumber(t.Scale))
		}
		if Equal(tv, cv) {
			return verdict(true, "%s equals %s", FormatNumber(tv), FormatNumber(cv))
		}
		return verdict(false, "%s differs from %s", FormatNumber(tv), FormatNumber(cv))

	case PolicyRounded:
		if unitsClash {
			return verdict(false, "unit %q differs from the claim's %q", t.Unit, c.Unit)
		}
		dec := params.Decimals
		if dec < 0 {
			dec = t.Decimals
		}
		rt, rc := RoundTo(tv, dec), RoundTo(cv, dec)
		if Equal(rt, rc) {
			return verdict(true, "round_%d(%s) = round_%d(%s) = %s", dec, FormatNumber(tv), dec, FormatNumber(cv), FormatNumber(rc))
		}
		return verdict(false, "round_%d(%s) = %s differs from round_%d(%s) = %s", dec, FormatNumber(tv), FormatNumber(rt), dec, FormatNumber(cv), FormatNumber(rc))

	case PolicyAbbr:
		if unitsClash {
			return verdict(false, "unit %q differs from the claim's %q", t.Unit, c.Unit)
		}
		if Equal(tv, cv) {
			if t.Scale != 1 {
				return verdict(true, "%s × %s = %s", FormatNumber(t.Payload), FormatNumber(t.Scale), FormatNumber(cv))
			}
			return verdict(true, "%s equals %s", FormatNumber(tv), FormatNumber(cv))
		}
		return verdict(false, "%s (as written: %s) differs from %s", FormatNumber(tv), strings.TrimSpace(t.Text), FormatNumber(cv))

	case PolicyTolerance:
		if unitsClash {
			return verdict(false, "unit %q differs from the claim's %q", t.Unit, c.Unit)
		}
		q := params.Qualifiers
		if len(q) == 0 {
			q = approxQualifiers
		}
		if t.Qualifier == "" || !slices.Contains(q, t.Qualifier) {
			return verdict(false, "token carries no qualifier of approximation (%s)", strings.Join(q[:min(4, len(q))], ", ")+", ...")
		}
		rel := params.RelTol
		if rel == 0 && params.AbsTol == 0 {
			rel = DefaultRelTol
		}
		tol := math.Max(params.AbsTol, rel*math.Abs(cv))
		if math.Abs(tv-cv) <= tol+1e-12 {
			return verdict(true, "|%s − %s| <= %s and qualified by %q", FormatNumber(tv), FormatNumber(cv), FormatNumber(tol), t.Qualifier)
		}
		return verdict(false, "|%s − %s| exceeds the tolerance %s", FormatNumber(tv), FormatNumber(cv), FormatNumber(tol))

	case PolicyPercent:
		if (t.Unit != "" && t.Unit != "%") || (c.Unit != "" && c.Unit != "%") {
			return verdict(false, "not a percentage or fraction (units %q, %q)", t.Unit, c.Unit)
		}
		tp, cp := asPercent(t), asPercent(c)
		if Equal(tp, cp) {
			return verdict(true, "%s%% equals %s%%", FormatNumber(tp), FormatNumber(cp))
		}
		return verdict(false, "%s%% differs from %s%%", FormatNumber(tp), FormatNumber(cp))

	case PolicyRange:
		switch {
		case unitsClash:
			return verdict(false, "unit %q differs from the claim's %q", t.Unit, c.Unit)
		case t.Kind == KindRange && c.Kind == KindRange:
			if t.Lo >= c.Lo-1e-12 && t.Hi <= c.Hi+1e-12 {
				return verdict(true, "[%s, %s] lies within [%s, %s]", FormatNumber(t.Lo), FormatNumber(t.Hi), FormatNumber(c.Lo), FormatNumber(c.Hi))
			}
			return verdict(false, "[%s, %s] is not within [%s, %s]", FormatNumber(t.Lo), FormatNumber(t.Hi), FormatNumber(c.Lo), FormatNumber(c.Hi))
		case t.Kind == KindRange:
			if cv >= t.Lo && cv <= t.Hi {
				return verdict(true, "%s lies in [%s, %s]", FormatNumber(cv), FormatNumber(t.Lo), FormatNumber(t.Hi))
			}
			return verdict(false, "%s lies outside [%s, %s]", FormatNumber(cv), FormatNumber(t.Lo), FormatNumber(t.Hi))
		case c.Kind == KindRange:
			if tv >= c.Lo && tv <= c.Hi {
				return verdict(true, "%s lies in the claimed range [%s, %s]", FormatNumber(tv), FormatNumber(c.Lo), FormatNumber(c.Hi))
			}
			return verdict(false, "%s lies outside the claimed range [%s, %s]", FormatNumber(tv), FormatNumber(c.Lo), FormatNumber(c.Hi))
		}
		return verdict(false, "neither value is a range")

	case PolicyRatio:
		tf, cf := asFraction(t), asFraction(c)
		// Compare at the precision of the less precise side as written.
		dec := 12
		for _, q := range []Quantity{t, c} {
			if q.Kind != KindRatio {
				dd := q.Decimals
				if q.Kind == KindPercent {
					dd += 2
				}
				dec = min(dec, dd)
			}
		}
		if Equal(RoundTo(tf, dec), RoundTo(cf, dec)) {
			return verdict(true, "%s ≈ %s at %d decimals", FormatNumber(tf), FormatNumber(cf), dec)
		}
		return verdict(false, "%s differs from %s at %d decimals", FormatNumber(tf), FormatNumber(cf), dec)

	case PolicyYear:
		ty, okT := year(t)
		cy, okC := year(c)
		if !okT || !okC {
			return verdict(false, "not a year or date")
		}
		if ty == cy {
			return verdict(true, "year %d matches", ty)
		}
		return verdict(false, "year %d differs from %d", ty, cy)

	case PolicyAuto:
		chosen := autoPolicy(c, t)
		p := params
		if chosen == PolicyRounded {
			p.Decimals = -1
		}
		d := CheckQuantity(chosen, p, c, t)
		d.Policy = PolicyAuto + ":" + chosen
		return d
	}
	return verdict(false, "unknown policy %q (want one of %s)", policy, strings.Join(Policies, ", "))
}

// autoPolicy chooses a policy from the token's shape.
func autoPolicy(c, t Quantity) string {
	switch {
	case t.Cmp.IsBound() || t.Negated:
		return PolicyRange
	case t.Kind == KindDate || c.Kind == KindDate || (t.Kind == KindYear && c.Kind == KindYear):
		return PolicyYear
	case t.Kind == KindRange || c.Kind == KindRange:
		return PolicyRange
	case t.Kind == KindRatio || c.Kind == KindRatio:
		return PolicyRatio
	case (t.Kind == KindPercent) != (c.Kind == KindPercent):
		return PolicyPercent
	case t.Qualifier != "":
		return PolicyTolerance
	case t.Scale != 1 || c.Scale != 1:
		return PolicyAbbr
	case t.Decimals < c.Decimals:
		return PolicyRounded
	}
	return PolicyExact
}

func isTime(u string) bool { _, ok := unitSeconds[u]; return ok }

// asPercent expresses a quantity in percent points: 12% → 12, 0.12 → 12.
func asPercent(q Quantity) float64 {
	if q.Kind == KindPercent {
		return q.Value
	}
	return q.Value * 100
}

// asFraction expresses a quantity as a fraction: 33% → 0.33, 1/3 → 0.333….
func asFraction(q Quantity) float64 {
	if q.Kind == KindPercent {
		return q.Value / 100
	}
	return q.Value
}

func year(q Quantity) (int, bool) {
	switch q.Kind {
	case KindDate:
		return q.Date.Year(), true
	case KindYear:
		return int(q.Value), true
	case KindNumber:
		if q.Value == math.Trunc(q.Value) && q.Value >= 1000 && q.Value <= 2999 {
			return int(q.Value), true
		}
	}
	return 0, false
}
