package lexical

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
)

// Row is one held-out set's result: the model was fitted on every other
// set and tested on this one.
type Row struct {
	Set       string
	Synthetic bool
	N         int
	Counts    [3]int // gold supported, unsupported, insufficient
	// Binary view, supported vs not: balanced accuracy of "argmax is
	// supported", ROC AUC of p(supported), and the balanced accuracy of
	// always answering the majority side (0.5 by construction: it is there
	// to read the others against).
	BalancedAccuracy float64
	AUC              float64
	// Three-way: accuracy, the majority-class rate, macro-F1 (NaN when the
	// set has fewer than three labels).
	Accuracy float64
	Majority float64
	MacroF1  float64
	// Tier1FA: predicted supported while gold is not, over all claims.
	Tier1FA float64
	// Calibration: the top-label 10-bin ECE of the raw logits, the
	// temperature fitted on the set, and the ECE after temperature scaling
	// cross-fitted over 5 folds (every claim scaled by a T fitted without it).
	ECERaw, Temperature, ECECal float64
}

// LeaveOneOut fits on all sets but one and tests on the one left out, for
// each set in turn.
func LeaveOneOut(sets []*Prepared, opts TrainOptions) ([]Row, error) {
	var rows []Row
	for i, test := range sets {
		var train []*Prepared
		for j, s := range sets {
			if j != i {
				train = append(train, s)
			}
		}
		w, _, err := Fit(train, opts)
		if err != nil {
			return nil, fmt.Errorf("leave out %s: %w", test.Name, err)
		}
		rows = append(rows, Evaluate(w, test))
	}
	return rows, nil
}

// Evaluate measures weights on a prepared set.
func Evaluate(w *Weights, s *Prepared) Row {
	r := Row{Set: s.Name, Synthetic: s.Synthetic, N: len(s.Y)}
	outs := make([]metrics.Outcome, len(s.Y))
	ps := make([]float64, len(s.Y))
	pos := make([]bool, len(s.Y))
	var conf [3][3]int
	var tp, fn, tn, fp, fa int
	for i, x := range s.X {
		z := w.Logits(x)
		y := s.Y[i]
		pred := argmax3(z)
		if s.Decide != nil {
			pred = s.Decide(i, z)
		}
		r.Counts[y]++
		conf[y][pred]++
		id := strconv.Itoa(i) // folds need an id; a set read from disk has the claims'
		if i < len(s.IDs) {
			id = s.IDs[i]
		}
		outs[i] = metrics.Outcome{ID: id, Gold: metrics.Class(y), Predicted: metrics.Class(pred), Scored: true, Logits: z}
		ps[i] = metrics.Softmax(z, 1)[0]
		pos[i] = y == 0
		switch {
		case y == 0 && pred == 0:
			tp++
		case y == 0:
			fn++
		case pred == 0:
			fp++
			fa++
		default:
			tn++
		}
	}
	r.BalancedAccuracy = BalancedAccuracy(tp, fn, tn, fp)
	r.AUC = ROCAUC(ps, pos)
	correct := conf[0][0] + conf[1][1] + conf[2][2]
	r.Accuracy = float64(correct) / float64(r.N)
	r.Majority = float64(max(r.Counts[0], r.Counts[1], r.Counts[2])) / float64(r.N)
	r.MacroF1 = math.NaN()
	if r.Counts[0] > 0 && r.Counts[1] > 0 && r.Counts[2] > 0 {
		r.MacroF1 = macroF1(conf)
	}
	r.Tier1FA = float64(fa) / float64(r.N)
	cal := metrics.Calibrate(outs, metrics.CalibrateOptions{Force: true, Folds: 5, Seed: 1})
	r.ECERaw, r.Temperature, r.ECECal = cal.Before.ECE10, cal.Temperature, cal.After.ECE10
	return r
}

// BalancedAccuracy is the mean of the true-positive and true-negative
// rates; NaN when either class is absent.
func BalancedAccuracy(tp, fn, tn, fp int) float64 {
	if tp+fn == 0 || tn+fp == 0 {
		return math.NaN()
	}
	return (float64(tp)/float64(tp+fn) + float64(tn)/float64(tn+fp)) / 2
}

// ROCAUC is the probability that a random positive scores above a random
// negative (ties count half): the Mann–Whitney statistic from mid-ranks.
// NaN when either class is absent.
func ROCAUC(score []float64, positive []bool) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var rankSum float64
	npos := 0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // mean of ranks i+1..j
		for t := i; t < j; t++ {
			if positive[idx[t]] {
				rankSum += mid
				npos++
			}
		}
		i = j
	}
	nneg := len(score) - npos
	if npos == 0 || nneg == 0 {
		return math.NaN()
	}
	return (rankSum - float64(npos)*float64(npos+1)/2) / (float64(npos) * float64(nneg))
}

// WriteTable prints rows as a Markdown table, then the mean and the minimum
// balanced accuracy and the temperature range over the real sets.
func WriteTable(out io.Writer, rows []Row) error {
	num := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return fmt.Sprintf("%.3f", v)
	}
	var b strings.Builder
	b.WriteString("| held-out set | n | s / u / i | bal. acc (binary) | ROC AUC | macro-F1 (3-way) | accuracy | majority | tier-1 FA | ECE raw | T | ECE cross-fitted |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	sum, n, lo := 0.0, 0, math.Inf(1)
	tlo, thi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		name := r.Set
		if r.Synthetic {
			name += " (generated)"
		} else {
			sum += r.BalancedAccuracy
			n++
			lo = math.Min(lo, r.BalancedAccuracy)
			tlo, thi = math.Min(tlo, r.Temperature), math.Max(thi, r.Temperature)
		}
		temp := fmt.Sprintf("%.2f", r.Temperature)
		if r.Temperature >= metrics.MaxTemperature {
			temp = fmt.Sprintf("≥ %.0f (bound)", metrics.MaxTemperature)
		}
		fmt.Fprintf(&b, "| %s | %d | %d / %d / %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, r.N, r.Counts[0], r.Counts[1], r.Counts[2],
			num(r.BalancedAccuracy), num(r.AUC), num(r.MacroF1), num(r.Accuracy), num(r.Majority), num(r.Tier1FA), num(r.ECERaw), temp, num(r.ECECal))
	}
	if n > 0 {
		fmt.Fprintf(&b, "\nreal sets: mean balanced accuracy %.3f, lowest %.3f; fitted temperatures %.2f–%.2f\n", sum/float64(n), lo, tlo, thi)
	}
	_, err := io.WriteString(out, b.String())
	return err
}
