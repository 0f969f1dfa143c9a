package metrics

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// tiedScored are n scored outcomes whose confidences and class
// probabilities take few values, so ties are everywhere.
func tiedScored(seed uint64, n int) []scored {
	r := rand.New(rand.NewPCG(seed, 1))
	s := make([]scored, n)
	for i := range s {
		p := float64(r.IntN(7)) / 6
		s[i] = scored{conf: 0.4 + float64(r.IntN(5))/10, correct: r.IntN(3) > 0, gold: Class(r.IntN(3)),
			probs: [3]float64{p, (1 - p) / 2, (1 - p) / 2}}
	}
	return s
}

// TestRiskCoverageWalksAgreeWithTheSort: the curve from the two sorted
// halves and the curve from the confidence ranks are the curve of s
// sorted by confidence, highest first, ties entering together.
func TestRiskCoverageWalksAgreeWithTheSort(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		s := tiedScored(seed, int(seed)*37)
		// The reference: each distinct confidence, highest first, takes
		// every claim at or above it.
		var want []RCPoint
		seen := map[float64]bool{}
		for _, x := range rankByConf(s) {
			seen[x.conf] = true
		}
		for c := 1.0; c >= 0; c -= 0.05 {
			for v := range seen {
				if v <= c && v > c-0.05 && seen[v] {
					n, e := 0, 0
					for _, y := range s {
						if y.conf >= v {
							n++
							if !y.correct {
								e++
							}
						}
					}
					want = append(want, RCPoint{Threshold: v, Coverage: float64(n) / float64(len(s)), Risk: float64(e) / float64(n)})
					seen[v] = false
				}
			}
		}
		assert.Equal(t, want, riskCoverage(s), "seed %d", seed)
		assert.Equal(t, want, riskCoverageRanked(s, rankByConf(s)), "seed %d", seed)
	}
}

// TestROCAUCIsMannWhitney: the AUC of the sorted walk is the share of
// (positive, negative) pairs the positive wins, ties counting one half,
// counted pair by pair.
func TestROCAUCIsMannWhitney(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		s := tiedScored(seed, int(seed)*23)
		for k := Class(0); k < 3; k++ {
			wins, pairs := 0.0, 0
			for _, a := range s {
				for _, b := range s {
					if a.gold != k || b.gold == k {
						continue
					}
					pairs++
					switch {
					case a.probs[k] > b.probs[k]:
						wins++
					case a.probs[k] == b.probs[k]:
						wins += 0.5
					}
				}
			}
			if pairs == 0 {
				assert.True(t, aucOf(s, k) != aucOf(s, k), "NaN without pairs")
				continue
			}
			assert.InDelta(t, wins/float64(pairs), aucOf(s, k), 1e-12, "seed %d class %d", seed, k)
		}
	}
}

// TestRadixSortsAsTheComparisonSort: sortFloats gives slices.Sort's
// values (negatives, zeros, infinities, ties; below and above radixMin),
// and rankByConf's radix path gives the comparison path's ranks, ties in
// the order of s.
func TestRadixSortsAsTheComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, radixMin - 1, radixMin, 5000} {
		a := make([]float64, n)
		for i := range a {
			switch r.IntN(6) {
			case 0:
				a[i] = float64(r.IntN(5)) / 4 // ties
			case 1:
				a[i] = -r.Float64() * 1e6
			case 2:
				a[i] = math.Inf(1 - 2*r.IntN(2))
			default:
				a[i] = r.Float64()
			}
		}
		want := slices.Clone(a)
		slices.Sort(want)
		sortFloats(a)
		assert.Equal(t, want, a, "n %d", n)
		s := tiedScored(uint64(n), n)
		byCmp := make([]ranked, n)
		for i := range s {
			byCmp[i] = ranked{s[i].conf, i}
		}
		slices.SortStableFunc(byCmp, func(a, b ranked) int { return cmp.Compare(a.conf, b.conf) })
		if n == 0 {
			byCmp = []ranked{}
		}
		assert.Equal(t, byCmp, rankByConf(s), "n %d", n)
	}
}
