package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// BootstrapMetrics are the metrics given 95% intervals.
var BootstrapMetrics = []string{
	"tier1_fa_conditional", "tier1_fa_unconditional", "tier2_fa_conditional", "tier2_fa_unconditional",
	"accuracy", "macro_f1", "ece_10", "aurc",
	"majority_accuracy", "majority_macro_f1", "balanced_accuracy", "cohen_kappa", "binary_balanced_accuracy",
	"pred_rate_supported", "pred_rate_unsupported", "pred_rate_insufficient",
	"auc_supported", "auc_unsupported", "auc_insufficient", "binary_auc",
}

// HasInterval says whether a metric of Names is given a 95% interval (the
// claim bootstrap, or the output bootstrap for the output headline
// metrics).
func HasInterval(name string) bool {
	return slices.Contains(BootstrapMetrics, name) || slices.Contains(OutputMetrics[1:], name)
}

// aucFirst is the index in BootstrapMetrics of auc_supported: cellMetrics
// fills the ones before it, aucCells the AUCs.
const aucFirst = 16

// Interval is a percentile bootstrap interval.
type Interval struct{ Low, High float64 }

// BootstrapOptions tune Bootstrap. Zero values take the defaults.
type BootstrapOptions struct {
	Resamples int     // default 1000
	Seed      uint64  // resample b draws from PCG(Seed, b): results do not depend on Workers
	Workers   int     // default GOMAXPROCS
	Level     float64 // default 0.95
	None      bool    // no intervals at all (Evaluate of a slice under MinBootstrapClaims)
}

// confStep is the resolution at which intervals see confidences: outcomes
// are grouped into cells by (gold, decision, confidence rounded to 0.001),
// and resampling draws cell counts from a multinomial — exact for the
// count-based metrics, and within half a step at ECE-bin edges for ECE and
// AURC. It is what makes 1,000 resamples of a million outcomes take a
// fraction of a second.
const confStep = 1e-3

type cell struct {
	gold    Class
	pred    Class // -1: abstained
	conf    float64
	correct bool
	scored  bool // answered, labelled and scored: counts in ECE and AURC
	n       int
}

// aucStep is the score resolution of the AUC resamples: outcomes are
// grouped by (gold == k, p_k rounded to aucStep), scores in one cell tie.
// The intervals are then shifted by the exact AUC minus the AUC of the
// unresampled cells, so the grouping does not bias them. A finer step
// costs a binomial draw per cell and resample.
const aucStep = 5e-3

// Bootstrap returns percentile intervals for BootstrapMetrics at
// temperature t. A resample in which a metric is undefined (say, no
// gold-unsupported claim was drawn) is left out of that metric's
// percentiles; a metric undefined in every resample gets NaN bounds.
func Bootstrap(outs []Outcome, t float64, opts BootstrapOptions) (map[string]Interval, error) {
	if err := Check(outs); err != nil {
		return nil, err
	}
	s := answeredScored(outs, t)
	var exact [3]float64
	for k := range exact {
		exact[k] = aucOf(s, Class(k))
	}
	return bootstrap(outs, s, opts, exact), nil
}

// bootstrap is Bootstrap given the answered, labelled, scored outcomes at
// t (answeredScored, in their order in outs) and the exact AUCs (the
// point estimates).
func bootstrap(outs []Outcome, s []scored, opts BootstrapOptions, exactAUC [3]float64) map[string]Interval {
	if opts.Resamples <= 0 {
		opts.Resamples = 1000
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	cells := compressScored(outs, s)
	var auc [3][]aucCell
	var shift [3]float64
	for k := range auc {
		auc[k] = compressAUC(s, len(outs)-len(s), Class(k))
		full := make([]int, len(auc[k]))
		for i, c := range auc[k] {
			full[i] = c.n
		}
		shift[k] = exactAUC[k] - aucOfCells(auc[k], full)
	}
	values := make([][]float64, len(BootstrapMetrics))
	for i := range values {
		values[i] = make([]float64, opts.Resamples)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts := make([]int, len(cells))
			aucCounts := make([]int, 0)
			for b := range next {
				src := rand.NewPCG(opts.Seed, uint64(b))
				multinomial(len(cells), func(i int) int { return cells[i].n }, len(outs), src, counts)
				for i, v := range cellMetrics(cells, counts) {
					values[i][b] = v
				}
				// Each AUC resamples from a stream of its own: the
				// intervals are marginal, so they need not share draws.
				for k := range auc {
					aucCounts = slices.Grow(aucCounts[:0], len(auc[k]))[:len(auc[k])]
					src := rand.NewPCG(opts.Seed, uint64(b)|uint64(k+1)<<40)
					multinomial(len(auc[k]), func(i int) int { return auc[k][i].n }, len(outs), src, aucCounts)
					values[aucFirst+k][b] = aucOfCells(auc[k], aucCounts) + shift[k]
				}
				values[aucFirst+3][b] = values[aucFirst][b]
			}
		}()
	}
	for b := 0; b < opts.Resamples; b++ {
		next <- b
	}
	close(next)
	wg.Wait()
	out := map[string]Interval{}
	alpha := (1 - opts.Level) / 2
	for i, name := range BootstrapMetrics {
		v := slices.DeleteFunc(values[i], math.IsNaN)
		sort.Float64s(v)
		if len(v) == 0 {
			out[name] = Interval{Low: math.NaN(), High: math.NaN()}
			continue
		}
		out[name] = Interval{Low: percentileSorted(v, alpha), High: percentileSorted(v, 1-alpha)}
	}
	return out
}

// cellKey is what puts an outcome in a cell.
type cellKey struct {
	gold, pred Class
	q          int32
	correct    bool
	scored     bool
}

func cellKeyOf(o Outcome, t float64) cellKey {
	k := cellKey{gold: o.Gold, pred: -1, q: -1}
	if !o.Abstained {
		k.pred = o.Predicted
		if o.Gold != Unknown && o.Scored {
			p := Softmax(o.Logits, t)
			pred := Argmax(p)
			k.q = int32(math.Round(p[pred] / confStep))
			k.correct = pred == o.Gold
			k.scored = true
		}
	}
	return k
}

func (c cell) key() cellKey {
	q := int32(-1)
	if c.scored {
		q = int32(math.Round(c.conf / confStep))
	}
	return cellKey{gold: c.gold, pred: c.pred, q: q, correct: c.correct, scored: c.scored}
}

func compress(outs []Outcome, t float64) []cell { return compressScored(outs, answeredScored(outs, t)) }

// compressScored is compress given answeredScored(outs, t): the
// probabilities are not computed again, and the cell of a key is looked
// up in a table (cellTable) rather than a map.
func compressScored(outs []Outcome, s []scored) []cell {
	var tab cellTable
	var cells []cell
	j := 0
	for _, o := range outs {
		k := cellKey{gold: o.Gold, pred: -1, q: -1}
		if !o.Abstained {
			k.pred = o.Predicted
			if o.Gold != Unknown && o.Scored {
				x := &s[j]
				j++
				k.q = int32(math.Round(x.conf / confStep))
				k.correct = x.correct
				k.scored = true
			}
		}
		i, ok := tab.get(k)
		if !ok {
			i = len(cells)
			tab.set(k, i)
			cells = append(cells, cell{gold: k.gold, pred: k.pred, conf: float64(k.q) * confStep, correct: k.correct, scored: k.scored})
		}
		cells[i].n++
	}
	// A fixed cell order keeps the multinomial draws reproducible; scored
	// cells first, by confidence, highest first.
	sort.Slice(cells, func(a, b int) bool {
		x, y := cells[a], cells[b]
		if x.scored != y.scored {
			return x.scored
		}
		if x.conf != y.conf {
			return x.conf > y.conf
		}
		if x.gold != y.gold {
			return x.gold < y.gold
		}
		if x.pred != y.pred {
			return x.pred < y.pred
		}
		return !x.correct && y.correct
	})
	return cells
}

// multinomial draws n items over m cells in proportion to their sizes
// (size(i), summing to n), by sequential conditional binomials.
func multinomial(m int, size func(int) int, n int, src rand.Source, counts []int) {
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
			x = binomial(remaining, float64(c)/float64(mass), src)
		}
		counts[i] = x
		remaining -= x
		mass -= c
	}
}

// aucCell groups answered, labelled outcomes by (gold == k, p_k rounded to
// aucStep); the last cell holds every other outcome, so a resample draws
// n outcomes as the main one does.
type aucCell struct {
	pos  bool
	q    int32
	rest bool
	n    int
}

// compressAUC groups the answered, labelled, scored outcomes s by (gold
// == k, p_k rounded to aucStep); rest counts the other outcomes. The cell
// of a key is looked up in a table indexed by the rounded score (p_k is
// in [0, 1]), a map kept for any other.
func compressAUC(s []scored, rest int, k Class) []aucCell {
	type key struct {
		pos bool
		q   int32
	}
	const qs = int32(1/aucStep) + 1
	var tab [2][qs]int32 // cell index + 1; 0: none yet
	var other map[key]int
	var cells []aucCell
	for j := range s {
		kk := key{pos: s[j].gold == k, q: int32(math.Round(s[j].probs[k] / aucStep))}
		var i int
		if kk.q >= 0 && kk.q < qs {
			at := &tab[b2i(kk.pos)][kk.q]
			if *at == 0 {
				cells = append(cells, aucCell{pos: kk.pos, q: kk.q})
				*at = int32(len(cells))
			}
			i = int(*at - 1)
		} else {
			if other == nil {
				other = map[key]int{}
			}
			var ok bool
			if i, ok = other[kk]; !ok {
				i = len(cells)
				other[kk] = i
				cells = append(cells, aucCell{pos: kk.pos, q: kk.q})
			}
		}
		cells[i].n++
	}
	slices.SortFunc(cells, func(a, b aucCell) int {
		if a.q != b.q {
			return int(a.q - b.q)
		}
		if a.pos == b.pos {
			return 0
		}
		if a.pos {
			return 1
		}
		return -1
	})
	return append(cells, aucCell{rest: true, n: rest})
}

// aucOfCells is the Mann–Whitney AUC of resampled cell counts (cells sorted
// by score; equal scores tie).
func aucOfCells(cells []aucCell, counts []int) float64 {
	pos, neg := 0, 0
	sum := 0.0
	for i := 0; i < len(cells) && !cells[i].rest; {
		p, n := 0, 0
		j := i
		for ; j < len(cells) && !cells[j].rest && cells[j].q == cells[i].q; j++ {
			if cells[j].pos {
				p += counts[j]
			} else {
				n += counts[j]
			}
		}
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

// cellMetrics computes BootstrapMetrics from cell counts; cells are sorted
// by confidence, highest first, so one pass over the scored cells, grouping
// equal confidences, walks the risk–coverage curve.
func cellMetrics(cells []cell, counts []int) []float64 {
	var c Counts
	bins := make([]Bin, 10)
	sumConf := make([]float64, 10)
	sumCorrect := make([]int, 10)
	scoredTotal := 0
	for i, x := range cells {
		k := counts[i]
		c.N += k
		if x.pred < 0 {
			c.Abstained += k
		} else {
			c.Answered += k
			c.PredictedTotal[x.pred] += k
		}
		if x.gold != Unknown {
			c.Labelled += k
			c.GoldTotal[x.gold] += k
			if x.pred >= 0 {
				c.AnsweredLabelled += k
				c.Confusion[x.gold][x.pred] += k
			}
		}
		if x.scored {
			scoredTotal += k
			b := widthBin(x.conf, 10)
			bins[b].Count += k
			sumConf[b] += x.conf * float64(k)
			if x.correct {
				sumCorrect[b] += k
			}
		}
	}
	finishBins(bins, sumConf, sumCorrect)

	aurcSum, accepted, errs := 0.0, 0, 0
	for i := 0; i < len(cells) && cells[i].scored; {
		group := 0
		j := i
		for ; j < len(cells) && cells[j].scored && (j == i || cells[j].conf == cells[i].conf); j++ { // j == i: NaN cannot stall it
			group += counts[j]
			if !cells[j].correct {
				errs += counts[j]
			}
		}
		accepted += group
		if group > 0 {
			aurcSum += float64(group) * float64(errs) / float64(accepted)
		}
		i = j
	}
	aurc := math.NaN()
	if scoredTotal > 0 {
		aurc = aurcSum / float64(scoredTotal)
	}
	return []float64{
		c.Tier1FAConditional(), c.Tier1FAUnconditional(), c.Tier2FAConditional(), c.Tier2FAUnconditional(),
		c.Accuracy(), c.MacroF1(), ECEOf(bins), aurc,
		c.MajorityAccuracy(), c.MajorityMacroF1(), c.BalancedAccuracy(), c.CohenKappa(), c.BinaryBalancedAccuracy(),
		c.PredictedRate(Supported), c.PredictedRate(Unsupported), c.PredictedRate(Insufficient),
	}
}

// cellTable finds the cell of a cellKey: a table over the keys outcomes
// have (gold and prediction a class or Unknown, the confidence step -1 to
// 1/confStep), a map for any other.
type cellTable struct {
	tab   []int32 // cell index + 1; 0: none yet
	other map[cellKey]int
}

const cellQs = int(1/confStep) + 2 // q from -1 to 1/confStep

func (c *cellTable) slot(k cellKey) int {
	g, p, q := int(k.gold)+1, int(k.pred)+1, int(k.q)+1
	if g < 0 || g > 3 || p < 0 || p > 3 || q < 0 || q >= cellQs || k.scored != (k.q >= 0) {
		return -1
	}
	return ((g*4+p)*cellQs+q)*2 + b2i(k.correct)
}

func (c *cellTable) get(k cellKey) (int, bool) {
	if at := c.slot(k); at >= 0 {
		if c.tab == nil || c.tab[at] == 0 {
			return 0, false
		}
		return int(c.tab[at] - 1), true
	}
	i, ok := c.other[k]
	return i, ok
}

func (c *cellTable) set(k cellKey, i int) {
	if at := c.slot(k); at >= 0 {
		if c.tab == nil {
			c.tab = make([]int32, 4*4*cellQs*2)
		}
		c.tab[at] = int32(i + 1)
		return
	}
	if c.other == nil {
		c.other = map[cellKey]int{}
	}
	c.other[k] = i
}
