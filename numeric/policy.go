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
	// NoQualifier lets tolerance verify a token without a qualifier of
	// approximation ("102" for 100 at 2%), as the published reference
	// implementation does; seed 000's prose requires one (the default).
	NoQualifier bool
	// Scales is abbr's sanctioned scale set S (1e3, 1e6, …); empty: every
	// scale word or suffix ParseQuantity reads.
	Scales []float64
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
	k := newComparison(policy, params, c, t)
	// A token that states a bound ("more than 104", "up to 5%", "not over
	// 10") is verified when the claimed value satisfies the bound — never
	// by being within a tolerance of it. Policies that compare values
	// exactly do not accept a bound.
	if t.Cmp.IsBound() || t.Negated {
		if d, decided := k.bound(); decided {
			return d
		}
	}
	switch policy {
	case PolicyExact:
		return k.exact()
	case PolicyRounded:
		return k.rounded()
	case PolicyAbbr:
		return k.abbr()
	case PolicyTolerance:
		return k.tolerance()
	case PolicyPercent:
		return k.percent()
	case PolicyRange:
		return k.inRange()
	case PolicyRatio:
		return k.ratio()
	case PolicyYear:
		return k.year()
	case PolicyAuto:
		return k.auto()
	}
	return k.verdict(false, "unknown policy %q (want one of %s)", policy, strings.Join(Policies, ", "))
}

// comparison is one check of a token t against a claim c under a policy:
// tv is the token's value in the claim's unit where a conversion exists,
// cv the claim's value.
type comparison struct {
	policy     string
	params     PolicyParams
	c, t       Quantity
	tv, cv     float64
	unitsClash bool
}

func newComparison(policy string, params PolicyParams, c, t Quantity) comparison {
	// "5000 m" against a length is 5,000 metres, not 5 billion.
	if dim, _ := UnitDimension(c.Unit); dim == DimLength {
		t = resolveMetres(t)
	}
	if dim, _ := UnitDimension(t.Unit); dim == DimLength {
		c = resolveMetres(c)
	}
	k := comparison{policy: policy, params: params, c: c, t: t, tv: t.Value, cv: c.Value}
	// Normalise the token into the claim's unit where a conversion exists.
	converted := false
	if t.Unit != c.Unit {
		if v, ok := convert(t.Value, t.Unit, c.Unit); ok {
			k.tv, converted = v, true
		}
	}
	k.unitsClash = t.Unit != "" && c.Unit != "" && t.Unit != c.Unit && !converted &&
		!(t.Kind == KindYear || c.Kind == KindYear || t.Kind == KindDate || c.Kind == KindDate)
	return k
}

func (k comparison) verdict(ok bool, format string, args ...any) Decision {
	return Decision{Verified: ok, Policy: k.policy, Reason: fmt.Sprintf(format, args...)}
}

func (k comparison) clash() Decision {
	return k.verdict(false, "unit %q differs from the claim's %q", k.t.Unit, k.c.Unit)
}

// bound checks a token that states a bound; decided is false for the
// policies that choose or do not exist (auto, unknown), which go on.
func (k comparison) bound() (d Decision, decided bool) {
	switch k.policy {
	case PolicyTolerance, PolicyRange:
		if k.unitsClash {
			return k.clash(), true
		}
		if k.c.Kind == KindRange {
			return k.verdict(false, "a bound cannot be checked against a claimed range"), true
		}
		b := k.t
		if b.Kind != KindRange {
			b.Value = k.tv
		}
		rel := k.params.RelTol
		if rel == 0 {
			rel = DefaultRelTol
		}
		ok, why := b.Holds(k.cv, rel)
		return k.verdict(ok, "%s (the token says %q)", why, strings.TrimSpace(k.t.Text)), true
	case PolicyExact, PolicyRounded, PolicyAbbr, PolicyPercent, PolicyRatio, PolicyYear:
		return k.verdict(false, "the token states a bound (%q); policy %s compares values: use tolerance, range or auto", k.t.Qualifier, k.policy), true
	}
	return Decision{}, false
}

func (k comparison) exact() Decision {
	switch {
	case k.unitsClash:
		return k.clash()
	case k.t.Kind == KindRange || k.c.Kind == KindRange:
		return k.verdict(false, "a range needs policy range")
	case k.t.Scale != k.c.Scale && k.t.Scale != 1:
		return k.verdict(false, "token is written with a scale alias (×%s); that needs policy abbr", FormatNumber(k.t.Scale))
	case Equal(k.tv, k.cv):
		return k.verdict(true, "%s equals %s", FormatNumber(k.tv), FormatNumber(k.cv))
	}
	return k.verdict(false, "%s differs from %s", FormatNumber(k.tv), FormatNumber(k.cv))
}

func (k comparison) rounded() Decision {
	if k.unitsClash {
		return k.clash()
	}
	dec := k.params.Decimals
	if dec < 0 {
		dec = k.t.Decimals
	}
	tv, cv := k.tv, k.cv
	rt, rc := RoundTo(tv, dec), RoundTo(cv, dec)
	if Equal(rt, rc) {
		return k.verdict(true, "round_%d(%s) = round_%d(%s) = %s", dec, FormatNumber(tv), dec, FormatNumber(cv), FormatNumber(rc))
	}
	return k.verdict(false, "round_%d(%s) = %s differs from round_%d(%s) = %s", dec, FormatNumber(tv), FormatNumber(rt), dec, FormatNumber(cv), FormatNumber(rc))
}

func (k comparison) abbr() Decision {
	switch {
	case k.unitsClash:
		return k.clash()
	case len(k.params.Scales) > 0 && k.t.Scale != 1 && !slices.Contains(k.params.Scales, k.t.Scale):
		return k.verdict(false, "scale ×%s is not in the policy's sanctioned set", FormatNumber(k.t.Scale))
	case Equal(k.tv, k.cv) && k.t.Scale != 1:
		return k.verdict(true, "%s × %s = %s", FormatNumber(k.t.Payload), FormatNumber(k.t.Scale), FormatNumber(k.cv))
	case Equal(k.tv, k.cv):
		return k.verdict(true, "%s equals %s", FormatNumber(k.tv), FormatNumber(k.cv))
	}
	return k.verdict(false, "%s (as written: %s) differs from %s", FormatNumber(k.tv), strings.TrimSpace(k.t.Text), FormatNumber(k.cv))
}

func (k comparison) tolerance() Decision {
	if k.unitsClash {
		return k.clash()
	}
	q := k.params.Qualifiers
	if len(q) == 0 {
		q = approxQualifiers
	}
	qualified := k.t.Qualifier != "" && slices.Contains(q, k.t.Qualifier)
	if !qualified && !k.params.NoQualifier {
		return k.verdict(false, "token carries no qualifier of approximation (%s)", strings.Join(q[:min(4, len(q))], ", ")+", ...")
	}
	rel := k.params.RelTol
	if rel == 0 && k.params.AbsTol == 0 {
		rel = DefaultRelTol
	}
	tol := math.Max(k.params.AbsTol, rel*math.Abs(k.cv))
	if math.Abs(k.tv-k.cv) <= tol+1e-12 {
		if !qualified {
			return k.verdict(true, "|%s − %s| <= %s (no qualifier required)", FormatNumber(k.tv), FormatNumber(k.cv), FormatNumber(tol))
		}
		return k.verdict(true, "|%s − %s| <= %s and qualified by %q", FormatNumber(k.tv), FormatNumber(k.cv), FormatNumber(tol), k.t.Qualifier)
	}
	return k.verdict(false, "|%s − %s| exceeds the tolerance %s", FormatNumber(k.tv), FormatNumber(k.cv), FormatNumber(tol))
}

func (k comparison) percent() Decision {
	t, c := k.t, k.c
	if (t.Unit != "" && t.Unit != "%") || (c.Unit != "" && c.Unit != "%") {
		return k.verdict(false, "not a percentage or fraction (units %q, %q)", t.Unit, c.Unit)
	}
	tp, cp := asPercent(t), asPercent(c)
	if Equal(tp, cp) {
		return k.verdict(true, "%s%% equals %s%%", FormatNumber(tp), FormatNumber(cp))
	}
	return k.verdict(false, "%s%% differs from %s%%", FormatNumber(tp), FormatNumber(cp))
}

func (k comparison) inRange() Decision {
	t, c, tv, cv := k.t, k.c, k.tv, k.cv
	switch {
	case k.unitsClash:
		return k.clash()
	case t.Kind == KindRange && c.Kind == KindRange:
		if t.Lo >= c.Lo-1e-12 && t.Hi <= c.Hi+1e-12 {
			return k.verdict(true, "[%s, %s] lies within [%s, %s]", FormatNumber(t.Lo), FormatNumber(t.Hi), FormatNumber(c.Lo), FormatNumber(c.Hi))
		}
		return k.verdict(false, "[%s, %s] is not within [%s, %s]", FormatNumber(t.Lo), FormatNumber(t.Hi), FormatNumber(c.Lo), FormatNumber(c.Hi))
	case t.Kind == KindRange:
		if cv >= t.Lo && cv <= t.Hi {
			return k.verdict(true, "%s lies in [%s, %s]", FormatNumber(cv), FormatNumber(t.Lo), FormatNumber(t.Hi))
		}
		return k.verdict(false, "%s lies outside [%s, %s]", FormatNumber(cv), FormatNumber(t.Lo), FormatNumber(t.Hi))
	case c.Kind == KindRange:
		if tv >= c.Lo && tv <= c.Hi {
			return k.verdict(true, "%s lies in the claimed range [%s, %s]", FormatNumber(tv), FormatNumber(c.Lo), FormatNumber(c.Hi))
		}
		return k.verdict(false, "%s lies outside the claimed range [%s, %s]", FormatNumber(tv), FormatNumber(c.Lo), FormatNumber(c.Hi))
	}
	return k.verdict(false, "neither value is a range")
}

func (k comparison) ratio() Decision {
	tf, cf := asFraction(k.t), asFraction(k.c)
	// Compare at the precision of the less precise side as written.
	dec := 12
	for _, q := range []Quantity{k.t, k.c} {
		if q.Kind != KindRatio {
			dd := q.Decimals
			if q.Kind == KindPercent {
				dd += 2
			}
			dec = min(dec, dd)
		}
	}
	if Equal(RoundTo(tf, dec), RoundTo(cf, dec)) {
		return k.verdict(true, "%s ≈ %s at %d decimals", FormatNumber(tf), FormatNumber(cf), dec)
	}
	return k.verdict(false, "%s differs from %s at %d decimals", FormatNumber(tf), FormatNumber(cf), dec)
}

func (k comparison) year() Decision {
	ty, okT := year(k.t)
	cy, okC := year(k.c)
	switch {
	case !okT || !okC:
		return k.verdict(false, "not a year or date")
	case ty == cy:
		return k.verdict(true, "year %d matches", ty)
	}
	return k.verdict(false, "year %d differs from %d", ty, cy)
}

func (k comparison) auto() Decision {
	chosen := autoPolicy(k.c, k.t)
	p := k.params
	if chosen == PolicyRounded {
		p.Decimals = -1
	}
	d := CheckQuantity(chosen, p, k.c, k.t)
	d.Policy = PolicyAuto + ":" + chosen
	return d
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
