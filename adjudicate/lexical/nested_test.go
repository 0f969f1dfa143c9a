package lexical

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In the nested model insufficient is decided from the coverage features
// alone, even when another feature (here the hedge) would separate it in
// the training set; the logits are log-probabilities.
func TestNestedDecidesInsufficientFromCoverageOnly(t *testing.T) {
	hedge, coverage := -1, -1
	for j, n := range FeatureNames {
		switch n {
		case "hedge":
			hedge = j
		case "coverage":
			coverage = j
		}
	}
	p := &Prepared{Name: "three-way"}
	for i := 0; i < 90; i++ {
		var x [nf]float64
		y := i % 3
		x[coverage] = b2f(y != 2)*0.6 + float64(i%7)/10
		x[hedge] = b2f(y == 2)
		x[21] = b2f(y == 0) + float64(i%5)/10 // coverage_x_number_mismatch: not a coverage feature
		p.X = append(p.X, x)
		p.Y = append(p.Y, y)
	}
	w, m, err := Fit([]*Prepared{p}, TrainOptions{Nested: true, Balance: true})
	require.NoError(t, err)
	require.True(t, w.Nested)
	cov := coverageMask()
	named := 0
	for _, c := range cov {
		if c {
			named++
		}
	}
	require.Equal(t, len(CoverageFeatures), named, "every coverage feature is one of FeatureNames")
	for j := 0; j < nf; j++ {
		assert.Zero(t, w.W[1][j])
		if !cov[j] {
			assert.Zero(t, w.W[2][j], FeatureNames[j])
		}
	}
	assert.Less(t, w.W[2][coverage], 0.0, "low coverage argues for insufficient")
	assert.Greater(t, m["accuracy"], 0.9)
	for _, x := range p.X {
		z := w.Logits(x)
		assert.InDelta(t, 1, math.Exp(z[0])+math.Exp(z[1])+math.Exp(z[2]), 1e-12)
	}
	assert.Contains(t, w.Learner(), "nested")

	b, err := w.Marshal()
	require.NoError(t, err)
	back, err := ParseWeights(b)
	require.NoError(t, err)
	assert.True(t, back.Nested)
	for _, x := range p.X {
		assert.Equal(t, w.Logits(x), back.Logits(x))
	}
}

// A two-way set teaches the nested model supported vs unsupported and
// nothing about insufficiency: fitted on one alone, the insufficient part
// stays at zero.
func TestNestedTwoWaySetLeavesInsufficientAlone(t *testing.T) {
	p := twoWaySet()
	w, _, err := Fit([]*Prepared{p}, TrainOptions{Nested: true})
	require.NoError(t, err)
	assert.Zero(t, w.Bias[2])
	for j := range w.W[2] {
		assert.Zero(t, w.W[2][j])
	}
	assert.Greater(t, w.W[0][1], 0.0, "coverage argues for supported")
}
