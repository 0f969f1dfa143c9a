package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// PairedMetrics are the metrics whose change between two runs over the
// same claims (B − A) gets a paired bootstrap interval.
var PairedMetrics = BootstrapMetrics[:aucFirst]

// HasPairedInterval says whether a metric's delta gets a paired interval.
func HasPairedInterval(name string) bool { return slices.Contains(PairedMetrics, name) }

// PairedBootstrap gives percentile intervals of b − a for PairedMetrics,
// where a[i] and b[i] are the outcomes of one claim in two runs (each at
// its own probabilities: pass Scaled outcomes and t = 1 for calibrated
// numbers). A resample draws claims, not runs: both runs see the same
// claims, so what the claims have in common cancels. Cells are those of
// Bootstrap (exact for the count-based metrics), drawn jointly.
func PairedBootstrap(a, b []Outcome, t float64, opts BootstrapOptions) (map[string]Interval, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("paired bootstrap: %d outcomes against %d", len(a), len(b))
	}
	if err := Check(a); err != nil {
		return nil, err
	}
	if err := Check(b); err != nil {
		return nil, err
	}
	if opts.Resamples <= 0 {
		opts.Resamples = 1000
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	ca, cb := compress(a, t), compress(b, t)
	ia, ib := map[cellKey]int{}, map[cellKey]int{}
	for i, c := range ca {
		ia[c.key()] = i
	}
	for i, c := range cb {
		ib[c.key()] = i
	}
	type joint struct{ a, b, n int }
	jidx := map[[2]int]int{}
	var cells []joint
	for i := range a {
		k := [2]int{ia[cellKeyOf(a[i], t)], ib[cellKeyOf(b[i], t)]}
		j, ok := jidx[k]
		if !ok {
			j = len(cells)
			jidx[k] = j
			cells = append(cells, joint{a: k[0], b: k[1]})
		}
		cells[j].n++
	}
	sort.Slice(cells, func(x, y int) bool {
		if cells[x].a != cells[y].a {
			return cells[x].a < cells[y].a
		}
		return cells[x].b < cells[y].b
	})
	values := make([][]float64, len(PairedMetrics))
	counts := make([]int, len(cells))
	na, nb := make([]int, len(ca)), make([]int, len(cb))
	for r := 0; r < opts.Resamples; r++ {
		src := rand.NewPCG(opts.Seed, uint64(r)|1<<45)
		multinomial(len(cells), func(i int) int { return cells[i].n }, len(a), src, counts)
		clear(na)
		clear(nb)
		for i, c := range cells {
			na[c.a] += counts[i]
			nb[c.b] += counts[i]
		}
		va, vb := cellMetrics(ca, na), cellMetrics(cb, nb)
		for i := range PairedMetrics {
			values[i] = append(values[i], vb[i]-va[i])
		}
	}
	out := map[string]Interval{}
	alpha := (1 - opts.Level) / 2
	for i, name := range PairedMetrics {
		v := slices.DeleteFunc(values[i], math.IsNaN)
		sort.Float64s(v)
		if len(v) == 0 {
			out[name] = Interval{Low: math.NaN(), High: math.NaN()}
			continue
		}
		out[name] = Interval{Low: percentileSorted(v, alpha), High: percentileSorted(v, 1-alpha)}
	}
	return out, nil
}

// McNemar is the two-sided exact McNemar test of fixed against broken
// claims (the discordant pairs): the probability, under a fair coin, of a
// split at least as uneven as the one seen; 1 when there are none.
func McNemar(fixed, broken int) float64 {
	n := fixed + broken
	if n == 0 {
		return 1
	}
	k := min(fixed, broken)
	// P(X <= k) for X ~ Binomial(n, 1/2), summed in log space.
	tail := 0.0
	for i := 0; i <= k; i++ {
		lg := lchoose(n, i) - float64(n)*math.Ln2
		tail += math.Exp(lg)
	}
	return math.Min(1, 2*tail)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
