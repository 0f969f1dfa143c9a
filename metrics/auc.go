package metrics

import (
	"cmp"
	"math"
	"slices"
)

// ROCAUC is the area under the ROC curve of scores against positive: the
// probability that a random positive scores above a random negative, ties
// counting one half (Mann–Whitney; scikit-learn's roc_auc_score). NaN
// unless there is at least one positive and one negative.
func ROCAUC(scores []float64, positive []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	pos, neg := 0, 0
	sum := 0.0
	for i := 0; i < len(idx); {
		p, n := 0, 0
		j := i
		for ; j < len(idx) && scores[idx[j]] == scores[idx[i]]; j++ {
			if positive[idx[j]] {
				p++
			} else {
				n++
			}
		}
		// Each positive of the group beats every negative below it and ties
		// with the group's negatives.
		sum += float64(p) * (float64(neg) + float64(n)/2)
		pos += p
		neg += n
		i = j
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return sum / (float64(pos) * float64(neg))
}

// AUC is the one-vs-rest ROC AUC of class k over answered, labelled
// outcomes: p_k at temperature t scores gold == k against gold != k.
// AUC(outs, t, Supported) is the binary view's ROC AUC of p(supported).
func AUC(outs []Outcome, t float64, k Class) float64 {
	return aucOf(answeredScored(outs, t), k)
}

func aucOf(s []scored, k Class) float64 {
	scores := make([]float64, len(s))
	pos := make([]bool, len(s))
	for i, x := range s {
		scores[i], pos[i] = x.probs[k], x.gold == k
	}
	return ROCAUC(scores, pos)
}
