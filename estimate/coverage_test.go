package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// population is synthetic claims with a known true label y (0 supported,
// 1 unsupported, 2 insufficient) and a verifier's probabilities p.
type population struct {
	y        []int
	p        [][3]float64
	pred     []int
	answered []bool
}

// makePopulation draws N claims; signal scales how much the verifier's
// logits know of the true label (0: a random verifier).
func makePopulation(rng *rand.Rand, N int, signal float64) population {
	prior := [3]float64{0.35, 0.2, 0.45}
	pop := population{y: make([]int, N), p: make([][3]float64, N), pred: make([]int, N), answered: make([]bool, N)}
	for i := range N {
		u := rng.Float64()
		y := 0
		for u > prior[y] && y < 2 {
			u -= prior[y]
			y++
		}
		var z [3]float64
		for k := range z {
			z[k] = rng.NormFloat64()
			if k == y {
				z[k] += signal
			}
		}
		var s float64
		best := 0
		for k := range z {
			z[k] = math.Exp(z[k])
			s += z[k]
			if z[k] > z[best] {
				best = k
			}
		}
		for k := range z {
			pop.p[i][k] = z[k] / s
		}
		pop.y[i], pop.pred[i], pop.answered[i] = y, best, pop.p[i][best] >= 0.45
	}
	return pop
}

// quantity maps a claim to (A, B, FA, FB): the share of supported claims,
// accuracy among answered claims, tier-1 false accepts among answered gold
// negatives.
type quantity func(pop population, i int) (a, b, fa, fb float64)

func ind(c bool) float64 {
	if c {
		return 1
	}
	return 0
}

var simQuantities = []struct {
	name string
	q    quantity
}{
	{"share_supported", func(p population, i int) (float64, float64, float64, float64) {
		return ind(p.y[i] == 0), 1, p.p[i][0], 1
	}},
	{"accuracy", func(p population, i int) (float64, float64, float64, float64) {
		ans := ind(p.answered[i])
		return ans * ind(p.pred[i] == p.y[i]), ans, ans * p.p[i][p.pred[i]], ans
	}},
	{"tier1_fa", func(p population, i int) (float64, float64, float64, float64) {
		ans := ind(p.answered[i])
		fa := ans * ind(p.pred[i] == 0)
		return fa * ind(p.y[i] != 0), ans * ind(p.y[i] != 0), fa * (1 - p.p[i][0]), ans * (1 - p.p[i][0])
	}},
}

// drawSample draws the reviewed claims of one replication.
func drawSample(t *testing.T, rng *rand.Rand, pop population, kind Kind, n int) (Design, []int, []float64, []int) {
	N := len(pop.y)
	switch kind {
	case Uniform:
		idx, err := DrawUniform(rng, N, n)
		if err != nil {
			t.Fatal(err)
		}
		pi := make([]float64, N)
		for i := range pi {
			pi[i] = float64(n) / float64(N)
		}
		return Design{Kind: Uniform, N: N}, idx, pi, nil
	case Stratified:
		strat := make([]int, N)
		for i := range strat {
			strat[i] = pop.pred[i]
			if !pop.answered[i] {
				strat[i] = 3
			}
		}
		idx, alloc, d, err := DrawStratified(rng, strat, 4, n)
		if err != nil {
			t.Fatal(err)
		}
		pi := make([]float64, N)
		for i := range pi {
			pi[i] = float64(alloc[strat[i]]) / float64(d.StratumSizes[strat[i]])
		}
		return d, idx, pi, strat
	}
	u := make([]float64, N)
	for i := range u {
		u[i] = 1 - pop.p[i][pop.pred[i]]
	}
	pi, err := ActiveProbabilities(u, n, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	return Design{Kind: Active, N: N}, DrawPoisson(rng, pi), pi, nil
}

// TestCoverage is the proof that the intervals are valid: over 1,000
// seeded replications per design and verifier (a new population each
// time), the nominal 95% intervals of the prediction-powered and the
// classical estimators cover the population's true value at a rate in
// [0.93, 0.97] — within binomial error (±0.02 is 2.9 standard errors at
// 1,000 replications) — for uniform, stratified and active sampling, with
// an informative and with a random verifier.
func TestCoverage(t *testing.T) {
	const reps, N, n = 1000, 2000, 200
	for vi, verifier := range []struct {
		name   string
		signal float64
	}{{"informative", 1.6}, {"random", 0}} {
		for ki, kind := range []Kind{Uniform, Stratified, Active} {
			rng := rand.New(rand.NewPCG(27, uint64(10*vi+ki)))
			covered := map[string]int{}
			widthRatio := map[string]float64{}
			runs := map[string]int{}
			for range reps {
				pop := makePopulation(rng, N, verifier.signal)
				d, idx, pi, strat := drawSample(t, rng, pop, kind, n)
				for _, q := range simQuantities {
					var tot Totals
					var truthA, truthB float64
					for i := range N {
						a, b, fa, fb := q.q(pop, i)
						tot.FA += fa
						tot.FB += fb
						truthA += a
						truthB += b
					}
					truth := truthA / truthB
					s := make([]Obs, len(idx))
					for j, i := range idx {
						a, b, fa, fb := q.q(pop, i)
						s[j] = Obs{Pi: pi[i], A: a, B: b, FA: fa, FB: fb}
						if strat != nil {
							s[j].Stratum = strat[i]
						}
					}
					var width [2]float64
					for m, tuned := range []bool{true, false} {
						r := Ratio(d, tot, s, tuned).Share(Denominator(s))
						key := q.name + map[bool]string{true: " ppi", false: " classical"}[tuned]
						if !r.Estimable() {
							t.Fatalf("%s %s %s: not estimable: %s", verifier.name, kind, key, r.Reason)
						}
						runs[key]++
						if r.Lo <= truth && truth <= r.Hi {
							covered[key]++
						}
						width[m] = r.Hi - r.Lo
					}
					widthRatio[q.name] += width[0] / width[1] / reps
				}
			}
			for _, q := range simQuantities {
				for _, m := range []string{" ppi", " classical"} {
					key := q.name + m
					c := float64(covered[key]) / float64(runs[key])
					msg := fmt.Sprintf("%-11s %-10s %-28s coverage %.3f over %d", verifier.name, kind, key, c, runs[key])
					if m == " ppi" {
						msg += fmt.Sprintf(", mean width ratio ppi/classical %.3f", widthRatio[q.name])
					}
					t.Log(msg)
					if c < 0.93 || c > 0.97 {
						t.Errorf("%s: outside [0.93, 0.97]", msg)
					}
				}
			}
		}
	}
}
