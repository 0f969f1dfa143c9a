package metrics

import (
	"cmp"
	"math"
)

// ROCAUC is the area under the ROC curve of scores against positive: the
// probability that a random positive scores above a random negative, ties
// counting one half (Mann–Whitney; scikit-learn's roc_auc_score). NaN
// unless there is at least one positive and one negative.
func ROCAUC(scores []float64, positive []bool) float64 {
	// The positives' and the negatives' scores sorted apart (a plain
	// float sort, no comparison function) and walked together in groups
	// of equal score, lowest first.
	var ps, ns []float64
	for i, x := range scores {
		if positive[i] {
			ps = append(ps, x)
		} else {
			ns = append(ns, x)
		}
	}
	return aucOfSorted(ps, ns)
}

// aucOfSorted is ROCAUC of positives scored ps and negatives scored ns,
// sorting both in place.
func aucOfSorted(ps, ns []float64) float64 {
	sortFloats(ps)
	sortFloats(ns)
	if len(ps) == 0 || len(ns) == 0 {
		return math.NaN()
	}
	neg := 0
	sum := 0.0
	for i, j := 0, 0; i < len(ps) || j < len(ns); {
		// The group's score: the lower of the next positive and negative.
		var x float64
		switch {
		case i == len(ps):
			x = ns[j]
		case j == len(ns) || cmp.Less(ps[i], ns[j]):
			x = ps[i]
		default:
			x = ns[j]
		}
		p, n := 0, 0
		for ; i < len(ps) && cmp.Compare(ps[i], x) == 0; i++ {
			p++
		}
		for ; j < len(ns) && cmp.Compare(ns[j], x) == 0; j++ {
			n++
		}
		// Each positive of the group beats every negative below it and ties
		// with the group's negatives.
		sum += float64(p) * (float64(neg) + float64(n)/2)
		neg += n
	}
	return sum / (float64(len(ps)) * float64(len(ns)))
}

// AUC is the one-vs-rest ROC AUC of class k over answered, labelled
// outcomes: p_k at temperature t scores gold == k against gold != k.
// AUC(outs, t, Supported) is the binary view's ROC AUC of p(supported).
func AUC(outs []Outcome, t float64, k Class) float64 {
	return aucOf(answeredScored(outs, t), k)
}

func aucOf(s []scored, k Class) float64 {
	npos := 0
	for i := range s {
		if s[i].gold == k {
			npos++
		}
	}
	ps, ns := make([]float64, 0, npos), make([]float64, 0, len(s)-npos)
	for i := range s {
		if s[i].gold == k {
			ps = append(ps, s[i].probs[k])
		} else {
			ns = append(ns, s[i].probs[k])
		}
	}
	return aucOfSorted(ps, ns)
}
