package lexical

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// CoverageFeatures are the features that say how much of the claim the
// evidence covers. The nested model decides insufficient vs the rest from
// these alone: what else separates insufficient claims (hedges, claim
// length, BM25 scores) differs from one set to another, and a model that
// learned it answered with confidence on sets where it does not hold.
var CoverageFeatures = []string{
	"has_evidence", "coverage", "idf_coverage", "bigram_coverage", "entity_coverage", "entity_absent",
	"sent_idf_coverage", "sent_unmatched_number", "sent_unmatched_entity", "sent_unmatched_other", "sent_bigram_coverage",
	"sent_longest_run", "mean_idf_coverage", "coverage_margin",
}

// coverageMask marks CoverageFeatures among FeatureNames.
func coverageMask() [nf]bool {
	var m [nf]bool
	for _, n := range CoverageFeatures {
		for j, f := range FeatureNames {
			if f == n {
				m[j] = true
			}
		}
	}
	return m
}

// nestedLogits are the nested model's log-probabilities from its two
// scores: r for insufficient vs the rest (q = σ(r)) and t for supported vs
// unsupported when the evidence suffices (p = σ(t)): log((1−q)p),
// log((1−q)(1−p)), log q.
func nestedLogits(r, t float64) [3]float64 {
	return [3]float64{-softplus(r) - softplus(-t), -softplus(r) - softplus(t), -softplus(-r)}
}

// softplus is log(1+eˣ), without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// fitNested fits the nested model by minimising the weighted mean
// cross-entropy + L2·‖W‖² with L-BFGS from zero weights (deterministic, as
// Fit). W[2], Bias[2] hold r, nonzero only on CoverageFeatures; W[0],
// Bias[0] hold t, on every feature; W[1], Bias[1] stay zero. An example of
// a two-way set (twoWay) is known to have sufficient evidence one way or the
// other, so it teaches t alone: −log p or −log(1−p).
func fitNested(w *Weights, z [][nf]float64, ys []int, twoWay []bool, sw []float64, l2 float64) error {
	mask := coverageMask()
	const tb, rw, rb = nf, nf + 1, 2*nf + 1 // offsets: t's bias, r's weights, r's bias
	loss := func(p, grad []float64) float64 {
		for i := range grad {
			grad[i] = 0
		}
		total := 0.0
		for i, x := range z {
			t, r := p[tb], p[rb]
			for j := 0; j < nf; j++ {
				t += p[j] * x[j]
				if mask[j] {
					r += p[rw+j] * x[j]
				}
			}
			// the loss and its derivatives in r and t (d softplus(x)/dx = σ(x))
			var l, dr, dt float64
			switch {
			case twoWay[i] && ys[i] == 0:
				l, dt = softplus(-t), -sigmoid(-t)
			case twoWay[i]:
				l, dt = softplus(t), sigmoid(t)
			case ys[i] == 0:
				l, dr, dt = softplus(r)+softplus(-t), sigmoid(r), -sigmoid(-t)
			case ys[i] == 1:
				l, dr, dt = softplus(r)+softplus(t), sigmoid(r), sigmoid(t)
			default:
				l, dr = softplus(-r), -sigmoid(-r)
			}
			total += sw[i] * l
			if grad == nil {
				continue
			}
			dr, dt = sw[i]*dr, sw[i]*dt
			for j := 0; j < nf; j++ {
				grad[j] += dt * x[j]
				if mask[j] {
					grad[rw+j] += dr * x[j]
				}
			}
			grad[tb] += dt
			grad[rb] += dr
		}
		n := float64(len(z))
		reg := 0.0
		for i := range p {
			if grad != nil {
				grad[i] /= n
			}
			if i != tb && i != rb {
				reg += p[i] * p[i]
				if grad != nil {
					grad[i] += 2 * l2 * p[i]
				}
			}
		}
		return total/n + l2*reg
	}
	prob := optimize.Problem{Func: func(p []float64) float64 { return loss(p, nil) }, Grad: func(g, p []float64) { loss(p, g) }}
	res, err := optimize.Minimize(prob, make([]float64, 2*(nf+1)), &optimize.Settings{GradientThreshold: 1e-7, MajorIterations: 2000}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return fmt.Errorf("train: %w", err)
	}
	w.Nested = true
	w.W[0] = append([]float64(nil), res.X[:nf]...)
	w.Bias[0] = res.X[tb]
	w.W[1] = make([]float64, nf)
	w.Bias[1] = 0
	w.W[2] = append([]float64(nil), res.X[rw:rb]...)
	w.Bias[2] = res.X[rb]
	return nil
}
