package estimate

import (
	"fmt"
	"math"
)

// Z95 is the standard normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Obs is one reviewed claim: where the design put it, the human label's
// contribution to a quantity's numerator (A) and denominator (B), and the
// verifier's predictions of both (FA, FB), made before anyone looked.
type Obs struct {
	Pi      float64 // inclusion probability
	Stratum int     // Stratified only
	A, B    float64
	FA, FB  float64
}

// Totals are the sums of the predictions FA and FB over every claim of the
// population, labelled or not.
type Totals struct{ FA, FB float64 }

// Result is an estimate with its 95% interval, or a reason it has none.
type Result struct {
	Value, SE, Lo, Hi float64 // NaN when not estimable
	// Lambda and Mu are the power-tuning weights of the predictions in the
	// numerator and the denominator (0, 0: the classical estimator).
	Lambda, Mu float64
	N          int    // reviewed claims used
	Reason     string // why not estimable; "" when Value is a number
}

func none(n int, format string, args ...any) Result {
	nan := math.NaN()
	return Result{Value: nan, SE: nan, Lo: nan, Hi: nan, N: n, Reason: fmt.Sprintf(format, args...)}
}

// Estimable reports whether r has a value.
func (r Result) Estimable() bool { return r.Reason == "" }

// Share turns the interval of a quantity that lives in [0, 1] into a
// Wilson score interval at the effective sample size n* = θ̂(1−θ̂)/SE²
// (the design-effect-adjusted interval of Kott and Carr 1997; Korn and
// Graubard 1998 cap n* at the sample size, which would undo the
// predictions' gain), and n* = m, the reviewed claims that count in the
// denominator, when θ̂ is 0 or 1 or SE is 0. Near 0 and 1
// the symmetric interval undercovers and can collapse to a point (no false
// accept seen: [0, 0]); the Wilson interval does neither. The estimate
// itself is clipped to [0, 1].
func (r Result) Share(m int) Result {
	if !r.Estimable() {
		return r
	}
	p := min(max(r.Value, 0), 1)
	n := float64(m)
	if p > 0 && p < 1 && r.SE > 0 {
		n = p * (1 - p) / (r.SE * r.SE)
	}
	if n <= 0 {
		return r
	}
	z2 := Z95 * Z95
	c := (p + z2/(2*n)) / (1 + z2/n)
	h := Z95 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	r.Value, r.Lo, r.Hi = p, max(0, c-h), min(1, c+h)
	// At 0 (or 1) the Wilson interval ends exactly there; rounding must
	// not lift it off.
	if p == 0 {
		r.Lo = 0
	}
	if p == 1 {
		r.Hi = 1
	}
	return r
}

// Denominator counts the reviewed claims with B ≠ 0.
func Denominator(s []Obs) int {
	m := 0
	for _, o := range s {
		if o.B != 0 {
			m++
		}
	}
	return m
}

// Mean is Ratio for a population mean of A: B ≡ FB ≡ 1.
func Mean(d Design, sumFA float64, s []Obs, tuned bool) Result {
	t := make([]Obs, len(s))
	for i, o := range s {
		o.B, o.FB = 1, 1
		t[i] = o
	}
	return Ratio(d, Totals{FA: sumFA, FB: float64(d.N)}, t, tuned)
}

// Ratio estimates θ = ΣA/ΣB over the population from the reviewed sample s
// (which must hold every reviewed claim, including those with A = B = 0)
// and the population totals of the predictions. Untuned it is the
// classical estimator from the human labels alone, T̂(A)/T̂(B); tuned it is
// the prediction-powered estimator
//
//	θ̂ = (λ·ΣFA + T̂(A − λ·FA)) / (μ·ΣFB + T̂(B − μ·FB))
//
// with T̂ the design's estimator of a population total, and (λ, μ) chosen
// to minimise the estimated variance (PPI++'s power tuning, by weighted
// least squares of the linearised residual on the predictions). Any (λ, μ)
// gives a consistent estimator; the interval is θ̂ ± z·√V with V the
// design's variance estimate of T̂(e)/D̂², e = (A − λFA) − θ̂(B − μFB)
// (delta method).
func Ratio(d Design, tot Totals, s []Obs, tuned bool) Result {
	v, why := newVarForm(d, s)
	if why != "" {
		return none(len(s), "%s", why)
	}
	a, b := make([]float64, len(s)), make([]float64, len(s))
	for i, o := range s {
		a[i], b[i] = o.A, o.B
	}
	den := v.total(b)
	if !(den > 0) {
		return none(len(s), "no reviewed claim is in the denominator")
	}
	theta := v.total(a) / den
	var lambda, mu float64
	if tuned {
		lambda, mu = v.tune(s, theta)
		num := lambda*tot.FA + v.total(residual(s, lambda, true))
		den = mu*tot.FB + v.total(residual(s, mu, false))
		if !(den > 0) {
			// The tuned denominator left its range: fall back to the
			// human labels' own denominator.
			mu = 0
			den = v.total(b)
		}
		theta = num / den
	}
	e := make([]float64, len(s))
	for i, o := range s {
		e[i] = (o.A - lambda*o.FA) - theta*(o.B-mu*o.FB)
	}
	se := math.Sqrt(v.variance(e)) / den
	return Result{Value: theta, SE: se, Lo: theta - Z95*se, Hi: theta + Z95*se, Lambda: lambda, Mu: mu, N: len(s)}
}

// residual is A − λ·FA (num) or B − λ·FB of every unit.
func residual(s []Obs, lambda float64, num bool) []float64 {
	r := make([]float64, len(s))
	for i, o := range s {
		if num {
			r[i] = o.A - lambda*o.FA
		} else {
			r[i] = o.B - lambda*o.FB
		}
	}
	return r
}

// tune returns the power-tuning weight λ (used for both the numerator and
// the denominator, as PPI++ does for the estimating equation of a ratio)
// that minimises the estimated variance of T̂(e), e = (A − θB) − λ·(FA −
// θ·FB): a weighted least-squares slope on the design-centred values. A
// prediction that does not vary gets λ = 0 (the classical estimator).
func (v *varForm) tune(s []Obs, theta float64) (lambda, mu float64) {
	y, x := make([]float64, len(s)), make([]float64, len(s))
	for i, o := range s {
		y[i], x[i] = o.A-theta*o.B, o.FA-theta*o.FB
	}
	y, x = v.center(y), v.center(x)
	var sxx, sxy float64
	for i, w := range v.w {
		sxx += w * x[i] * x[i]
		sxy += w * x[i] * y[i]
	}
	if sxx > 1e-12 {
		lambda = sxy / sxx
	}
	return lambda, lambda
}
