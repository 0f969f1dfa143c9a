package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The calibration code as it was before it read Scores (copies of the
// training outcomes per fold, a scaled copy of every outcome): the oracle
// TestCalibrateScoresEqualsOutcomes holds the new code to.

func fitTemperatureOld(outs []Outcome) float64 {
	// Only the logit differences are kept (not a copy of the labelled
	// outcomes): the fit runs on every outcome of a run.
	n := 0
	for _, o := range outs {
		if o.Gold != Unknown && o.Scored {
			n++
		}
	}
	if n == 0 {
		return 1
	}
	// Per outcome keep the two non-maximal logits relative to the maximum
	// (da, db <= 0) and the gold logit relative to it (dy): then
	// E_p[z] − z_gold = (ea·da + eb·db)/(1 + ea + eb) − dy with ea = e^{β·da},
	// two exponentials per outcome and step.
	type diffs struct{ da, db, dy float64 }
	d := make([]diffs, 0, n)
	for _, o := range outs {
		if o.Gold == Unknown || !o.Scored {
			continue
		}
		m := Argmax(o.Logits)
		a, b := (m+1)%3, (m+2)%3
		zm := o.Logits[m]
		d = append(d, diffs{o.Logits[a] - zm, o.Logits[b] - zm, o.Logits[o.Gold] - zm})
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

func crossFitOld(outs []Outcome, opts CrossFitOptions) CrossFitResult {
	if opts.K < 2 {
		opts.K = DefaultFolds
	}
	if opts.Min <= 0 {
		opts.Min = DefaultMinCalibration
	}
	res := CrossFitResult{K: opts.K, Seed: opts.Seed, Min: opts.Min, Full: 1, PerOutcome: make([]float64, len(outs))}
	for i := range res.PerOutcome {
		res.PerOutcome[i] = 1
	}
	fold := make([]int, len(outs))
	for i, o := range outs {
		fold[i] = -1
		if o.Gold != Unknown && o.Scored {
			if o.Fold > 0 {
				fold[i] = int(o.Fold) - 1
			} else {
				fold[i] = FoldOf(o.ID, opts.Seed, opts.K)
			}
			res.Labelled++
		}
	}
	if res.Labelled < opts.Min {
		res.Reason = fmt.Sprintf("%d labelled claims with logits, fewer than the minimum of %d (--min-calibration)", res.Labelled, opts.Min)
		if res.Labelled == 0 {
			res.Reason = "no labelled claims with logits"
		}
		return res
	}
	res.Fitted = true
	res.Full = fitTemperatureOld(outs) // it reads the labelled, scored ones
	res.FullAtBound = AtBound(res.Full)
	train := make([]Outcome, 0, res.Labelled)
	held := make([]int, opts.K)
	for _, f := range fold {
		if f >= 0 {
			held[f]++
		}
	}
	for f := 0; f < opts.K; f++ {
		if held[f] == 0 {
			// Nothing held out: its training set is every labelled claim,
			// whose fit is Full (no need to fit it again).
			res.Folds = append(res.Folds, FoldFit{Fold: f, Temperature: res.Full, AtBound: res.FullAtBound})
			continue
		}
		train = train[:0]
		n := 0
		for i, o := range outs {
			switch {
			case fold[i] < 0:
			case fold[i] == f:
				n++
			default:
				train = append(train, o)
			}
		}
		t := fitTemperatureOld(train)
		res.Folds = append(res.Folds, FoldFit{Fold: f, Temperature: t, N: n, AtBound: AtBound(t)})
	}
	for i := range outs {
		if fold[i] >= 0 {
			res.PerOutcome[i] = res.Folds[fold[i]].Temperature
		} else {
			res.PerOutcome[i] = res.Full
		}
	}
	return res
}

func calibrateOld(outs []Outcome, opts CalibrateOptions) CalibrationResult {
	if opts.Threshold == 0 {
		opts.Threshold = 0.10
	}
	cf := crossFitOld(outs, CrossFitOptions{K: opts.Folds, Seed: opts.Seed, Min: opts.Min})
	res := CalibrationResult{Temperature: 1, Before: Calibration(outs, 1), CrossFit: cf}
	res.After = res.Before
	if !cf.Fitted || !(opts.Force || res.Before.ECE10 > opts.Threshold) {
		return res
	}
	res.Applied = true
	res.Temperature = cf.Full
	res.After = Calibration(Scaled(outs, cf.PerOutcome), 1)
	res.After.Temperature = cf.Full
	res.HeldOut = cf.Labelled
	return res
}

// Cross-fitting and calibration on Scores equal the outcome-copying code
// they replaced, digit for digit, on random outcomes: folds from ids and
// preset, K default, small and above 127, labelled share and abstentions
// varied, the minimum met and not, scaling forced and by threshold.
func TestCalibrateScoresEqualsOutcomes(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for c := range 60 {
		n := 50 + r.IntN(600)
		folds := []int{0, 1, 2, 5, 10, 200}[r.IntN(6)]
		outs := make([]Outcome, n)
		for i := range outs {
			o := Outcome{ID: fmt.Sprintf("c-%d-%d", c, i), Gold: Class(r.IntN(4) - 1), Scored: r.IntN(10) > 0}
			if o.Scored {
				o.Logits = [3]float64{r.NormFloat64() * 3, r.NormFloat64() * 3, r.NormFloat64()}
				if o.Gold >= 0 && r.IntN(3) > 0 {
					o.Logits[o.Gold] += 2
				}
				o.Predicted = Argmax(Softmax(o.Logits, 1))
			}
			o.Abstained = !o.Scored || r.IntN(8) == 0
			if folds > 1 && folds < 128 && r.IntN(2) == 0 {
				o.Fold = int8(FoldOf(o.ID, 7, folds) + 1)
			}
			outs[i] = o
		}
		opts := CalibrateOptions{Threshold: []float64{0, 0.01, 0.5}[r.IntN(3)], Folds: folds, Seed: 7, Min: []int{0, 20, 1000}[r.IntN(3)], Force: r.IntN(4) == 0}
		want, got := calibrateOld(outs, opts), Calibrate(outs, opts)
		// Printed, so that the NaN of an empty bin equals itself.
		require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "case %d", c)
		cf := CrossFitOptions{K: folds, Seed: 7, Min: opts.Min}
		require.Equal(t, fmt.Sprint(crossFitOld(outs, cf)), fmt.Sprint(CrossFit(outs, cf)), "case %d", c)
		require.Equal(t, fitTemperatureOld(outs), FitTemperature(outs), "case %d", c)
	}
}
