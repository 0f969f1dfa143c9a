package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthetic draws n labelled outcomes whose true class probabilities are
// softmax(z*) and whose reported logits are scale·z*: a verifier
// over-confident by a factor scale, so the calibrating temperature is scale.
func synthetic(n int, scale float64, seed uint64) []Outcome {
	rng := rand.New(rand.NewPCG(seed, 1))
	outs := make([]Outcome, n)
	types := []string{"numeric", "fact", "temporal"}
	for i := range outs {
		var z [3]float64
		for k := range z {
			z[k] = rng.NormFloat64() * 1.5
		}
		p := Softmax(z, 1)
		u, gold := rng.Float64(), Class(2)
		if u < p[0] {
			gold = 0
		} else if u < p[0]+p[1] {
			gold = 1
		}
		var logits [3]float64
		for k := range z {
			logits[k] = scale * z[k]
		}
		o := Outcome{ID: fmt.Sprintf("c%d", i), Gold: gold, Scored: true, Logits: logits, Predicted: Argmax(logits), Type: NameOf(types[i%3]), LatencyMS: float64(i % 50)}
		if rng.Float64() < 0.1 {
			o.Abstained = true
		}
		outs[i] = o
	}
	return outs
}

func TestFitTemperatureRecoversKnownT(t *testing.T) {
	outs := synthetic(50000, 2.5, 7)
	got := FitTemperature(outs)
	assert.InEpsilon(t, 2.5, got, 0.02, "fitted T %v", got)
	assert.InEpsilon(t, 1.0, FitTemperature(synthetic(50000, 1, 8)), 0.02)
	assert.InEpsilon(t, 0.5, FitTemperature(synthetic(50000, 0.5, 9)), 0.02)
}

func TestFitTemperatureStaysInBounds(t *testing.T) {
	// Always right with huge margins: the NLL keeps falling as T shrinks.
	outs := []Outcome{{Gold: 0, Scored: true, Logits: [3]float64{50, 0, 0}}, {Gold: 1, Scored: true, Logits: [3]float64{0, 50, 0}}}
	assert.Equal(t, MinTemperature, FitTemperature(outs))
	// Always wrong: the NLL keeps falling as T grows.
	outs = []Outcome{{Gold: 1, Scored: true, Logits: [3]float64{5, 0, 0}}, {Gold: 0, Scored: true, Logits: [3]float64{0, 5, 0}}}
	assert.Equal(t, MaxTemperature, FitTemperature(outs))
	assert.Equal(t, 1.0, FitTemperature(nil))
}

func TestCalibrateAppliesAndMeasuresOutOfSample(t *testing.T) {
	outs := synthetic(20000, 2.5, 11)
	res := Calibrate(outs, CalibrateOptions{Seed: 3})
	require.True(t, res.Applied, "raw ECE %v", res.Before.ECE10)
	assert.Greater(t, res.Before.ECE10, 0.10)
	assert.InEpsilon(t, 2.5, res.Temperature, 0.03)
	assert.Less(t, res.After.ECE10, 0.03, "cross-fitted ECE after scaling")
	assert.Less(t, res.After.NLL, res.Before.NLL)
	assert.Equal(t, len(labelledScored(outs)), res.HeldOut)
	// Empty bins hold NaN, which DeepEqual never equates: compare printed forms.
	assert.Equal(t, fmt.Sprintf("%v", res), fmt.Sprintf("%v", Calibrate(outs, CalibrateOptions{Seed: 3})), "deterministic")

	calibrated := synthetic(20000, 1, 12)
	res = Calibrate(calibrated, CalibrateOptions{})
	assert.False(t, res.Applied, "a calibrated verifier (ECE %v) is left alone", res.Before.ECE10)
	assert.Equal(t, 1.0, res.Temperature)
	assert.True(t, res.CrossFit.Fitted, "the fit is reported even when not applied")
}

func TestECEInUnitInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(50)
		conf := make([]float64, n)
		correct := make([]bool, n)
		for i := range conf {
			conf[i] = rng.Float64()
			if rng.IntN(4) == 0 {
				conf[i] = float64(rng.IntN(2)) // exactly 0 or 1
			}
			correct[i] = rng.IntN(2) == 0
		}
		for _, bins := range []int{1, 10, 15} {
			e := TopLabelECE(conf, correct, bins)
			require.True(t, e >= 0 && e <= 1, "ECE %v", e)
		}
	}
}

func TestEdgeConfidencesBinned(t *testing.T) {
	s := fromConfidences([]float64{0, 1, 0.1, 0.3, 0.7, 0.30000000000000004}, []bool{true, true, true, true, true, true})
	bins := ReliabilityWidth(s, 10)
	require.Len(t, bins, 10, "1.0 never spills into an eleventh bin")
	assert.Equal(t, 2, bins[0].Count, "0 and 0.1 are in (0, 0.1] with 0 included")
	assert.Equal(t, 1, bins[9].Count, "1.0 is in (0.9, 1]")
	assert.Equal(t, 1, bins[2].Count, "0.3 is in (0.2, 0.3], not (0.3, 0.4]")
	assert.Equal(t, 1, bins[3].Count, "a hair above 0.3 is in (0.3, 0.4]")
	assert.Equal(t, 1, bins[6].Count, "0.7 is in (0.6, 0.7]")
	mass := ReliabilityMass(s, 10)
	total := 0
	for _, b := range mass {
		total += b.Count
	}
	assert.Equal(t, len(s), total)
}

func TestFAIdentities(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		outs := synthetic(300, 1+float64(seed%4), seed)
		c := Count(outs)
		assert.LessOrEqual(t, c.Tier1FA(), c.PredictedTotal[Supported])
		assert.LessOrEqual(t, c.Tier2FA(), c.GoldTotal[Unsupported])
		assert.LessOrEqual(t, c.Tier1FAUnconditional(), c.Tier1FAConditional())
		assert.LessOrEqual(t, c.Tier2FAUnconditional(), c.Tier2FAConditional())
		assert.Equal(t, c.N, c.Answered+c.Abstained)
		assert.InDelta(t, 1, c.Coverage()+c.AbstainRate(), 1e-12)
		assert.InDelta(t, 1, c.Accuracy()+c.SelectiveRisk(), 1e-12)
		sum := 0
		for g := 0; g < 3; g++ {
			for p := 0; p < 3; p++ {
				sum += c.Confusion[g][p]
			}
		}
		assert.Equal(t, c.AnsweredLabelled, sum)
	}
}

// evaluate is Evaluate with a small bootstrap, failing the test on error.
func evaluate(t *testing.T, outs []Outcome) map[string]float64 {
	t.Helper()
	e, err := Evaluate(outs, 1, BootstrapOptions{Resamples: 50, Seed: 1})
	require.NoError(t, err)
	require.Len(t, e.Metrics, len(Names))
	v := map[string]float64{}
	for i, x := range e.Metrics {
		require.Equal(t, Names[i], x.Name)
		v[x.Name] = x.Value
	}
	return v
}

func TestUndefinedIsNaN(t *testing.T) {
	// No outcomes: only the counts are defined.
	v := evaluate(t, nil)
	for _, name := range Names {
		if strings.HasPrefix(name, "rule_") && strings.HasSuffix(name, "_count") {
			assert.False(t, math.IsNaN(v[name]), name)
			continue
		}
		switch name {
		case "n", "answered", "abstained", "pred_count_supported", "pred_count_unsupported", "pred_count_insufficient", "temperature",
			"quality_gates_pass", "critical_unsupported", "contradictions", "supported_n_at_p80", "unsupported_n_at_p80",
			"degenerate_supported", "degenerate_refuted", "outputs", "retrieval_claims":
			assert.False(t, math.IsNaN(v[name]), name)
		default:
			assert.True(t, math.IsNaN(v[name]), "%s = %v with no outcomes", name, v[name])
		}
	}
	// One right answer: accuracy is 1; macro-F1 averages the one class
	// present (scikit-learn's default labels); precision of a class never
	// predicted, recall of a class never gold, kappa (chance agreement 1)
	// and AUC (no negatives) are undefined.
	one := []Outcome{{Gold: Supported, Predicted: Supported, Scored: true, Logits: [3]float64{1, 0, 0}, LatencyMS: 3}}
	v = evaluate(t, one)
	assert.Equal(t, 1.0, v["accuracy"])
	assert.Equal(t, 1.0, v["macro_f1"])
	assert.Equal(t, 1.0, v["majority_accuracy"])
	assert.Equal(t, 1.0, v["degenerate_verifier"], "one label for every answered claim")
	assert.Equal(t, 3.0, v["latency_p99_ms"])
	for _, name := range []string{"precision_unsupported", "recall_unsupported", "f1_unsupported", "cohen_kappa", "binary_auc", "auc_supported", "false_positive_rate"} {
		assert.True(t, math.IsNaN(v[name]), "%s = %v", name, v[name])
		assert.NotEmpty(t, Undefined(name, Count(one)), name)
	}
	// Without gold: every gold-based number is undefined, the predicted
	// distribution is not.
	nogold := synthetic(300, 1, 5)
	for i := range nogold {
		nogold[i].Gold = Unknown
	}
	v = evaluate(t, nogold)
	c := Count(nogold)
	for _, name := range []string{"accuracy", "macro_f1", "majority_accuracy", "balanced_accuracy", "cohen_kappa",
		"binary_balanced_accuracy", "binary_auc", "auc_insufficient", "tier1_fa_conditional", "tier1_fa_unconditional",
		"tier2_fa_conditional", "selective_risk", "ece_10", "brier", "nll", "aurc", "e_aurc", "false_positive_rate", "degenerate_verifier"} {
		assert.True(t, math.IsNaN(v[name]), "%s = %v without gold", name, v[name])
		assert.Contains(t, Undefined(name, c), "gold", name)
	}
	sum := 0.0
	for k := Class(0); k < 3; k++ {
		assert.Equal(t, float64(c.PredictedTotal[k]), v["pred_count_"+k.String()])
		sum += v["pred_rate_"+k.String()]
	}
	assert.InDelta(t, 1, sum, 1e-12)
	assert.Greater(t, v["mean_confidence"], 1.0/3)
}

func TestNaNIsAnError(t *testing.T) {
	_, err := Evaluate([]Outcome{{Gold: 0, Scored: true, Logits: [3]float64{math.NaN(), 0, 0}}}, 1, BootstrapOptions{})
	assert.ErrorIs(t, err, ErrNaN)
	_, err = Bootstrap([]Outcome{{Gold: 0, Scored: true, Logits: [3]float64{0, math.Inf(1), 0}}}, 1, BootstrapOptions{})
	assert.ErrorIs(t, err, ErrNaN)
}

// On a rich data set (every class as gold and prediction, latencies,
// importance) every metric is defined: a name added to Names without a
// value, or a value that is never filled in, fails here (Evaluate panics
// on a name without a value).
func TestEveryMetricDefinedOnRichData(t *testing.T) {
	outs := synthetic(600, 1.5, 1)
	for i := range outs {
		outs[i].Importance = NameOf([]string{"critical", "material", "minor"}[i%3])
		outs[i].Source = fmt.Sprintf("out%d", i/4)
		outs[i].EvidenceRanks = [][]int{{1}, {0}, {3, 0}, {6}}[i%4]
		outs[i].Rule, outs[i].RuleLabel, outs[i].VerifierLabel = NameOf(RuleNames[i%len(RuleNames)]), Class(i%3), outs[i].Predicted
	}
	v := evaluate(t, outs)
	for _, name := range Names {
		assert.False(t, math.IsNaN(v[name]), name)
	}
	for _, name := range BootstrapMetrics {
		assert.Contains(t, Names, name, "bootstrap metric %s is a metric", name)
	}
}

func TestBootstrapDeterministicAcrossWorkers(t *testing.T) {
	outs := synthetic(5000, 2, 21)
	a, err := Bootstrap(outs, 1, BootstrapOptions{Resamples: 200, Seed: 5, Workers: 1})
	require.NoError(t, err)
	b, err := Bootstrap(outs, 1, BootstrapOptions{Resamples: 200, Seed: 5, Workers: 4})
	require.NoError(t, err)
	assert.Equal(t, a, b)
	c, err := Bootstrap(outs, 1, BootstrapOptions{Resamples: 200, Seed: 6, Workers: 2})
	require.NoError(t, err)
	assert.NotEqual(t, a, c, "another seed, other intervals")

	point := evaluate(t, outs)
	for _, name := range BootstrapMetrics {
		iv := a[name]
		assert.LessOrEqual(t, iv.Low, iv.High, name)
		assert.True(t, iv.Low <= point[name]+0.01 && point[name]-0.01 <= iv.High, "%s: %v outside [%v, %v]", name, point[name], iv.Low, iv.High)
		assert.Less(t, iv.High-iv.Low, 0.2, "%s: a 5,000-claim interval is narrow", name)
	}
}

func TestSlices(t *testing.T) {
	outs := []Outcome{{Type: NameOf("numeric"), Source: "b", Importance: NameOf("critical")}, {Type: NameOf("fact"), Source: "a"}, {Type: NameOf("numeric")}}
	var names []string
	for _, s := range Slices(outs) {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"all", "type=fact", "type=numeric", "source=a", "source=b", "importance=critical"}, names)
	assert.Equal(t, []int{0, 2}, Slices(outs)[2].Indexes)
}

func TestSweeps(t *testing.T) {
	outs := synthetic(2000, 2.5, 4)
	ts := SweepTemperature(outs, DefaultTemperatureGrid())
	require.NotEmpty(t, ts)
	best := ts[0]
	for _, p := range ts {
		if p.NLL < best.NLL {
			best = p
		}
	}
	assert.InEpsilon(t, 2.5, best.Temperature, 0.2, "the NLL minimum of the grid is near the true T")
	th := SweepAbstain(outs, 1, DefaultThresholdGrid())
	for i := 1; i < len(th); i++ {
		assert.LessOrEqual(t, th[i].Coverage, th[i-1].Coverage, "coverage falls as the threshold rises")
	}
	assert.InDelta(t, Count(outs).Coverage(), th[0].Coverage, 1e-12)
}

func TestFitTemperatureIndependentOfWorkers(t *testing.T) {
	outs := synthetic(30000, 1.7, 31)
	prev := runtime.GOMAXPROCS(1)
	one := FitTemperature(outs)
	runtime.GOMAXPROCS(4)
	four := FitTemperature(outs)
	runtime.GOMAXPROCS(prev)
	assert.Equal(t, one, four, "bit-identical with 1 and 4 workers")
}

func TestBySlice(t *testing.T) {
	outs := synthetic(600, 1, 3)
	tab, err := BySlice(outs, 1, BootstrapOptions{Resamples: 20})
	require.NoError(t, err)
	require.Equal(t, "all", tab[0].Slice)
	assert.Equal(t, []string{"all", "type=fact", "type=numeric", "type=temporal"}, []string{tab[0].Slice, tab[1].Slice, tab[2].Slice, tab[3].Slice})
	n := 0.0
	for _, s := range tab[1:] {
		assert.Equal(t, "n", s.Metrics[0].Name)
		n += s.Metrics[0].Value
	}
	assert.Equal(t, tab[0].Metrics[0].Value, n, "the type slices partition the claims")
}

// Beyond the cap the smaller sources are pooled in one slice, so the
// number of slices does not grow with the number of sources.
func TestSlicesCapSources(t *testing.T) {
	var outs []Outcome
	for i := 0; i < 500; i++ {
		outs = append(outs, Outcome{Source: fmt.Sprintf("s%03d", i%100)})
	}
	for i := 0; i < 7; i++ { // s007 and s042 become the largest
		outs = append(outs, Outcome{Source: "s007"}, Outcome{Source: "s042"}, Outcome{Source: "s042"})
	}
	sl := SlicesWith(outs, SliceOptions{MaxSources: 2})
	var names []string
	pooled := 0
	for _, s := range sl {
		names = append(names, s.Name)
		if s.Name == OtherSources {
			pooled = len(s.Indexes)
		}
	}
	assert.Equal(t, []string{"all", "source=s007", "source=s042", OtherSources}, names)
	assert.Equal(t, len(outs)-12-19, pooled, "every claim of an uncapped source is in the pooled slice")
	assert.Len(t, Slices(outs), 1+DefaultMaxSourceSlices+1)
	assert.Len(t, SlicesWith(outs, SliceOptions{MaxSources: -1}), 1+100, "opt-in: every source")
}
