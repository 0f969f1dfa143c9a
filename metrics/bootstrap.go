package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// BootstrapMetrics are the metrics given 95% intervals.
var BootstrapMetrics = []string{
	"tier1_fa_conditional", "tier1_fa_unconditional", "tier2_fa_conditional", "tier2_fa_unconditional",
	"accuracy", "macro_f1", "ece_10", "aurc",
}

// Interval is a percentile bootstrap interval.
type Interval struct{ Low, High float64 }

// BootstrapOptions tune Bootstrap. Zero values take the defaults.
type BootstrapOptions struct {
	Resamples int     // default 1000
	Seed      uint64  // resample b draws from PCG(Seed, b): results do not depend on Workers
	Workers   int     // default GOMAXPROCS
	Level     float64 // default 0.95
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

// Bootstrap returns percentile intervals for BootstrapMetrics at temperature t.
func Bootstrap(outs []Outcome, t float64, opts BootstrapOptions) (map[string]Interval, error) {
	if err := Check(outs); err != nil {
		return nil, err
	}
	if opts.Resamples <= 0 {
		opts.Resamples = 1000
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	cells := compress(outs, t)
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
			for b := range next {
				src := rand.NewPCG(opts.Seed, uint64(b))
				multinomial(cells, len(outs), src, counts)
				for i, v := range cellMetrics(cells, counts) {
					values[i][b] = v
				}
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
		sort.Float64s(values[i])
		out[name] = Interval{Low: percentileSorted(values[i], alpha), High: percentileSorted(values[i], 1-alpha)}
	}
	return out, nil
}

func compress(outs []Outcome, t float64) []cell {
	type key struct {
		gold, pred Class
		q          int32
		correct    bool
		scored     bool
	}
	idx := map[key]int{}
	var cells []cell
	for _, o := range outs {
		k := key{gold: o.Gold, pred: -1, q: -1}
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
		i, ok := idx[k]
		if !ok {
			i = len(cells)
			idx[k] = i
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

// multinomial draws n items over the cells in proportion to their counts,
// by sequential conditional binomials.
func multinomial(cells []cell, n int, src rand.Source, counts []int) {
	remaining, mass := n, n
	for i, c := range cells {
		if remaining == 0 || i == len(cells)-1 {
			counts[i] = remaining
			remaining = 0
			continue
		}
		x := 0
		if c.n > 0 {
			x = int(distuv.Binomial{N: float64(remaining), P: float64(c.n) / float64(mass), Src: src}.Rand())
		}
		counts[i] = x
		remaining -= x
		mass -= c.n
	}
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
	aurc := 0.0
	if scoredTotal > 0 {
		aurc = aurcSum / float64(scoredTotal)
	}
	return []float64{
		c.Tier1FAConditional(), c.Tier1FAUnconditional(), c.Tier2FAConditional(), c.Tier2FAUnconditional(),
		c.Accuracy(), c.MacroF1(), ECEOf(bins), aurc,
	}
}
