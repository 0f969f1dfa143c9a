package metrics

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
)

// Cross-fitting defaults.
const (
	// DefaultFolds is K when CrossFitOptions.K is below 2.
	DefaultFolds = 5
	// MaxFolds bounds K (the command line refuses more): beyond it folds
	// differ by a claim or two, and each fold is one more fit over all the
	// others (--folds 1000000 once ran for hours).
	MaxFolds = 100
	// DefaultMinCalibration is the fewest labelled claims with logits a
	// temperature is fitted on. With 5 folds each fold's T then comes from
	// at least 80 claims, and the 10-bin ECE that decides and judges the
	// fit sees about 10 claims a bin; below that a one-parameter NLL fit
	// is mostly noise, and on a handful of well-separated claims the
	// optimum runs to a bound (6 claims fit T = 0.05 and turn a raw 0.68
	// into 0.9999999999).
	DefaultMinCalibration = 100
)

// FoldOf is the cross-fitting fold of a claim: a pure function of the
// seed, the claim id and K, so `audit report` recomputes it from records.
// h = FNV-1a-64(seed as 8 little-endian bytes ‖ id), then the splitmix64
// finaliser (FNV's low bits alone spread short similar ids poorly), mod k.
func FoldOf(id string, seed uint64, k int) int {
	if k < 2 {
		return 0
	}
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(id))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return int(x % uint64(k))
}

// CrossFitOptions tune CrossFit. Zero values take the defaults.
type CrossFitOptions struct {
	K    int    // folds; below 2: DefaultFolds
	Seed uint64 // fold assignment (FoldOf)
	Min  int    // fewest labelled claims with logits to fit on; 0: DefaultMinCalibration
}

// FoldFit is the temperature fitted for one fold: on the labelled claims
// of every other fold, applied to the N labelled claims of this one.
type FoldFit struct {
	Fold        int     `json:"fold"`
	Temperature float64 `json:"temperature"`
	N           int     `json:"n"`
	AtBound     bool    `json:"at_bound"`
}

// CrossFitResult is a cross-fitted temperature.
type CrossFitResult struct {
	K        int    // folds used
	Seed     uint64 // fold assignment
	Min      int    // the minimum that applied
	Labelled int    // labelled claims with logits (what T is fitted on)

	// Fitted says a temperature was fitted; Reason says why not.
	Fitted bool
	Reason string
	// Full is T fitted on every labelled claim: the one claims without
	// gold get and a later run reuses. 1 when not fitted.
	Full        float64
	FullAtBound bool
	// Folds, when fitted: fold f's T was fitted without fold f.
	Folds []FoldFit
	// PerOutcome is the temperature of each outcome, in input order: for a
	// labelled claim with logits the T of its fold (fitted on the other
	// folds), for every other claim Full. All 1 when not fitted.
	PerOutcome []float64
}

// AtBound says a fitted T sits on MinTemperature or MaxTemperature: the
// NLL kept falling past the bound, and the fit says more about the data
// (too few claims, or separable ones) than about calibration.
func AtBound(t float64) bool {
	const tol = 1e-9
	return math.Abs(t-MinTemperature) <= tol*MinTemperature || math.Abs(t-MaxTemperature) <= tol*MaxTemperature
}

// CrossFit fits temperatures out of sample. The labelled claims with
// logits (answered or not: the verifier's logits exist either way) are
// split into K folds by FoldOf; fold f's claims get the T fitted on the
// other folds, so no claim's calibrated probabilities come from a fit that
// saw it. Claims without gold or logits get the T fitted on every labelled
// claim. Below opts.Min labelled claims nothing is fitted and every T is
// 1. Temperature scaling never changes a claim's argmax, only its
// confidence. Outcomes need their ID.
func CrossFit(outs []Outcome, opts CrossFitOptions) CrossFitResult {
	return CrossFitScores(ScoresOf(outs, opts.K, opts.Seed), opts)
}

// CrossFitScores is CrossFit on the scores of the outcomes (ScoresOf, with
// the same K and seed): each labelled score's Fold is its fold + 1.
func CrossFitScores(ss []Score, opts CrossFitOptions) CrossFitResult {
	if opts.K < 2 {
		opts.K = DefaultFolds
	}
	if opts.Min <= 0 {
		opts.Min = DefaultMinCalibration
	}
	res := CrossFitResult{K: opts.K, Seed: opts.Seed, Min: opts.Min, Full: 1, PerOutcome: make([]float64, len(ss))}
	for i := range res.PerOutcome {
		res.PerOutcome[i] = 1
	}
	for i := range ss {
		if ss[i].labelledScored() {
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
	// The fits read each labelled claim's logitDiffs (24 bytes): a fold's
	// training set is the other folds' diffs, in claim order, so each fit
	// sees what FitTemperature on the training outcomes would.
	all := make([]logitDiffs, 0, res.Labelled)
	held := make([]int, opts.K)
	for i := range ss {
		if s := &ss[i]; s.labelledScored() {
			if s.Fold < 1 || int(s.Fold) > opts.K {
				panic(fmt.Sprintf("metrics.CrossFitScores: score %d has fold %d for K = %d", i, s.Fold-1, opts.K))
			}
			all = append(all, diffsOf(s.Logits, s.Gold))
			held[s.Fold-1]++
		}
	}
	res.Full = fitDiffs(all)
	res.FullAtBound = AtBound(res.Full)
	train := make([]logitDiffs, 0, res.Labelled)
	for f := 0; f < opts.K; f++ {
		if held[f] == 0 {
			// Nothing held out: its training set is every labelled claim,
			// whose fit is Full (no need to fit it again).
			res.Folds = append(res.Folds, FoldFit{Fold: f, Temperature: res.Full, AtBound: res.FullAtBound})
			continue
		}
		train = train[:0]
		j := 0
		for i := range ss {
			if !ss[i].labelledScored() {
				continue
			}
			if int(ss[i].Fold)-1 != f {
				train = append(train, all[j])
			}
			j++
		}
		t := fitDiffs(train)
		res.Folds = append(res.Folds, FoldFit{Fold: f, Temperature: t, N: held[f], AtBound: AtBound(t)})
	}
	for i := range ss {
		if ss[i].labelledScored() {
			res.PerOutcome[i] = res.Folds[ss[i].Fold-1].Temperature
		} else {
			res.PerOutcome[i] = res.Full
		}
	}
	return res
}

// Scaled returns copies of outs whose logits are divided by their
// temperature (temps[i] for outs[i]; nil: unchanged), so that metrics at
// t = 1 over the copies are the calibrated-stage metrics. Decisions are
// copied as they are: scaling by T > 0 keeps every argmax.
func Scaled(outs []Outcome, temps []float64) []Outcome {
	if temps != nil && len(temps) != len(outs) {
		panic(fmt.Sprintf("metrics.Scaled: %d temperatures for %d outcomes", len(temps), len(outs)))
	}
	s := make([]Outcome, len(outs))
	copy(s, outs)
	if temps == nil {
		return s
	}
	for i := range s {
		if s[i].Scored && temps[i] != 1 {
			for k := range s[i].Logits {
				s[i].Logits[k] /= temps[i]
			}
		}
	}
	return s
}

// ScaleInPlace divides each scored outcome's logits by its temperature as
// Scaled does, but in outs itself, and returns the function that puts the
// raw logits back exactly (from a copy of them, not by multiplying): a
// caller that needs the calibrated stage for a while without a second copy
// of every outcome. nil temps change nothing.
func ScaleInPlace(outs []Outcome, temps []float64) (restore func()) {
	if temps == nil {
		return func() {}
	}
	if len(temps) != len(outs) {
		panic(fmt.Sprintf("metrics.ScaleInPlace: %d temperatures for %d outcomes", len(temps), len(outs)))
	}
	raw := make([][3]float64, len(outs))
	for i := range outs {
		raw[i] = outs[i].Logits
		if outs[i].Scored && temps[i] != 1 {
			for k := range outs[i].Logits {
				outs[i].Logits[k] /= temps[i]
			}
		}
	}
	return func() {
		for i := range outs {
			outs[i].Logits = raw[i]
		}
	}
}
