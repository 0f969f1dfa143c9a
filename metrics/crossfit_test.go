package metrics

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFoldOfIsPureAndBalanced(t *testing.T) {
	counts := make([]int, 5)
	moved := 0
	for i := 0; i < 10000; i++ {
		id := fmt.Sprintf("claim-%05d", i)
		f := FoldOf(id, 1, 5)
		require.Equal(t, f, FoldOf(id, 1, 5), "a pure function")
		counts[f]++
		if FoldOf(id, 2, 5) != f {
			moved++
		}
	}
	for f, n := range counts {
		assert.InDelta(t, 2000, n, 120, "fold %d holds %d of 10,000", f, n)
	}
	assert.InDelta(t, 8000, moved, 300, "another seed reassigns about 4 in 5")
}

func TestCrossFitIsOutOfSample(t *testing.T) {
	outs := synthetic(3000, 2, 41)
	for i := range outs {
		if i%7 == 0 {
			outs[i].Gold = Unknown
		}
	}
	res := CrossFit(outs, CrossFitOptions{Seed: 9})
	require.True(t, res.Fitted, res.Reason)
	assert.Equal(t, len(labelledScored(outs)), res.Labelled)
	assert.InEpsilon(t, 2, res.Full, 0.1)
	assert.Equal(t, FitTemperature(outs), res.Full)
	require.Len(t, res.Folds, 5)
	n := 0
	for f, ff := range res.Folds {
		var others []Outcome
		for _, o := range outs {
			if o.Gold != Unknown && FoldOf(o.ID, 9, 5) != f {
				others = append(others, o)
			}
		}
		assert.Equal(t, FitTemperature(others), ff.Temperature, "fold %d is fitted on the other folds", f)
		assert.False(t, ff.AtBound)
		n += ff.N
	}
	assert.Equal(t, res.Labelled, n)
	for i, o := range outs {
		if o.Gold == Unknown {
			assert.Equal(t, res.Full, res.PerOutcome[i], "no gold: the full-data T")
		} else {
			assert.Equal(t, res.Folds[FoldOf(o.ID, 9, 5)].Temperature, res.PerOutcome[i])
		}
	}
	// A claim's own label never reaches its temperature: change it and its
	// T stays (other folds' do move).
	changed := append([]Outcome(nil), outs...)
	changed[1].Gold = (changed[1].Gold + 1) % 3
	again := CrossFit(changed, CrossFitOptions{Seed: 9})
	assert.Equal(t, res.PerOutcome[1], again.PerOutcome[1])
	assert.NotEqual(t, res.Full, again.Full)
}

func TestCrossFitNeedsEnoughClaims(t *testing.T) {
	six := synthetic(6, 3, 2)
	res := CrossFit(six, CrossFitOptions{})
	assert.False(t, res.Fitted)
	assert.Equal(t, "6 labelled claims with logits, fewer than the minimum of 100 (--min-calibration)", res.Reason)
	assert.Equal(t, 1.0, res.Full)
	for _, t0 := range res.PerOutcome {
		assert.Equal(t, 1.0, t0)
	}
	assert.Empty(t, res.Folds)
	assert.False(t, Calibrate(six, CalibrateOptions{Force: true}).Applied, "nothing fitted, nothing applied")

	// The same six fitted anyway land on a bound, and say so.
	sep := make([]Outcome, 0, 120)
	for i := 0; i < 120; i++ {
		g := Class(i % 3)
		var z [3]float64
		z[g] = 8
		sep = append(sep, Outcome{ID: fmt.Sprint(i), Gold: g, Predicted: g, Scored: true, Logits: z})
	}
	res = CrossFit(sep, CrossFitOptions{})
	require.True(t, res.Fitted)
	assert.Equal(t, MinTemperature, res.Full)
	assert.True(t, res.FullAtBound, "separable claims drive T to its floor: flagged")
	assert.True(t, res.Folds[0].AtBound)
}

func TestScaledIsSoftmaxAtT(t *testing.T) {
	outs := synthetic(500, 1.5, 3)
	temps := make([]float64, len(outs))
	for i := range temps {
		temps[i] = 0.3 + float64(i%11)/4
	}
	s := Scaled(outs, temps)
	for i, o := range outs {
		assert.Equal(t, Softmax(o.Logits, temps[i]), Softmax(s[i].Logits, 1), "bit for bit")
		assert.Equal(t, Argmax(o.Logits), Argmax(s[i].Logits), "scaling keeps the argmax")
	}
	assert.Equal(t, outs[0].Logits, Scaled(outs, nil)[0].Logits)
	assert.Panics(t, func() { Scaled(outs, temps[:3]) })
	assert.False(t, math.IsNaN(Calibration(s, 1).ECE10))
}

func TestScaleInPlaceEqualsScaledAndRestoresExactly(t *testing.T) {
	outs := synthetic(500, 1.5, 3)
	temps := make([]float64, len(outs))
	for i := range temps {
		temps[i] = 0.3 + float64(i%11)/7 // 1/7 steps: x/T*T need not give x back
	}
	before := slices.Clone(outs)
	want := Scaled(outs, temps)
	restore := ScaleInPlace(outs, temps)
	assert.Equal(t, want, outs, "in place, the same calibrated outcomes as Scaled")
	assert.NotEqual(t, before, outs)
	restore()
	assert.Equal(t, before, outs, "the raw logits back bit for bit")
	ScaleInPlace(outs, nil)()
	assert.Equal(t, before, outs)
	assert.Panics(t, func() { ScaleInPlace(outs, temps[:3]) })
}

// Issue 24 case 16: more folds than labelled claims leave folds with
// nothing held out; they are not fitted again (their training set is
// every labelled claim: T = Full), and every fold still equals the fit on
// the other folds.
func TestEmptyFoldsAreNotFittedAgain(t *testing.T) {
	outs := synthetic(40, 2, 7)
	const k = MaxFolds
	res := CrossFit(outs, CrossFitOptions{Seed: 3, K: k, Min: 10})
	require.True(t, res.Fitted, res.Reason)
	require.Len(t, res.Folds, k)
	empty := 0
	for f, ff := range res.Folds {
		var others []Outcome
		for _, o := range outs {
			if o.Gold != Unknown && FoldOf(o.ID, 3, k) != f {
				others = append(others, o)
			}
		}
		assert.Equal(t, FitTemperature(others), ff.Temperature, "fold %d", f)
		if ff.N == 0 {
			empty++
			assert.Equal(t, res.Full, ff.Temperature)
		}
	}
	assert.Positive(t, empty)
}
