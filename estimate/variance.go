package estimate

import (
	"fmt"
	"math"
)

// varForm is a design's estimator of a population total, T̂(x), and of its
// variance, V̂(x) = Σ_S w_i·(x_i − c(x)_i)², where c centres x the way the
// design does (the sample mean, each stratum's mean, or the Hájek mean):
//
//	uniform:     T̂ = N·x̄,            w = N²(1 − n/N)/(n(n−1))
//	stratified:  T̂ = Σ_h N_h·x̄_h,    w = N_h²(1 − n_h/N_h)/(n_h(n_h−1))
//	active:      T̂ = N·Σx/π / Σ1/π,   w = (N/N̂)²(1 − π)/π², N̂ = Σ_S 1/π
//
// The first two are the textbook unbiased estimators of simple and
// stratified random sampling without replacement; the third is the Hájek
// estimator of Poisson sampling with its linearisation variance (Särndal,
// Swensson and Wretman 1992, §5.7), which centres x and so also absorbs a
// response rate that is the same for every claim.
type varForm struct {
	d       Design
	s       []Obs
	w       []float64
	stratN  []int // reviewed claims per stratum
	sumInvP float64
}

func newVarForm(d Design, s []Obs) (*varForm, string) {
	n := len(s)
	if n < 2 {
		return nil, fmt.Sprintf("%d reviewed claims: at least 2 are needed", n)
	}
	v := &varForm{d: d, s: s, w: make([]float64, n)}
	N := float64(d.N)
	switch d.Kind {
	case Uniform:
		if n > d.N {
			return nil, fmt.Sprintf("%d reviewed claims of a population of %d", n, d.N)
		}
		for i := range v.w {
			v.w[i] = N * N * (1 - float64(n)/N) / float64(n*(n-1))
		}
	case Stratified:
		v.stratN = make([]int, len(d.StratumSizes))
		for _, o := range s {
			if o.Stratum < 0 || o.Stratum >= len(d.StratumSizes) {
				return nil, fmt.Sprintf("a reviewed claim is in stratum %d of %d", o.Stratum, len(d.StratumSizes))
			}
			v.stratN[o.Stratum]++
		}
		for h, Nh := range d.StratumSizes {
			nh := v.stratN[h]
			switch {
			case nh > Nh:
				return nil, fmt.Sprintf("stratum %d has %d reviewed claims of %d", h, nh, Nh)
			case Nh > 0 && nh == 0:
				return nil, fmt.Sprintf("stratum %d (%d claims) has no reviewed claim", h, Nh)
			case nh == 1 && Nh > 1:
				return nil, fmt.Sprintf("stratum %d (%d claims) has one reviewed claim: its variance needs two", h, Nh)
			}
		}
		for i, o := range s {
			Nh, nh := float64(d.StratumSizes[o.Stratum]), float64(v.stratN[o.Stratum])
			if nh > 1 {
				v.w[i] = Nh * Nh * (1 - nh/Nh) / (nh * (nh - 1))
			}
		}
	case Active:
		for _, o := range s {
			if !(o.Pi > 0 && o.Pi <= 1) {
				return nil, fmt.Sprintf("inclusion probability %v outside (0, 1]", o.Pi)
			}
			v.sumInvP += 1 / o.Pi
		}
		r := N / v.sumInvP
		for i, o := range s {
			v.w[i] = r * r * (1 - o.Pi) / (o.Pi * o.Pi)
		}
	default:
		return nil, fmt.Sprintf("unknown design %q", d.Kind)
	}
	return v, ""
}

// total is T̂(x).
func (v *varForm) total(x []float64) float64 {
	switch v.d.Kind {
	case Stratified:
		sum := make([]float64, len(v.stratN))
		for i, o := range v.s {
			sum[o.Stratum] += x[i]
		}
		var t float64
		for h, nh := range v.stratN {
			if nh > 0 {
				t += float64(v.d.StratumSizes[h]) * sum[h] / float64(nh)
			}
		}
		return t
	case Active:
		var t float64
		for i, o := range v.s {
			t += x[i] / o.Pi
		}
		return float64(v.d.N) * t / v.sumInvP
	}
	return float64(v.d.N) * mean(x)
}

// center subtracts from x the design's centre: the sample mean, the
// stratum's mean, or the Hájek mean.
func (v *varForm) center(x []float64) []float64 {
	out := make([]float64, len(x))
	switch v.d.Kind {
	case Stratified:
		sum := make([]float64, len(v.stratN))
		for i, o := range v.s {
			sum[o.Stratum] += x[i]
		}
		for i, o := range v.s {
			out[i] = x[i] - sum[o.Stratum]/float64(v.stratN[o.Stratum])
		}
	case Active:
		c := v.total(x) / float64(v.d.N)
		for i := range x {
			out[i] = x[i] - c
		}
	default:
		c := mean(x)
		for i := range x {
			out[i] = x[i] - c
		}
	}
	return out
}

// variance is V̂(x), never negative.
func (v *varForm) variance(x []float64) float64 {
	c := v.center(x)
	var s float64
	for i, w := range v.w {
		s += w * c[i] * c[i]
	}
	return math.Max(s, 0)
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
