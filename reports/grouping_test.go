package reports

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// permute puts each element where to says and uses to up; permuting by
// the inverse puts every element back.
func TestPermute(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for range 200 {
		n := r.IntN(300)
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		to := make([]int32, n)
		for i, p := range r.Perm(n) {
			to[i] = int32(p)
		}
		back := make([]int32, n)
		for i, p := range to {
			back[p] = int32(i)
		}
		want := append([]int32(nil), to...)
		permute(s, to)
		for i := range s {
			require.Equal(t, int32(i), want[s[i]], "element %d is at %d", s[i], i)
		}
		permute(s, back)
		for i := range s {
			require.Equal(t, i, s[i])
		}
	}
}

// Compute lays slices side by side in the outcomes it is given and scales
// their logits in place; when it returns, every outcome is back where it
// was with its raw logits (bit for bit), whatever the partitions, the cap
// on sources and the per-claim temperatures.
func TestComputeLeavesOutcomesAsGiven(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for c := range 12 {
		outs := outcomes(150+r.IntN(200), uint64(c))
		temps := make([]float64, len(outs))
		for i := range outs {
			outs[i].Source = fmt.Sprintf("out-%d", r.IntN(25))
			if r.IntN(10) == 0 {
				outs[i].Source = ""
			}
			outs[i].Meta = map[string]string{"topic": []string{"", "a", "b"}[r.IntN(3)]}
			if r.IntN(8) == 0 {
				outs[i].Scored, outs[i].Abstained, outs[i].Logits = false, true, [3]float64{}
			}
			temps[i] = 0.5 + r.Float64()*2
		}
		want := slices.Clone(outs)
		in := Input{RunID: "r", ToolVersion: "test", Outcomes: outs, Temperatures: temps, Resamples: 20,
			MaxSourceSlices: []int{0, 3, -1}[c%3], SliceBy: []string{"topic"}}
		_, err := Compute(in)
		require.NoError(t, err)
		require.Equal(t, len(want), len(outs))
		for i := range outs {
			require.Equal(t, want[i], outs[i], "case %d: outcome %d", c, i)
			for k := range outs[i].Logits {
				require.Equal(t, math.Float64bits(want[i].Logits[k]), math.Float64bits(outs[i].Logits[k]))
			}
		}
	}
}
