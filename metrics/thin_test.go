package metrics

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThinCurveBoundsTheCurveWithExactPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	n := 50000
	conf, correct := make([]float64, n), make([]bool, n)
	for i := range conf {
		conf[i] = r.Float64()
		correct[i] = r.Float64() < conf[i]
	}
	full := RiskCoverageOf(conf, correct)
	require.Greater(t, len(full), 40000, "distinct confidences: one point each")
	thin := ThinCurve(full, CurvePoints)
	assert.LessOrEqual(t, len(thin), CurvePoints+2)
	assert.Greater(t, len(thin), CurvePoints/2)
	assert.Equal(t, full[0], thin[0], "the first point is kept")
	assert.Equal(t, full[len(full)-1], thin[len(thin)-1], "the last point (coverage 1, overall risk) is kept")
	first := map[int]RCPoint{} // the first point of the full curve in each bucket
	for _, p := range full {
		if _, ok := first[CurveBucket(p.Coverage, CurvePoints)]; !ok {
			first[CurveBucket(p.Coverage, CurvePoints)] = p
		}
	}
	assert.Len(t, thin[:len(thin)-1], len(first)-1, "one point per bucket the curve visits (the last bucket holds only the end)")
	for i, p := range thin[:len(thin)-1] {
		assert.Equal(t, first[CurveBucket(p.Coverage, CurvePoints)], p, "point %d is its bucket's first point of the full curve", i)
	}
	// A small curve is kept whole.
	small := full[:CurvePoints+2]
	assert.Equal(t, small, ThinCurve(small, CurvePoints))
}
