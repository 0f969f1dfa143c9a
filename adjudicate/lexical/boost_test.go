package lexical

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An XOR of two features is beyond a linear model; a few depth-2 trees on
// top of it learn it, and the weights survive their file format.
func TestBoostLearnsWhatTheLinearModelCannot(t *testing.T) {
	p := &Prepared{Name: "xor"}
	for i := 0; i < 200; i++ {
		var x [nf]float64
		a, b := i%2, (i/2)%2
		x[1], x[2] = float64(a)+float64(i%7)/100, float64(b)+float64(i%5)/100
		p.X = append(p.X, x)
		p.Y = append(p.Y, map[bool]int{true: 0, false: 1}[a != b])
	}
	linear, ml, err := Fit([]*Prepared{p}, TrainOptions{})
	require.NoError(t, err)
	assert.Nil(t, linear.Boost)
	boosted, mb, err := Fit([]*Prepared{p}, TrainOptions{Boost: BoostOptions{Rounds: 20, Depth: 2, LearningRate: 0.5}})
	require.NoError(t, err)
	require.Len(t, boosted.Boost.Trees, 20)
	assert.Less(t, ml["accuracy"], 0.8)
	assert.Equal(t, 1.0, mb["accuracy"])
	assert.Contains(t, boosted.Learner(), "20 rounds")

	b, err := boosted.Marshal()
	require.NoError(t, err)
	back, err := ParseWeights(b)
	require.NoError(t, err)
	for _, x := range p.X {
		assert.Equal(t, boosted.Logits(x), back.Logits(x))
	}
	again, _, err := Fit([]*Prepared{p}, TrainOptions{Boost: BoostOptions{Rounds: 20, Depth: 2, LearningRate: 0.5}})
	require.NoError(t, err)
	b2, err := again.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(b), string(b2), "the same inputs give the same bytes")

	// A tree whose child points back up is refused.
	bad := strings.Replace(string(b), `"left": [`+"\n"+`            1`, `"left": [`+"\n"+`            0`, 1)
	require.NotEqual(t, string(b), bad)
	_, err = ParseWeights([]byte(bad))
	assert.ErrorContains(t, err, "boost round")
}
