package metrics

import (
	"math/rand/v2"
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
