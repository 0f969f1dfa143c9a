package estimate

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		n     int
		want  []int
	}{
		{[]int{500, 300, 200}, 100, []int{50, 30, 20}},
		{[]int{990, 5, 5}, 20, []int{16, 2, 2}},
		{[]int{1, 99}, 10, []int{1, 9}},
		{[]int{3, 3}, 6, []int{3, 3}},
	} {
		got, err := Allocate(tc.sizes, tc.n)
		if err != nil {
			t.Fatalf("%v %d: %v", tc.sizes, tc.n, err)
		}
		for h := range got {
			if got[h] != tc.want[h] {
				t.Errorf("Allocate(%v, %d) = %v, want %v", tc.sizes, tc.n, got, tc.want)
				break
			}
		}
	}
	if _, err := Allocate([]int{10, 10, 10}, 5); err == nil {
		t.Error("5 draws over 3 strata of 10 (6 needed): no error")
	}
}

func TestActiveProbabilities(t *testing.T) {
	u := []float64{0, 0, 0, 0.5, 0.9, 0.01, 0.2, 0.7, 0, 0.3}
	pi, err := ActiveProbabilities(u, 4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for i, p := range pi {
		sum += p
		if p <= 0 || p > 1 {
			t.Errorf("pi[%d] = %v outside (0, 1]", i, p)
		}
		if p < 0.5*4/float64(len(u))-1e-12 {
			t.Errorf("pi[%d] = %v below the uniform floor", i, p)
		}
	}
	if math.Abs(sum-4) > 1e-9 {
		t.Errorf("sum of pi = %v, want 4", sum)
	}
	if !(pi[4] > pi[3] && pi[3] > pi[0]) {
		t.Errorf("more uncertain claims must be likelier: %v", pi)
	}
	// A cap: one claim holds nearly all the uncertainty.
	pi, _ = ActiveProbabilities([]float64{1, 0, 0, 0, 0, 0}, 3, 0.1)
	if pi[0] != 1 || math.Abs(pi[1]-0.4) > 1e-9 {
		t.Errorf("capped: %v, want [1 0.4 ...]", pi)
	}
}

// A census (every claim reviewed) gives the exact value with no
// uncertainty, under each design.
func TestCensusIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pop := makePopulation(rng, 50, 1)
	all := make([]int, 50)
	for i := range all {
		all[i] = i
	}
	strat := make([]int, 50)
	for i := range strat {
		strat[i] = pop.pred[i]
	}
	sizes := make([]int, 3)
	for _, h := range strat {
		sizes[h]++
	}
	for _, d := range []Design{{Kind: Uniform, N: 50}, {Kind: Stratified, N: 50, StratumSizes: sizes}, {Kind: Active, N: 50}} {
		for _, q := range simQuantities {
			var tot Totals
			var ta, tb float64
			s := make([]Obs, 50)
			for i := range 50 {
				a, b, fa, fb := q.q(pop, i)
				tot.FA += fa
				tot.FB += fb
				ta += a
				tb += b
				s[i] = Obs{Pi: 1, Stratum: strat[i], A: a, B: b, FA: fa, FB: fb}
			}
			for _, tuned := range []bool{false, true} {
				r := Ratio(d, tot, s, tuned)
				if math.Abs(r.Value-ta/tb) > 1e-9 || r.SE > 1e-9 {
					t.Errorf("%s %s tuned=%v: %v ± %v, want %v ± 0", d.Kind, q.name, tuned, r.Value, r.SE, ta/tb)
				}
			}
		}
	}
}

func TestNotEstimable(t *testing.T) {
	d := Design{Kind: Stratified, N: 10, StratumSizes: []int{5, 5}}
	s := []Obs{{Stratum: 0, A: 1, B: 1}, {Stratum: 0, B: 1}, {Stratum: 1, A: 1, B: 1}}
	if r := Ratio(d, Totals{}, s, true); r.Estimable() || !math.IsNaN(r.Value) {
		t.Errorf("one reviewed claim in a stratum of 5: %+v, want not estimable", r)
	}
	u := Design{Kind: Uniform, N: 10}
	if r := Ratio(u, Totals{}, []Obs{{A: 0, B: 0}, {A: 0, B: 0}}, false); r.Estimable() {
		t.Errorf("empty denominator: %+v, want not estimable", r)
	}
	// No false accept seen: the interval still has a positive upper end.
	r := Ratio(u, Totals{}, []Obs{{A: 0, B: 1}, {A: 0, B: 1}, {A: 0, B: 1}}, false).Share(3)
	if r.Value != 0 || r.Lo != 0 || !(r.Hi > 0.3) {
		t.Errorf("0 of 3: %+v, want 0 with a Wilson upper end above 0.3", r)
	}
}
