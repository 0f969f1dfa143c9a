package metrics

import (
	"fmt"
	"math"
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
	// Only the logit differences are kept (not a copy of the labelled
	// outcomes): the fit runs on every outcome of a run.
	n := 0
	for _, o := range outs {
		if o.Gold != Unknown && o.Scored {
			n++
		}
	}
	d := make([]logitDiffs, 0, n)
	for _, o := range outs {
		if o.Gold != Unknown && o.Scored {
			d = append(d, diffsOf(o.Logits, o.Gold))
		}
	}
	return fitDiffs(d)
}

// logitDiffs is what the temperature fit reads of a labelled outcome with
// logits: the two non-maximal logits relative to the maximum (da, db <= 0)
// and the gold logit relative to it (dy). Then E_p[z] − z_gold =
// (ea·da + eb·db)/(1 + ea + eb) − dy with ea = e^{β·da}: two exponentials
// per outcome and step.
type logitDiffs struct{ da, db, dy float64 }

func diffsOf(z [3]float64, gold Class) logitDiffs {
	m := Argmax(z)
	a, b := (m+1)%3, (m+2)%3
	zm := z[m]
	return logitDiffs{z[a] - zm, z[b] - zm, z[gold] - zm}
}

// fitDiffs is FitTemperature on the outcomes' logitDiffs, in their order.
func fitDiffs(d []logitDiffs) float64 {
	if len(d) == 0 {
		return 1
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
	Folds     int     // cross-fitting folds; default DefaultFolds
	Seed      uint64  // fold assignment (FoldOf)
	Min       int     // fewest labelled claims with logits to fit on; default DefaultMinCalibration
	// Force applies scaling whatever the raw ECE (when a temperature is
	// fitted at all).
	Force bool
}

// CalibrationResult says whether temperature scaling was applied and
// measures calibration before and after, both on the answered, labelled
// claims. After is out of sample: each labelled claim is scaled by the T
// of its cross-fitting fold (CrossFit.PerOutcome).
type CalibrationResult struct {
	Applied     bool
	Temperature float64 // the full-data T (CrossFit.Full) when applied; 1 otherwise
	Before      CalibrationReport
	After       CalibrationReport
	// HeldOut is the number of labelled claims with logits (each measured
	// with a T fitted without it).
	HeldOut  int
	CrossFit CrossFitResult
}

// Calibrate cross-fits a temperature (CrossFit) and applies it when a
// temperature was fitted and the raw 10-bin ECE exceeds the threshold (or
// Force is set). An undefined raw ECE (no answered labelled claims) never
// triggers scaling.
func Calibrate(outs []Outcome, opts CalibrateOptions) CalibrationResult {
	return CalibrateScores(ScoresOf(outs, opts.Folds, opts.Seed), opts)
}

// CalibrateScores is Calibrate on the scores of the outcomes (ScoresOf,
// with the same folds and seed).
func CalibrateScores(ss []Score, opts CalibrateOptions) CalibrationResult {
	if opts.Threshold == 0 {
		opts.Threshold = 0.10
	}
	cf := CrossFitScores(ss, CrossFitOptions{K: opts.Folds, Seed: opts.Seed, Min: opts.Min})
	res := CalibrationResult{Temperature: 1, Before: CalibrationOfScores(ss, 1), CrossFit: cf}
	res.After = res.Before
	if !cf.Fitted || !(opts.Force || res.Before.ECE10 > opts.Threshold) {
		return res
	}
	res.Applied = true
	res.Temperature = cf.Full
	res.After = CalibrationOfScores(ScaledScores(ss, cf.PerOutcome), 1)
	res.After.Temperature = cf.Full
	res.HeldOut = cf.Labelled
	return res
}

// ScaledScores is Scaled on scores: copies whose logits are divided by
// their temperature (temps[i] for ss[i]).
func ScaledScores(ss []Score, temps []float64) []Score {
	if len(temps) != len(ss) {
		panic(fmt.Sprintf("metrics.ScaledScores: %d temperatures for %d scores", len(temps), len(ss)))
	}
	s := make([]Score, len(ss))
	copy(s, ss)
	for i := range s {
		if s[i].Scored && temps[i] != 1 {
			for k := range s[i].Logits {
				s[i].Logits[k] /= temps[i]
			}
		}
	}
	return s
}
