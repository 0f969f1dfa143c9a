package lexical

import (
	"fmt"
	"math"

	"github.com/claimaudit/claimaudit/adjudicate"
	"gonum.org/v1/gonum/optimize"
)

// TrainOptions tune Train.
type TrainOptions struct {
	L2 float64 // ridge penalty on the weights (not the biases); default 1e-3
}

// Example is one labelled pair.
type Example struct {
	Pair  adjudicate.Pair
	Label int // 0 supported, 1 unsupported, 2 insufficient
}

// Train fits the model by minimising mean cross-entropy + L2·‖W‖² with
// L-BFGS from zero weights: deterministic for the same examples.
func Train(examples []Example, stats Stats, opts TrainOptions) (*Weights, map[string]float64, error) {
	if len(examples) == 0 {
		return nil, nil, fmt.Errorf("train: no examples")
	}
	if opts.L2 == 0 {
		opts.L2 = 1e-3
	}
	xs := make([][nf]float64, len(examples))
	ys := make([]int, len(examples))
	for i, e := range examples {
		xs[i], _ = Features(e.Pair, stats)
		ys[i] = e.Label
	}
	w := &Weights{Format: weightsFormat, FeatureVersion: FeatureVersion, Features: FeatureNames, Mean: make([]float64, nf), Std: make([]float64, nf)}
	for j := 0; j < nf; j++ {
		for _, x := range xs {
			w.Mean[j] += x[j]
		}
		w.Mean[j] /= float64(len(xs))
		for _, x := range xs {
			w.Std[j] += (x[j] - w.Mean[j]) * (x[j] - w.Mean[j])
		}
		w.Std[j] = math.Sqrt(w.Std[j] / float64(len(xs)))
		if w.Std[j] < 1e-9 {
			w.Std[j] = 1 // a constant feature: centred to zero, no scaling
		}
	}
	z := make([][nf]float64, len(xs))
	for i, x := range xs {
		for j := range x {
			z[i][j] = (x[j] - w.Mean[j]) / w.Std[j]
		}
	}
	dim := 3 * (nf + 1)
	unpack := func(p []float64) (W [3][]float64, b [3]float64) {
		for k := 0; k < 3; k++ {
			W[k] = p[k*(nf+1) : k*(nf+1)+nf]
			b[k] = p[k*(nf+1)+nf]
		}
		return
	}
	loss := func(p, grad []float64) float64 {
		W, b := unpack(p)
		for i := range grad {
			grad[i] = 0
		}
		total := 0.0
		for i, x := range z {
			var s [3]float64
			m := math.Inf(-1)
			for k := 0; k < 3; k++ {
				s[k] = b[k]
				for j := 0; j < nf; j++ {
					s[k] += W[k][j] * x[j]
				}
				m = math.Max(m, s[k])
			}
			sum := 0.0
			for k := 0; k < 3; k++ {
				sum += math.Exp(s[k] - m)
			}
			lse := m + math.Log(sum)
			total += lse - s[ys[i]]
			if grad != nil {
				for k := 0; k < 3; k++ {
					g := math.Exp(s[k]-lse) - b2f(k == ys[i])
					for j := 0; j < nf; j++ {
						grad[k*(nf+1)+j] += g * x[j]
					}
					grad[k*(nf+1)+nf] += g
				}
			}
		}
		n := float64(len(z))
		reg := 0.0
		for k := 0; k < 3; k++ {
			for j := 0; j < nf; j++ {
				reg += W[k][j] * W[k][j]
			}
		}
		if grad != nil {
			for i := range grad {
				grad[i] /= n
			}
			for k := 0; k < 3; k++ {
				for j := 0; j < nf; j++ {
					grad[k*(nf+1)+j] += 2 * opts.L2 * W[k][j]
				}
			}
		}
		return total/n + opts.L2*reg
	}
	prob := optimize.Problem{Func: func(p []float64) float64 { return loss(p, nil) }, Grad: func(g, p []float64) { loss(p, g) }}
	res, err := optimize.Minimize(prob, make([]float64, dim), &optimize.Settings{GradientThreshold: 1e-7, MajorIterations: 2000}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return nil, nil, fmt.Errorf("train: %w", err)
	}
	W, b := unpack(res.X)
	for k := 0; k < 3; k++ {
		w.W[k] = append([]float64(nil), W[k]...)
	}
	w.Bias = b
	// Training metrics: accuracy, macro-F1 and NLL on the training examples.
	var conf [3][3]int
	nll := 0.0
	for i, x := range xs {
		l := w.Logits(x)
		pred := 0
		for k := 1; k < 3; k++ {
			if l[k] > l[pred] {
				pred = k
			}
		}
		conf[ys[i]][pred]++
		m := math.Max(l[0], math.Max(l[1], l[2]))
		nll += m + math.Log(math.Exp(l[0]-m)+math.Exp(l[1]-m)+math.Exp(l[2]-m)) - l[ys[i]]
	}
	correct, f1 := 0, 0.0
	for k := 0; k < 3; k++ {
		correct += conf[k][k]
		pred, gold := 0, 0
		for j := 0; j < 3; j++ {
			pred += conf[j][k]
			gold += conf[k][j]
		}
		if pred > 0 && gold > 0 && conf[k][k] > 0 {
			p, r := float64(conf[k][k])/float64(pred), float64(conf[k][k])/float64(gold)
			f1 += 2 * p * r / (p + r)
		}
	}
	metrics := map[string]float64{
		"n": float64(len(xs)), "accuracy": round6(float64(correct) / float64(len(xs))), "macro_f1": round6(f1 / 3),
		"nll": round6(nll / float64(len(xs))), "l2": opts.L2,
	}
	return w, metrics, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
