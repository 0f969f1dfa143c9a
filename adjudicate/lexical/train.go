package lexical

import (
	"fmt"
	"math"

	"github.com/claimaudit/claimaudit/adjudicate"
	"gonum.org/v1/gonum/optimize"
)

// TrainOptions tune fitting.
type TrainOptions struct {
	L2 float64 // ridge penalty on the weights (not the biases); default 0.01
	// Balance weights examples so that every set counts the same, and within
	// a set every label it has counts the same: a large set or a majority
	// label (insufficient, in most real sets) does not become the default
	// answer.
	Balance bool
	// Nested fits the nested model (see Weights): insufficient vs the rest
	// from the coverage features alone, then supported vs unsupported from
	// every feature; two-way sets teach only the second.
	Nested bool
	// Boost adds gradient-boosted trees on top of the logistic model.
	Boost BoostOptions
}

// Example is one labelled pair.
type Example struct {
	Pair  adjudicate.Pair
	Label int // adjudicate.Supported, Unsupported or Insufficient
}

// Train fits the model on labelled pairs, with idf from stats, as one set
// without balancing.
func Train(examples []Example, stats Stats, opts TrainOptions) (*Weights, map[string]float64, error) {
	if len(examples) == 0 {
		return nil, nil, fmt.Errorf("train: no examples")
	}
	p := &Prepared{Name: "examples", X: make([][nf]float64, len(examples)), Y: make([]int, len(examples))}
	for i, e := range examples {
		p.X[i], _ = Features(e.Pair, stats)
		p.Y[i] = e.Label
	}
	return Fit([]*Prepared{p}, opts)
}

// sampleWeights gives every example its weight: 1, or with Balance the
// set's share divided among its labels. Weights are normalised to mean 1.
func sampleWeights(sets []*Prepared, balance bool) []float64 {
	var w []float64
	for _, s := range sets {
		var count [3]int
		labels := 0
		for _, y := range s.Y {
			if count[y] == 0 {
				labels++
			}
			count[y]++
		}
		for _, y := range s.Y {
			if balance {
				w = append(w, 1/float64(len(sets)*labels*count[y]))
			} else {
				w = append(w, 1)
			}
		}
	}
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	for i := range w {
		w[i] *= float64(len(w)) / sum
	}
	return w
}

// Fit fits the model on prepared sets by minimising the weighted mean
// cross-entropy + L2·‖W‖² with L-BFGS from zero weights: the same inputs
// give the same weights, bit for bit. A two-way set, one with no
// insufficient gold, says nothing about insufficiency: in the multinomial
// model its "not supported" is the probability of unsupported and
// insufficient together; in the nested model it teaches supported vs
// unsupported alone.
func Fit(sets []*Prepared, opts TrainOptions) (*Weights, map[string]float64, error) {
	var xs [][nf]float64
	var ys []int
	var targets [][3]bool // the classes an example's gold stands for
	var twoWays []bool
	for _, s := range sets {
		xs = append(xs, s.X...)
		ys = append(ys, s.Y...)
		twoWay := true
		for _, y := range s.Y {
			if y == 2 {
				twoWay = false
			}
		}
		for _, y := range s.Y {
			var t [3]bool
			t[y] = true
			if twoWay && y != 0 {
				t[1], t[2] = true, true
			}
			targets = append(targets, t)
			twoWays = append(twoWays, twoWay)
		}
	}
	if len(xs) == 0 {
		return nil, nil, fmt.Errorf("train: no examples")
	}
	if opts.L2 == 0 {
		opts.L2 = 0.01
	}
	sw := sampleWeights(sets, opts.Balance)
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
	if opts.Nested {
		if err := fitNested(w, z, ys, twoWays, sw, opts.L2); err != nil {
			return nil, nil, err
		}
	} else if err := fitMultinomial(w, z, targets, sw, opts.L2); err != nil {
		return nil, nil, err
	}
	if opts.Boost.Rounds > 0 {
		w.Boost = boost(w, xs, targets, sw, opts.Boost)
	}
	m := trainingMetrics(w, xs, ys)
	m["l2"] = opts.L2
	return w, m, nil
}

// fitMultinomial fits the multinomial model: the weighted mean
// cross-entropy of the gold's classes (for a two-way set, "not supported" is
// unsupported and insufficient together) + l2·‖W‖², by L-BFGS from zero
// weights.
func fitMultinomial(w *Weights, z [][nf]float64, targets [][3]bool, sw []float64, l2 float64) error {
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
			// -log of the probability of the gold's classes: one class, or
			// unsupported+insufficient for "not supported" in a two-way set.
			tsum := 0.0
			for k := 0; k < 3; k++ {
				if targets[i][k] {
					tsum += math.Exp(s[k] - m)
				}
			}
			tlse := m + math.Log(tsum)
			total += sw[i] * (lse - tlse)
			if grad != nil {
				for k := 0; k < 3; k++ {
					q := 0.0
					if targets[i][k] {
						q = math.Exp(s[k] - tlse)
					}
					g := sw[i] * (math.Exp(s[k]-lse) - q)
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
					grad[k*(nf+1)+j] += 2 * l2 * W[k][j]
				}
			}
		}
		return total/n + l2*reg
	}
	prob := optimize.Problem{Func: func(p []float64) float64 { return loss(p, nil) }, Grad: func(g, p []float64) { loss(p, g) }}
	res, err := optimize.Minimize(prob, make([]float64, dim), &optimize.Settings{GradientThreshold: 1e-7, MajorIterations: 2000}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return fmt.Errorf("train: %w", err)
	}
	W, b := unpack(res.X)
	for k := 0; k < 3; k++ {
		w.W[k] = append([]float64(nil), W[k]...)
	}
	w.Bias = b
	return nil
}

// trainingMetrics: accuracy, macro-F1 and NLL on the training examples.
func trainingMetrics(w *Weights, xs [][nf]float64, ys []int) map[string]float64 {
	var conf [3][3]int
	nll := 0.0
	for i, x := range xs {
		l := w.Logits(x)
		pred := argmax3(l)
		conf[ys[i]][pred]++
		m := math.Max(l[0], math.Max(l[1], l[2]))
		nll += m + math.Log(math.Exp(l[0]-m)+math.Exp(l[1]-m)+math.Exp(l[2]-m)) - l[ys[i]]
	}
	correct := 0
	for k := 0; k < 3; k++ {
		correct += conf[k][k]
	}
	return map[string]float64{
		"n": float64(len(xs)), "accuracy": round6(float64(correct) / float64(len(xs))), "macro_f1": round6(macroF1(conf)),
		"nll": round6(nll / float64(len(xs))),
	}
}

// macroF1 averages F1 over the labels that occur in gold or predictions.
func macroF1(conf [3][3]int) float64 {
	f1, labels := 0.0, 0
	for k := 0; k < 3; k++ {
		pred, gold := 0, 0
		for j := 0; j < 3; j++ {
			pred += conf[j][k]
			gold += conf[k][j]
		}
		if pred == 0 && gold == 0 {
			continue
		}
		labels++
		if conf[k][k] > 0 {
			p, r := float64(conf[k][k])/float64(pred), float64(conf[k][k])/float64(gold)
			f1 += 2 * p * r / (p + r)
		}
	}
	if labels == 0 {
		return math.NaN()
	}
	return f1 / float64(labels)
}

func argmax3(z [3]float64) int {
	b := 0
	for k := 1; k < 3; k++ {
		if z[k] > z[b] {
			b = k
		}
	}
	return b
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
