package metrics_test

import (
	"fmt"
	"math"

	"github.com/claimaudit/claimaudit/metrics"
)

// outcome builds an answered outcome whose logits favour pred.
func outcome(gold, pred metrics.Class) metrics.Outcome {
	o := metrics.Outcome{Gold: gold, Predicted: pred, Scored: true, LatencyMS: -1}
	o.Logits[pred] = 2
	return o
}

func abstained(gold metrics.Class) metrics.Outcome {
	return metrics.Outcome{Gold: gold, Abstained: true, LatencyMS: -1}
}

// Ten claims: 3 supported claims accepted, 1 contradicted and 1 unsupported
// claim wrongly accepted, 2 contradicted claims caught, 1 contradicted claim
// called insufficient, and 2 abstentions.
func ExampleCount() {
	S, U, I := metrics.Supported, metrics.Unsupported, metrics.Insufficient
	outs := []metrics.Outcome{
		outcome(S, S), outcome(S, S), outcome(S, S),
		outcome(U, S), outcome(I, S),
		outcome(U, U), outcome(U, U), outcome(U, I),
		abstained(I), abstained(S),
	}
	c := metrics.Count(outs)
	fmt.Printf("coverage %.2f, abstain rate %.2f\n", c.Coverage(), c.AbstainRate())
	// Tier 1: predicted supported while gold is U or I: 2 claims.
	fmt.Printf("tier-1 FA %.3f of answered, %.3f of all\n", c.Tier1FAConditional(), c.Tier1FAUnconditional())
	// Tier 2: predicted S or I while gold is U: U→S and U→I, 2 claims.
	fmt.Printf("tier-2 FA %.3f of answered, %.3f of all\n", c.Tier2FAConditional(), c.Tier2FAUnconditional())
	fmt.Printf("accuracy %.3f (5 of 8)\n", c.Accuracy())
	p, r, f := c.PerClass(S)
	fmt.Printf("supported: precision %.3f recall %.3f f1 %.3f\n", p, r, f)
	p, r, f = c.PerClass(U)
	fmt.Printf("unsupported: precision %.3f recall %.3f f1 %.3f\n", p, r, f)
	fmt.Printf("macro-F1 %.4f = (0.75 + 0.6667 + 0) / 3\n", c.MacroF1())
	// Output:
	// coverage 0.80, abstain rate 0.20
	// tier-1 FA 0.250 of answered, 0.200 of all
	// tier-2 FA 0.250 of answered, 0.200 of all
	// accuracy 0.625 (5 of 8)
	// supported: precision 0.600 recall 1.000 f1 0.750
	// unsupported: precision 1.000 recall 0.500 f1 0.667
	// macro-F1 0.4722 = (0.75 + 0.6667 + 0) / 3
}

// Five decisions in three bins of ten: (0.9,1] holds 0.95 right and 0.95
// wrong (|0.5 − 0.95| × 2/5 = 0.18); (0.6,0.7] holds two right at 0.65
// (0.35 × 2/5 = 0.14); (0.3,0.4] one wrong at 0.35 (0.35 × 1/5 = 0.07).
func ExampleTopLabelECE() {
	conf := []float64{0.95, 0.95, 0.65, 0.65, 0.35}
	correct := []bool{true, false, true, true, false}
	fmt.Printf("ECE %.2f\n", metrics.TopLabelECE(conf, correct, 10))
	// Output: ECE 0.39
}

// Confidences 0.9 (right), 0.8 (wrong), 0.8 (right), 0.6 (wrong): the two
// 0.8s enter together. Risks 0, 1/3, 1/2 at coverages 1/4, 3/4, 1, so
// AURC = 1/4·0 + 2/4·1/3 + 1/4·1/2 = 0.2917; the oracle puts both right
// answers first: (1/3 + 2/4)/4 = 0.2083.
func ExampleAURC() {
	pts := metrics.RiskCoverageOf([]float64{0.9, 0.8, 0.8, 0.6}, []bool{true, false, true, false})
	for _, p := range pts {
		fmt.Printf("threshold %.1f coverage %.2f risk %.3f\n", p.Threshold, p.Coverage, p.Risk)
	}
	aurc := metrics.AURC(pts, 4)
	fmt.Printf("AURC %.4f, E-AURC %.4f\n", aurc, aurc-metrics.OracleAURC(4, 2))
	// Output:
	// threshold 0.9 coverage 0.25 risk 0.000
	// threshold 0.8 coverage 0.75 risk 0.333
	// threshold 0.6 coverage 1.00 risk 0.500
	// AURC 0.2917, E-AURC 0.0833
}

// Logits (2, 0, 0) give p = e²/(e²+2) = 0.787 for supported; at T = 2 the
// distribution flattens to e/(e+2) = 0.576.
func ExampleSoftmax() {
	p := metrics.Softmax([3]float64{2, 0, 0}, 1)
	q := metrics.Softmax([3]float64{2, 0, 0}, 2)
	fmt.Printf("%.3f %.3f\n", p[0], q[0])
	// Output: 0.787 0.576
}

// Seed 002: supported above 0.8 is supported, at or below it weak;
// unsupported is contradicted; insufficient or no decision is not found.
func ExampleVerdictOf() {
	strong := metrics.Outcome{Predicted: metrics.Supported, Scored: true, Logits: [3]float64{3, 0, 0}} // p = 0.91
	weak := metrics.Outcome{Predicted: metrics.Supported, Scored: true, Logits: [3]float64{2, 0, 0}}   // p = 0.79
	fmt.Println(metrics.VerdictOf(strong, 1), metrics.VerdictOf(weak, 1),
		metrics.VerdictOf(metrics.Outcome{Predicted: metrics.Unsupported, Scored: true}, 1),
		metrics.VerdictOf(metrics.Outcome{Abstained: true}, 1))
	// Output: supported weak contradicted not_found
}

// Evidence coverage counts non-minor claims judged supported or weak;
// the unsupported rate counts non-minor claims not found.
func ExampleQualityGates() {
	mk := func(imp string, pred metrics.Class, abst bool) metrics.Outcome {
		o := outcome(metrics.Unknown, pred)
		o.Importance, o.Abstained = metrics.NameOf(imp), abst
		return o
	}
	outs := []metrics.Outcome{
		mk("critical", metrics.Supported, false),
		mk("material", metrics.Supported, false),
		mk("material", metrics.Insufficient, false),
		mk("critical", 0, true),
		mk("minor", 0, true),
	}
	g := metrics.QualityGates(outs, 1)
	fmt.Printf("evidence coverage %.2f, unsupported rate %.2f, critical unsupported %d, pass %v\n",
		g.EvidenceCoverage, g.UnsupportedRate, g.CriticalUnsupported, g.Pass)
	// Output: evidence coverage 0.50, unsupported rate 0.50, critical unsupported 1, pass false
}

// Two answered claims: supported predicted supported with logits (ln 4, 0, 0)
// → p = (2/3, 1/6, 1/6), and insufficient predicted supported with the same
// logits. NLL = (−ln 2/3 − ln 1/6)/2 = (0.405 + 1.792)/2 = 1.099.
// Brier = ((1/3)² + 2(1/6)² + (2/3)² + (1/6)² + (5/6)²)/2 = (1/6 + 7/6)/2 = 0.667.
// Both sit in the (0.6, 0.7] bin with accuracy 1/2 at confidence 2/3, so
// ECE = MCE = 1/6 = 0.167. Equal-mass bins put each claim in a bin of its
// own: |1 − 2/3|/2 + |0 − 2/3|/2 = 0.5.
func ExampleCalibration() {
	z := [3]float64{math.Log(4), 0, 0}
	outs := []metrics.Outcome{
		{Gold: metrics.Supported, Predicted: metrics.Supported, Scored: true, Logits: z},
		{Gold: metrics.Insufficient, Predicted: metrics.Supported, Scored: true, Logits: z},
	}
	r := metrics.Calibration(outs, 1)
	fmt.Printf("NLL %.3f Brier %.3f ECE %.3f MCE %.3f equal-mass ECE %.3f\n", r.NLL, r.Brier, r.ECE10, r.MCE, r.ECEEqualMass)
	// Classwise: for supported, p = 2/3 twice with one hit: |1/2 − 2/3| = 1/6;
	// unsupported, 1/6 twice, no hit: 1/6; insufficient, 1/6 twice, one hit:
	// |1/2 − 1/6| = 1/3. Mean (1/6 + 1/6 + 1/3)/3 = 0.222.
	fmt.Printf("classwise ECE %.3f\n", r.ClasswiseECE)
	// Output:
	// NLL 1.099 Brier 0.667 ECE 0.167 MCE 0.167 equal-mass ECE 0.500
	// classwise ECE 0.222
}

// Seed 004's rates: of 4 claims, 2 predicted supported → pass rate 0.5;
// one of the 2 gold-unsupported claims was accepted (false-positive rate
// 0.5, the other abstained), the one gold-supported claim was called
// unsupported (false-negative rate 1).
func ExampleCounts_PassRate() {
	S, U := metrics.Supported, metrics.Unsupported
	outs := []metrics.Outcome{outcome(U, S), abstained(U), outcome(S, U), outcome(metrics.Insufficient, S)}
	c := metrics.Count(outs)
	fmt.Printf("pass %.2f FPR %.2f FNR %.2f\n", c.PassRate(), c.FalsePositiveRate(), c.FalseNegativeRate())
	// Output: pass 0.50 FPR 0.50 FNR 1.00
}

// Seed 004's calibration bound: among supported predictions with p >= 0.8,
// accuracy must reach 0.75. Here 2 of 3 are right (0.667), so it fails.
func ExampleCalibrationBounds() {
	strong := [3]float64{3, 0, 0} // p = 0.91
	outs := []metrics.Outcome{
		{Gold: metrics.Supported, Predicted: metrics.Supported, Scored: true, Logits: strong},
		{Gold: metrics.Supported, Predicted: metrics.Supported, Scored: true, Logits: strong},
		{Gold: metrics.Unsupported, Predicted: metrics.Supported, Scored: true, Logits: strong},
	}
	b := metrics.CalibrationBounds(outs, 1)
	fmt.Printf("supported n=%d accuracy %.3f pass %v\n", b.SupportedN, b.SupportedAccuracy, b.CalibrationPass)
	// Output: supported n=3 accuracy 0.667 pass false
}

// Latency percentiles interpolate between order statistics: the median of
// 10, 20, 30, 40 is 25; p99 is 30 + 0.97·10 = 39.7.
func ExamplePercentile() {
	lat := []float64{40, 10, 30, 20}
	fmt.Printf("%.1f %.1f\n", metrics.Percentile(lat, 0.5), metrics.Percentile(lat, 0.99))
	// Output: 25.0 39.7
}

// Ten answered claims, gold S S S U U I I I I I, predicted S S U U I I I I I I.
// Accuracy 8/10; always saying the majority gold label (insufficient, 5 of
// 10) scores 0.5. Balanced accuracy is the mean recall (2/3 + 1/2 + 1)/3.
// Cohen's κ: chance agreement (3·2 + 2·2 + 5·6)/100 = 0.4, so κ = (0.8 −
// 0.4)/(1 − 0.4). Supported vs not: recall 2/3 and 7/7.
func ExampleCounts_CohenKappa() {
	S, U, I := metrics.Supported, metrics.Unsupported, metrics.Insufficient
	outs := []metrics.Outcome{
		outcome(S, S), outcome(S, S), outcome(S, U), outcome(U, U), outcome(U, I),
		outcome(I, I), outcome(I, I), outcome(I, I), outcome(I, I), outcome(I, I),
	}
	c := metrics.Count(outs)
	maj, _ := c.Majority()
	fmt.Printf("accuracy %.3f, majority baseline %.3f (always %s)\n", c.Accuracy(), c.MajorityAccuracy(), maj)
	fmt.Printf("balanced accuracy %.3f, Cohen's kappa %.3f, binary balanced accuracy %.3f\n",
		c.BalancedAccuracy(), c.CohenKappa(), c.BinaryBalancedAccuracy())
	// Output:
	// accuracy 0.800, majority baseline 0.500 (always insufficient)
	// balanced accuracy 0.722, Cohen's kappa 0.667, binary balanced accuracy 0.833
}

// Positives at 0.9 and 0.8, negatives at 0.8 and 0.3: of the four
// positive–negative pairs the positive scores higher in three, and one is a
// tie (one half): AUC = 3.5/4. With one class only it is undefined.
func ExampleROCAUC() {
	fmt.Printf("%.3f\n", metrics.ROCAUC([]float64{0.9, 0.8, 0.8, 0.3}, []bool{true, false, true, false}))
	fmt.Println(metrics.ROCAUC([]float64{0.9, 0.8}, []bool{true, true}))
	// Output:
	// 0.875
	// NaN
}
