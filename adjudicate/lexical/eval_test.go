package lexical

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ExampleROCAUC() {
	// Positives 0.9 and 0.4, negatives 0.5 and 0.1: three of the four
	// positive–negative pairs are ordered right.
	fmt.Println(ROCAUC([]float64{0.9, 0.4, 0.5, 0.1}, []bool{true, true, false, false}))
	// A tie counts half.
	fmt.Println(ROCAUC([]float64{0.5, 0.5}, []bool{true, false}))
	// Output:
	// 0.75
	// 0.5
}

func TestMetricsUndefinedWithOneClass(t *testing.T) {
	assert.True(t, math.IsNaN(ROCAUC([]float64{0.1, 0.2}, []bool{true, true})))
	assert.True(t, math.IsNaN(BalancedAccuracy(3, 1, 0, 0)))
	assert.InDelta(t, (0.75+0.5)/2, BalancedAccuracy(3, 1, 1, 1), 1e-12)
}

// A set whose labels are 90% insufficient counts no more than a small
// balanced one, and within a set every label counts the same.
func TestBalancedWeights(t *testing.T) {
	big := &Prepared{Y: append(make([]int, 10), 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)}
	small := &Prepared{Y: []int{0, 1, 0, 1}}
	w := sampleWeights([]*Prepared{big, small}, true)
	sum := func(lo, hi int, label int, ys []int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			if label < 0 || ys[i-lo] == label {
				s += w[i]
			}
		}
		return s
	}
	nb := len(big.Y)
	assert.InDelta(t, sum(0, nb, -1, big.Y), sum(nb, len(w), -1, small.Y), 1e-9)
	assert.InDelta(t, sum(0, nb, 0, big.Y), sum(0, nb, 2, big.Y), 1e-9)
	for _, v := range sampleWeights([]*Prepared{big, small}, false) {
		assert.Equal(t, 1.0, v)
	}
}

// A two-way set (no insufficient gold) says "not supported", never which
// of unsupported or insufficient: fitting on it alone leaves the two
// classes' weights equal.
func TestTwoWaySetDoesNotTeachInsufficientAway(t *testing.T) {
	p := twoWaySet()
	w, _, err := Fit([]*Prepared{p}, TrainOptions{})
	require.NoError(t, err)
	assert.InDelta(t, w.Bias[1], w.Bias[2], 1e-9)
	for j := range w.W[1] {
		assert.InDelta(t, w.W[1][j], w.W[2][j], 1e-9)
	}
	assert.Greater(t, w.W[0][1], w.W[1][1], "coverage still argues for supported")
}

func TestLeaveOneOutTestsEachSetOnItsOwn(t *testing.T) {
	mk := func(name string, shift float64) *Prepared {
		p := &Prepared{Name: name}
		for i := 0; i < 60; i++ {
			var x [nf]float64
			y := i % 3
			x[2] = b2f(y == 0) + shift + float64(i%4)/10
			x[5] = b2f(y == 2)
			p.X = append(p.X, x)
			p.Y = append(p.Y, y)
		}
		return p
	}
	sets := []*Prepared{mk("a", 0), mk("b", 0.1), mk("c", 0.2)}
	rows, err := LeaveOneOut(sets, TrainOptions{Balance: true})
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for i, r := range rows {
		assert.Equal(t, sets[i].Name, r.Set)
		assert.Equal(t, [3]int{20, 20, 20}, r.Counts)
		assert.Greater(t, r.BalancedAccuracy, 0.9, "the signal is the same in every set")
		assert.Greater(t, r.AUC, 0.9)
	}
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, rows))
	assert.Contains(t, b.String(), "| a | 60 | 20 / 20 / 20 |")
	assert.Contains(t, b.String(), "real sets: mean balanced accuracy")
}

func TestSetFromDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fever_like")
	require.NoError(t, os.Mkdir(dir, 0o755))
	_, err := SetFromDir(dir)
	assert.ErrorContains(t, err, "corpus.jsonl")
	for _, f := range []string{"corpus.jsonl", "claims.jsonl", "gold_labels.jsonl"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("{}\n"), 0o644))
	}
	s, err := SetFromDir(dir)
	require.NoError(t, err)
	assert.Equal(t, "fever_like", s.Name)
	assert.Equal(t, filepath.Join(dir, "gold_labels.jsonl"), s.Gold)
	assert.Empty(t, s.Spans)
	assert.False(t, s.Synthetic)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"generator_version": 1}`), 0o644))
	s, err = SetFromDir(dir)
	require.NoError(t, err)
	assert.True(t, s.Synthetic)
}

func TestLongestRun(t *testing.T) {
	a := []string{"x", "born", "in", "paris"}
	assert.Equal(t, 3, longestRun(a, []string{"he", "was", "born", "in", "paris", "x"}))
	assert.Equal(t, 1, longestRun(a, []string{"paris", "in", "born"}))
	assert.Equal(t, 0, longestRun(a, nil))
}

// twoWaySet is 40 claims labelled supported or unsupported only (no
// insufficient gold), supported when features 1 and 2 are high together.
func twoWaySet() *Prepared {
	p := &Prepared{Name: "two-way"}
	for i := 0; i < 40; i++ {
		var x [nf]float64
		x[1] = float64(i%7) / 7
		x[2] = float64(i%5) / 5
		p.X = append(p.X, x)
		p.Y = append(p.Y, map[bool]int{true: 0, false: 1}[x[1]+x[2] > 0.8])
	}
	return p
}
