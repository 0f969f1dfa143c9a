package estimate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Kind is a sampling design: how the claims to review were drawn.
type Kind string

// The three designs of a review queue.
const (
	// Uniform is simple random sampling without replacement of n of the N
	// claims: every claim has inclusion probability n/N.
	Uniform Kind = "uniform"
	// Stratified is simple random sampling without replacement within each
	// stratum, n_h of its N_h claims (proportional allocation, at least two
	// per stratum that has two): inclusion probability n_h/N_h.
	Stratified Kind = "stratified"
	// Active is Poisson sampling: each claim is drawn on its own coin with
	// its own inclusion probability, larger where the verifier is
	// uncertain; the sample size is random with mean n.
	Active Kind = "active"
)

// ParseKind accepts the three design names.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Uniform, Stratified, Active:
		return k, nil
	}
	return "", fmt.Errorf("unknown sampling strategy %q (uniform, stratified or active)", s)
}

// Design is what an estimator must know about how a sample was drawn.
type Design struct {
	Kind Kind
	// N is the number of claims in the population sampled from.
	N int
	// StratumSizes are N_h, the claims in each stratum (Stratified only);
	// a unit's Stratum indexes it.
	StratumSizes []int
}

// ErrSampleSize marks a requested sample the design cannot draw.
var ErrSampleSize = errors.New("sample size")

// DrawUniform draws n of N indices without replacement, in random order,
// each with inclusion probability n/N.
func DrawUniform(rng *rand.Rand, N, n int) ([]int, error) {
	if n < 2 || n > N {
		return nil, fmt.Errorf("%w: %d of %d claims (2 to %d)", ErrSampleSize, n, N, N)
	}
	return rng.Perm(N)[:n], nil
}

// Allocate splits n over strata of the given sizes in proportion to their
// sizes (largest remainder), giving every stratum of two or more claims at
// least two draws (so its variance can be estimated) and a stratum of one
// its one claim.
func Allocate(sizes []int, n int) ([]int, error) {
	N, need := 0, 0
	alloc := make([]int, len(sizes))
	for h, s := range sizes {
		N += s
		alloc[h] = min(s, 2)
		need += alloc[h]
	}
	if n > N || n < need {
		return nil, fmt.Errorf("%w: %d of %d claims in %d strata (at least %d: two per stratum)", ErrSampleSize, n, N, len(sizes), need)
	}
	// Proportional shares of what is left after the minimum, capped by
	// what each stratum still holds; largest remainders take the rest.
	left := n - need
	type rem struct {
		h    int
		frac float64
	}
	var rems []rem
	given := 0
	for h, s := range sizes {
		exact := float64(n) * float64(s) / float64(N)
		extra := max(0, min(int(exact)-alloc[h], s-alloc[h]))
		extra = min(extra, left-given)
		alloc[h] += extra
		given += extra
		rems = append(rems, rem{h, exact - float64(alloc[h])})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
	for given < left {
		moved := false
		for _, r := range rems {
			if given < left && alloc[r.h] < sizes[r.h] {
				alloc[r.h]++
				given++
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	return alloc, nil
}

// DrawStratified draws n indices by stratified simple random sampling:
// stratum[i] is unit i's stratum (0 ≤ stratum < H). It returns the drawn
// indices in random order and the design (stratum sizes); unit i's
// inclusion probability is alloc[h]/N_h.
func DrawStratified(rng *rand.Rand, stratum []int, H, n int) (idx []int, alloc []int, d Design, err error) {
	members := make([][]int, H)
	for i, h := range stratum {
		if h < 0 || h >= H {
			panic(fmt.Sprintf("estimate: stratum %d of unit %d outside [0,%d)", h, i, H))
		}
		members[h] = append(members[h], i)
	}
	sizes := make([]int, H)
	for h := range members {
		sizes[h] = len(members[h])
	}
	alloc, err = Allocate(sizes, n)
	if err != nil {
		return nil, nil, Design{}, err
	}
	for h, m := range members {
		for _, j := range rng.Perm(len(m))[:alloc[h]] {
			idx = append(idx, m[j])
		}
	}
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	return idx, alloc, Design{Kind: Stratified, N: len(stratum), StratumSizes: sizes}, nil
}

// ActiveProbabilities are Poisson inclusion probabilities summing to n:
// π_i ∝ floor/N + (1−floor)·√u_i/Σ√u, capped at 1 (the excess spread over
// the others). u_i ≥ 0 is the verifier's uncertainty about claim i; the
// uniform share floor (0 < floor ≤ 1) bounds every weight 1/π_i by
// N/(floor·n), which keeps the estimator's variance finite whatever the
// uncertainties. √u follows the variance-optimal rule of active inference
// (π ∝ the conditional standard deviation of the label).
func ActiveProbabilities(u []float64, n int, floor float64) ([]float64, error) {
	N := len(u)
	if n < 2 || n > N {
		return nil, fmt.Errorf("%w: %d of %d claims (2 to %d)", ErrSampleSize, n, N, N)
	}
	if !(floor > 0 && floor <= 1) {
		return nil, fmt.Errorf("uniform share %v outside (0, 1]", floor)
	}
	w := make([]float64, N)
	var su float64
	for _, x := range u {
		if !(x >= 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("uncertainty %v is not a finite number ≥ 0", x)
		}
		su += math.Sqrt(x)
	}
	for i, x := range u {
		w[i] = floor / float64(N)
		if su > 0 {
			w[i] += (1 - floor) * math.Sqrt(x) / su
		} else {
			w[i] += (1 - floor) / float64(N)
		}
	}
	pi := make([]float64, N)
	capped := make([]bool, N)
	for iter := 0; iter <= N; iter++ {
		// Scale the uncapped weights to fill what the capped ones leave.
		target, sw := float64(n), 0.0
		for i := range w {
			if capped[i] {
				target--
			} else {
				sw += w[i]
			}
		}
		more := false
		for i := range w {
			if capped[i] {
				pi[i] = 1
				continue
			}
			pi[i] = w[i] * target / sw
			if pi[i] >= 1 {
				capped[i], more = true, true
			}
		}
		if !more {
			break
		}
	}
	return pi, nil
}

// DrawPoisson draws each index i on its own with probability pi[i], in
// random order.
func DrawPoisson(rng *rand.Rand, pi []float64) []int {
	var idx []int
	for i, p := range pi {
		if rng.Float64() < p {
			idx = append(idx, i)
		}
	}
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	return idx
}
