package metrics

import (
	"cmp"
	"math"
	"slices"
)

// Bin is one row of a reliability table.
type Bin struct {
	Index          int
	Lo, Hi         float64 // the bin is (Lo, Hi]; the first equal-width bin also holds 0
	Count          int
	MeanConfidence float64 // NaN when empty
	Accuracy       float64 // NaN when empty
}

// Binning schemes by name, as in calibration.parquet.
const (
	EqualWidth10 = "equal_width_10"
	EqualWidth15 = "equal_width_15"
	EqualMass10  = "equal_mass_10"
)

// scored is one answered, labelled outcome seen at a temperature.
type scored struct {
	probs   [3]float64
	conf    float64 // max probability
	correct bool    // argmax == gold
	gold    Class
	logits  [3]float64
}

// answeredScored returns the answered, labelled outcomes with their
// probabilities at temperature t. Calibration is measured where the
// verifier made a decision that can be checked.
func answeredScored(outs []Outcome, t float64) []scored {
	n := 0
	for _, o := range outs {
		if !o.Abstained && o.Gold != Unknown && o.Scored {
			n++
		}
	}
	s := make([]scored, 0, n) // sized once: it is called on every outcome of a run
	for _, o := range outs {
		if o.Abstained || o.Gold == Unknown || !o.Scored {
			continue
		}
		p := Softmax(o.Logits, t)
		pred := Argmax(p)
		s = append(s, scored{probs: p, conf: p[pred], correct: pred == o.Gold, gold: o.Gold, logits: o.Logits})
	}
	return s
}

// widthBin maps a confidence to its equal-width bin: bins are (lo, hi] and
// 0 belongs to the first, so 1.0 lands in the last bin, never past it.
func widthBin(conf float64, n int) int {
	b := int(math.Ceil(conf*float64(n))) - 1
	// conf*n can round past an edge (0.3*10 = 3.0000000000000004): settle
	// against the edges i/n themselves.
	for b > 0 && conf <= float64(b)/float64(n) {
		b--
	}
	for b < n-1 && conf > float64(b+1)/float64(n) {
		b++
	}
	if b < 0 {
		b = 0
	}
	if b >= n {
		b = n - 1
	}
	return b
}

// ReliabilityWidth is the equal-width reliability table of top-label
// confidence over n bins.
func ReliabilityWidth(s []scored, n int) []Bin {
	bins := make([]Bin, n)
	sumConf := make([]float64, n)
	sumCorrect := make([]int, n)
	for i := range bins {
		bins[i] = Bin{Index: i, Lo: float64(i) / float64(n), Hi: float64(i+1) / float64(n)}
	}
	for _, x := range s {
		b := widthBin(x.conf, n)
		bins[b].Count++
		sumConf[b] += x.conf
		if x.correct {
			sumCorrect[b]++
		}
	}
	finishBins(bins, sumConf, sumCorrect)
	return bins
}

// ReliabilityMass is the equal-mass table: outcomes sorted by confidence
// (ties by input order) and cut into n bins whose sizes differ by at most
// one; Lo and Hi are the smallest and largest confidence in each bin.
func ReliabilityMass(s []scored, n int) []Bin { return reliabilityMassRanked(s, rankByConf(s), n) }

// ranked is a confidence and the position in s it is of.
type ranked struct {
	conf float64
	i    int
}

// rankByConf ranks s by confidence, lowest first, ties by position in s
// (which claim of a tie falls in which equal-mass bin at an edge depends
// on it). The confidences are sorted beside their positions, not through
// an index into s: the comparisons then read neither s nor a closure's
// captures.
func rankByConf(s []scored) []ranked {
	idx := make([]ranked, len(s))
	if len(s) >= radixMin && len(s) <= math.MaxInt32 {
		// A stable radix sort keeps ties in the order of s.
		keys, pos := make([]uint64, len(s)), make([]int32, len(s))
		for i := range s {
			keys[i], pos[i] = floatKey(s[i].conf), int32(i)
		}
		keys, pos = radixSort(keys, pos)
		for r := range idx {
			idx[r] = ranked{keyFloat(keys[r]), int(pos[r])}
		}
		return idx
	}
	for i := range s {
		idx[i] = ranked{s[i].conf, i}
	}
	slices.SortFunc(idx, func(a, b ranked) int {
		if c := cmp.Compare(a.conf, b.conf); c != 0 {
			return c
		}
		return a.i - b.i
	})
	return idx
}

// reliabilityMassRanked is ReliabilityMass given rankByConf(s).
func reliabilityMassRanked(s []scored, idx []ranked, n int) []Bin {
	bins := make([]Bin, n)
	sumConf := make([]float64, n)
	sumCorrect := make([]int, n)
	for i := range bins {
		bins[i] = Bin{Index: i, Lo: math.NaN(), Hi: math.NaN()}
	}
	for r, at := range idx {
		b := r * n / len(s)
		x := &s[at.i]
		if bins[b].Count == 0 {
			bins[b].Lo = x.conf
		}
		bins[b].Hi = x.conf
		bins[b].Count++
		sumConf[b] += x.conf
		if x.correct {
			sumCorrect[b]++
		}
	}
	finishBins(bins, sumConf, sumCorrect)
	return bins
}

func finishBins(bins []Bin, sumConf []float64, sumCorrect []int) {
	for i := range bins {
		if bins[i].Count == 0 {
			bins[i].MeanConfidence, bins[i].Accuracy = math.NaN(), math.NaN()
			continue
		}
		bins[i].MeanConfidence = sumConf[i] / float64(bins[i].Count)
		bins[i].Accuracy = float64(sumCorrect[i]) / float64(bins[i].Count)
	}
}

// ECEOf is Σ (|B|/total)·|acc(B) − conf(B)| over the bins; NaN when the
// bins are empty.
func ECEOf(bins []Bin) float64 {
	total := 0
	for _, b := range bins {
		total += b.Count
	}
	if total == 0 {
		return math.NaN()
	}
	e := 0.0
	for _, b := range bins {
		if b.Count > 0 {
			e += float64(b.Count) / float64(total) * math.Abs(b.Accuracy-b.MeanConfidence)
		}
	}
	return e
}

// MCEOf is the largest |acc(B) − conf(B)| over non-empty bins; NaN when
// all are empty.
func MCEOf(bins []Bin) float64 {
	m := math.NaN()
	for _, b := range bins {
		if b.Count > 0 {
			d := math.Abs(b.Accuracy - b.MeanConfidence)
			if math.IsNaN(m) || d > m {
				m = d
			}
		}
	}
	return m
}

// ClasswiseECE is the mean over the three classes of the 10-bin ECE of p_k
// against the indicator gold == k, over all answered labelled outcomes
// (NaN when there are none).
func ClasswiseECE(s []scored, n int) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	total := 0.0
	for k := 0; k < 3; k++ {
		sumP := make([]float64, n)
		hits := make([]int, n)
		count := make([]int, n)
		for _, x := range s {
			b := widthBin(x.probs[k], n)
			count[b]++
			sumP[b] += x.probs[k]
			if int(x.gold) == k {
				hits[b]++
			}
		}
		e := 0.0
		for b := 0; b < n; b++ {
			if count[b] > 0 {
				e += float64(count[b]) / float64(len(s)) * math.Abs(float64(hits[b])/float64(count[b])-sumP[b]/float64(count[b]))
			}
		}
		total += e
	}
	return total / 3
}

// Brier is the mean over outcomes of Σ_k (p_k − 1[gold = k])², the
// multi-class form (range 0 to 2); NaN for no outcomes.
func Brier(s []scored) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range s {
		for k := 0; k < 3; k++ {
			y := 0.0
			if int(x.gold) == k {
				y = 1
			}
			d := x.probs[k] - y
			sum += d * d
		}
	}
	return sum / float64(len(s))
}

// NLL is the mean negative log-likelihood of the gold class at temperature t,
// computed from the logits (no clipping needed); NaN for no outcomes.
func NLL(s []scored, t float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range s {
		sum -= logSoftmax(x.logits, t, int(x.gold))
	}
	return sum / float64(len(s))
}

// CalibrationReport holds every calibration measure at one temperature.
type CalibrationReport struct {
	Temperature  float64
	ECE10        float64
	ECE15        float64
	ECEEqualMass float64
	ClasswiseECE float64
	MCE          float64
	Brier        float64
	NLL          float64
	Bins         map[string][]Bin // by scheme name
}

// Calibration measures the answered, labelled outcomes at temperature t.
func Calibration(outs []Outcome, t float64) CalibrationReport {
	return calibrationOf(answeredScored(outs, t), t)
}

func calibrationOf(s []scored, t float64) CalibrationReport {
	var rank []ranked
	if len(s) > 0 {
		rank = rankByConf(s)
	}
	return calibrationRanked(s, t, rank)
}

// calibrationRanked is calibrationOf given rankByConf(s) (nil when s is
// empty).
func calibrationRanked(s []scored, t float64, rank []ranked) CalibrationReport {
	r := CalibrationReport{Temperature: t, Bins: map[string][]Bin{
		EqualWidth10: ReliabilityWidth(s, 10),
		EqualWidth15: ReliabilityWidth(s, 15),
	}}
	if len(s) > 0 {
		r.Bins[EqualMass10] = reliabilityMassRanked(s, rank, 10)
	} else {
		r.Bins[EqualMass10] = nil
	}
	r.ECE10 = ECEOf(r.Bins[EqualWidth10])
	r.ECE15 = ECEOf(r.Bins[EqualWidth15])
	r.ECEEqualMass = ECEOf(r.Bins[EqualMass10])
	r.MCE = MCEOf(r.Bins[EqualWidth10])
	r.ClasswiseECE = ClasswiseECE(s, 10)
	r.Brier = Brier(s)
	r.NLL = NLL(s, t)
	return r
}

// TopLabelECE is the equal-width ECE of confidences against correctness,
// for callers that have no logits.
func TopLabelECE(conf []float64, correct []bool, bins int) float64 {
	return ECEOf(ReliabilityWidth(fromConfidences(conf, correct), bins))
}

func fromConfidences(conf []float64, correct []bool) []scored {
	s := make([]scored, len(conf))
	for i := range conf {
		s[i] = scored{conf: conf[i], correct: correct[i]}
	}
	return s
}
