package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// binomialCases span both samplers (inversion below n·p = 10, BTRS above),
// the boundary between them, the p > ½ fold, and the small-p, huge-n cells
// the bootstrap meets most.
var binomialCases = []struct {
	n int
	p float64
}{
	{1, 0.5}, {5, 0.3}, {24, 0.5}, {30, 0.02}, {1000, 0.005}, {100_000, 9.99e-5},
	{100, 0.1}, {21, 0.49}, {50, 0.5}, {200, 0.95}, {10_000, 0.3}, {1_000_000, 0.7}, {1_000_000, 2e-4},
}

func TestStirlingTailTable(t *testing.T) {
	for k := 0; k < 30; k++ {
		kf := float64(k)
		lg, _ := math.Lgamma(kf + 1)
		want := lg - ((kf+0.5)*math.Log(kf+1) - (kf + 1) + 0.5*math.Log(2*math.Pi))
		if got := stirlingTail(kf); math.Abs(got-want) > 1e-12 {
			t.Errorf("stirlingTail(%d) = %.17g, want %.17g", k, got, want)
		}
	}
}

func TestBinomialEdges(t *testing.T) {
	src := rand.NewPCG(1, 2)
	for _, c := range []struct {
		n    int
		p    float64
		want int
	}{{0, 0.5, 0}, {10, 0, 0}, {10, 1, 10}, {10, -1, 0}, {10, 2, 10}} {
		if got := binomial(c.n, c.p, src); got != c.want {
			t.Errorf("binomial(%d, %g) = %d, want %d", c.n, c.p, got, c.want)
		}
	}
	// Huge n, tiny p: the draws stay in range and near n·p = 1.
	sum := 0
	for range 10000 {
		x := binomial(1_000_000_000, 1e-9, src)
		if x < 0 {
			t.Fatalf("negative draw %d", x)
		}
		sum += x
	}
	if m := float64(sum) / 10000; math.Abs(m-1) > 5*math.Sqrt(1.0/10000) {
		t.Errorf("mean of Binomial(1e9, 1e-9) draws = %g, want 1", m)
	}
}

// TestBinomialMoments holds the sample mean and variance of 200,000 draws
// to n·p and n·p·q within 5 standard errors (the standard error of the
// sample variance from the binomial's fourth central moment μ4 =
// npq·(1 + 3pq·(n − 2)): Var s² = (μ4 − σ⁴·(N−3)/(N−1))/N).
func TestBinomialMoments(t *testing.T) {
	const draws = 200_000
	for i, c := range binomialCases {
		t.Run(fmt.Sprintf("n=%d,p=%g", c.n, c.p), func(t *testing.T) {
			src := rand.NewPCG(11, uint64(i))
			var sum, sum2 float64
			for range draws {
				x := binomial(c.n, c.p, src)
				if x < 0 || x > c.n {
					t.Fatalf("draw %d outside [0, %d]", x, c.n)
				}
				sum += float64(x)
				sum2 += float64(x) * float64(x)
			}
			n, p := float64(c.n), c.p
			q := 1 - p
			mean, variance := n*p, n*p*q
			m := sum / draws
			v := (sum2 - draws*m*m) / (draws - 1)
			mu4 := n * p * q * (1 + 3*p*q*(n-2))
			if se := math.Sqrt(variance / draws); math.Abs(m-mean) > 5*se {
				t.Errorf("mean %g, want %g ± %g", m, mean, 5*se)
			}
			if se := math.Sqrt((mu4 - variance*variance*(draws-3)/(draws-1)) / draws); math.Abs(v-variance) > 5*se {
				t.Errorf("variance %g, want %g ± %g", v, variance, 5*se)
			}
		})
	}
}

// TestBinomialChiSquare is a goodness-of-fit test of 100,000 draws against
// the exact probability mass function: k values are pooled into bins of
// expected count at least 20, and the statistic must stay under the
// chi-square quantile at 1 − 1e-4 (seeded, so the outcome is fixed; a
// biased sampler fails by orders of magnitude).
func TestBinomialChiSquare(t *testing.T) {
	const draws = 100_000
	for i, c := range binomialCases {
		t.Run(fmt.Sprintf("n=%d,p=%g", c.n, c.p), func(t *testing.T) {
			src := rand.NewPCG(13, uint64(i))
			counts := map[int]int{}
			for range draws {
				counts[binomial(c.n, c.p, src)]++
			}
			stat, df := chiSquare(c.n, c.p, counts, draws)
			if df < 1 {
				t.Skip("a single bin")
			}
			crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - 1e-4)
			if stat > crit {
				t.Errorf("chi-square %g over %d degrees of freedom, above %g", stat, df, crit)
			}
		})
	}
}

// chiSquare pools the outcomes — everything below lo, each k in [lo, hi],
// everything above hi, with lo and hi 12 standard deviations out — into
// consecutive bins of expected count ≥ 20 (a short remainder joins the
// last bin) and returns Pearson's statistic and its degrees of freedom.
func chiSquare(n int, p float64, counts map[int]int, draws int) (float64, int) {
	sd := math.Sqrt(float64(n) * p * (1 - p))
	lo := int(math.Max(0, float64(n)*p-12*sd-5))
	hi := int(math.Min(float64(n), float64(n)*p+12*sd+5))
	var probs, obs []float64
	below, obsBelow := cdfBelow(n, p, lo), 0.0
	for k, c := range counts {
		if k < lo {
			obsBelow += float64(c)
		}
	}
	probs, obs = append(probs, below), append(obs, obsBelow)
	total := below
	for k := lo; k <= hi; k++ {
		probs, obs = append(probs, pmf(n, p, k)), append(obs, float64(counts[k]))
		total += probs[len(probs)-1]
	}
	obsAbove := 0.0
	for k, c := range counts {
		if k > hi {
			obsAbove += float64(c)
		}
	}
	probs, obs = append(probs, math.Max(0, 1-total)), append(obs, obsAbove)

	var expected, observed []float64
	e, o := 0.0, 0.0
	for i := range probs {
		e += probs[i] * float64(draws)
		o += obs[i]
		if e >= 20 {
			expected, observed = append(expected, e), append(observed, o)
			e, o = 0, 0
		}
	}
	if len(expected) == 0 {
		return 0, 0
	}
	expected[len(expected)-1] += e
	observed[len(observed)-1] += o
	stat := 0.0
	for i := range expected {
		d := observed[i] - expected[i]
		stat += d * d / expected[i]
	}
	return stat, len(expected) - 1
}

func pmf(n int, p float64, k int) float64 {
	a, _ := math.Lgamma(float64(n) + 1)
	b, _ := math.Lgamma(float64(k) + 1)
	c, _ := math.Lgamma(float64(n-k) + 1)
	return math.Exp(a - b - c + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

func cdfBelow(n int, p float64, lo int) float64 {
	s := 0.0
	for k := 0; k < lo; k++ {
		s += pmf(n, p, k)
	}
	return s
}

// gonumMultinomial is multinomial as it was before the sampler of its own:
// gonum's distuv.Binomial.Rand per cell. Kept for the benchmark.
func gonumMultinomial(m int, size func(int) int, n int, src rand.Source, counts []int) {
	remaining, mass := n, n
	for i := 0; i < m; i++ {
		c := size(i)
		if remaining == 0 || i == m-1 {
			counts[i] = remaining
			remaining = 0
			continue
		}
		x := 0
		if c > 0 {
			x = int(distuv.Binomial{N: float64(remaining), P: float64(c) / float64(mass), Src: src}.Rand())
		}
		counts[i] = x
		remaining -= x
		mass -= c
	}
}

// BenchmarkMultinomial draws one bootstrap resample's cell counts over the
// cells of 100,000 synthetic outcomes, with gonum's binomial sampler (old)
// and this package's (new). Run with -count to interleave them.
func BenchmarkMultinomial(b *testing.B) {
	outs := synthetic(100_000, 2.5, 99)
	cells := compress(outs, 1)
	size := func(i int) int { return cells[i].n }
	counts := make([]int, len(cells))
	b.Run(fmt.Sprintf("old/cells=%d", len(cells)), func(b *testing.B) {
		src := rand.NewPCG(1, 2)
		for b.Loop() {
			gonumMultinomial(len(cells), size, len(outs), src, counts)
		}
	})
	b.Run(fmt.Sprintf("new/cells=%d", len(cells)), func(b *testing.B) {
		src := rand.NewPCG(1, 2)
		for b.Loop() {
			multinomial(len(cells), size, len(outs), src, counts)
		}
	})
}
