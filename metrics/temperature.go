package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Temperature bounds: T is searched in [MinTemperature, MaxTemperature], so
// it can never go negative or diverge.
const (
	MinTemperature float64 = 0.05
	MaxTemperature float64 = 20
)

// FitTemperature returns the T > 0 that minimises the mean NLL of
// softmax(z/T) over the labelled, scored outcomes (answered or not: the
// verifier's logits exist either way). In β = 1/T the mean NLL is convex
// (log-sum-exp of lines minus a line), so its derivative
// mean(E_p[z] − z_gold) rises with β; bisection on its sign in log β is
// deterministic and needs no step size. With no labelled outcomes, or a
// gradient that keeps its sign over the whole range, the answer is 1 or the
// nearer bound.
func FitTemperature(outs []Outcome) float64 {
	l := labelledScored(outs)
	if len(l) == 0 {
		return 1
	}
	// Per outcome keep the two non-maximal logits relative to the maximum
	// (da, db <= 0) and the gold logit relative to it (dy): then
	// E_p[z] − z_gold = (ea·da + eb·db)/(1 + ea + eb) − dy with ea = e^{β·da},
	// two exponentials per outcome and step.
	type diffs struct{ da, db, dy float64 }
	d := make([]diffs, len(l))
	for i, o := range l {
		m := Argmax(o.Logits)
		a, b := (m+1)%3, (m+2)%3
		zm := o.Logits[m]
		d[i] = diffs{o.Logits[a] - zm, o.Logits[b] - zm, o.Logits[o.Gold] - zm}
	}
	// The sum is split into a fixed number of chunks added in order, so the
	// result is the same whatever the number of workers.
	const chunks = 16
	workers := min(runtime.GOMAXPROCS(0), chunks)
	grad := func(beta float64) float64 {
		partial := make([]float64, chunks)
		var wg sync.WaitGroup
		next := make(chan int, chunks)
		for c := 0; c < chunks; c++ {
			next <- c
		}
		close(next)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := range next {
					lo, hi := c*len(d)/chunks, (c+1)*len(d)/chunks
					g := 0.0
					for _, x := range d[lo:hi] {
						ea, eb := math.Exp(beta*x.da), math.Exp(beta*x.db)
						g += (ea*x.da+eb*x.db)/(1+ea+eb) - x.dy
					}
					partial[c] = g
				}
			}()
		}
		wg.Wait()
		g := 0.0
		for _, p := range partial {
			g += p
		}
		return g / float64(len(d))
	}
	lo, hi := math.Log(1/MaxTemperature), math.Log(1/MinTemperature)
	if grad(math.Exp(lo)) >= 0 {
		return MaxTemperature
	}
	if grad(math.Exp(hi)) <= 0 {
		return MinTemperature
	}
	for i := 0; i < 40; i++ {
		mid := (lo + hi) / 2
		if grad(math.Exp(mid)) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 1 / math.Exp((lo+hi)/2)
}

// CalibrateOptions tune Calibrate.
type CalibrateOptions struct {
	Threshold float64 // apply scaling when the raw 10-bin ECE exceeds it; default 0.10
	Folds     int     // cross-fitting folds for the "after" numbers; default 5
	Seed      uint64  // fold assignment
	// Split, when not nil, marks the outcomes to fit T on (true); the
	// "after" numbers are then measured on the others instead of by
	// cross-fitting. len(Split) must equal len(outs).
	Split []bool
	// Force applies scaling whatever the raw ECE (the --calibrate fixed path
	// passes a temperature instead and does not call Calibrate).
	Force bool
}

// CalibrationResult says whether temperature scaling was applied, with
// which T, and the calibration measures before and after. After is measured
// on outcomes whose probabilities came from a temperature fitted without
// them.
type CalibrationResult struct {
	Applied     bool
	Temperature float64 // applied to the records: fitted on all (or the split's) labelled outcomes; 1 when not applied
	Before      CalibrationReport
	After       CalibrationReport
	// HeldOut is the number of labelled outcomes "After" was measured on.
	HeldOut int
}

// Calibrate measures raw calibration and, when the 10-bin ECE exceeds the
// threshold, fits a temperature and measures the result out of sample.
func Calibrate(outs []Outcome, opts CalibrateOptions) CalibrationResult {
	if opts.Threshold == 0 {
		opts.Threshold = 0.10
	}
	if opts.Folds < 2 {
		opts.Folds = 5
	}
	res := CalibrationResult{Temperature: 1, Before: Calibration(outs, 1)}
	res.After = res.Before
	if !opts.Force && res.Before.ECE10 <= opts.Threshold {
		return res
	}
	res.Applied = true
	if opts.Split != nil {
		var fit, test []Outcome
		for i, o := range outs {
			if opts.Split[i] {
				fit = append(fit, o)
			} else {
				test = append(test, o)
			}
		}
		res.Temperature = FitTemperature(fit)
		res.After = Calibration(test, res.Temperature)
		res.HeldOut = len(labelledScored(test))
		return res
	}
	res.Temperature = FitTemperature(outs)
	// Cross-fitting: each labelled outcome gets logits rescaled by a
	// temperature fitted on the other folds. Rescaling the logits by T_f/1
	// lets Calibration(…, 1) measure them.
	fold := foldsOf(outs, opts.Folds, opts.Seed)
	temps := make([]float64, opts.Folds)
	for f := range temps {
		var train []Outcome
		for i, o := range outs {
			if fold[i] != f {
				train = append(train, o)
			}
		}
		temps[f] = FitTemperature(train)
	}
	oof := make([]Outcome, len(outs))
	for i, o := range outs {
		oof[i] = o
		if fold[i] >= 0 && o.Scored {
			for k := range o.Logits {
				oof[i].Logits[k] = o.Logits[k] / temps[fold[i]]
			}
		}
	}
	res.After = Calibration(oof, 1)
	res.After.Temperature = res.Temperature
	res.HeldOut = len(labelledScored(outs))
	return res
}

// foldsOf assigns labelled, scored outcomes to folds by a seeded shuffle
// (-1 for the rest), so the assignment depends only on the seed and the
// order of the outcomes.
func foldsOf(outs []Outcome, k int, seed uint64) []int {
	fold := make([]int, len(outs))
	var idx []int
	for i, o := range outs {
		fold[i] = -1
		if o.Gold != Unknown && o.Scored {
			idx = append(idx, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
	for r, i := range idx {
		fold[i] = r % k
	}
	return fold
}
