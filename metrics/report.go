package metrics

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// Metric is one named value, as in the long-form metrics.parquet. NaN
// means undefined (written as null).
type Metric struct {
	Name  string
	Value float64
}

// Names is every metric: the claim metrics in DESIGN.md's order, then
// CheckMetrics, OutputMetrics and RetrievalMetrics. `--fail-on` accepts
// these.
var Names = slices.Concat(claimNames, CheckMetrics, OutputMetrics, RetrievalMetrics, RuleMetrics)

var claimNames = []string{
	"n", "answered", "abstained", "coverage", "abstain_rate",
	"pred_count_supported", "pred_count_unsupported", "pred_count_insufficient",
	"pred_rate_supported", "pred_rate_unsupported", "pred_rate_insufficient", "mean_confidence",
	"accuracy", "majority_accuracy", "balanced_accuracy", "cohen_kappa", "macro_f1", "majority_macro_f1",
	"binary_balanced_accuracy", "binary_auc", "auc_supported", "auc_unsupported", "auc_insufficient",
	"degenerate_verifier",
	"precision_supported", "precision_unsupported", "precision_insufficient",
	"recall_supported", "recall_unsupported", "recall_insufficient",
	"f1_supported", "f1_unsupported", "f1_insufficient",
	"tier1_fa_conditional", "tier1_fa_unconditional", "tier2_fa_conditional", "tier2_fa_unconditional",
	"tier1_fa_of_gold_negatives", "tier2_fa_of_gold_unsupported",
	"selective_risk", "ece_10", "ece_15", "ece_em_10", "classwise_ece", "mce", "brier", "nll",
	"aurc", "e_aurc", "temperature", "pass_rate", "false_positive_rate", "false_negative_rate",
	"evidence_coverage", "unsupported_rate", "latency_p50_ms", "latency_p99_ms",
}

// DegenerateShare: a verifier whose most frequent predicted label covers at
// least this share of answered claims is degenerate.
const DegenerateShare = 0.95

// DegenerateMinAnswered is the fewest answered claims the share test of
// degenerate_verifier needs (the verifier method's flags measure over at
// least 100): one claim predicted supported is 100% supported, not a
// collapsed verifier.
const DegenerateMinAnswered = 100

// Evaluation is every metric of Names for one set of outcomes, with 95%
// bootstrap intervals for BootstrapMetrics (none for an undefined value).
type Evaluation struct {
	Metrics   []Metric
	Intervals map[string]Interval
	Counts    Counts
	// The calibration report and the whole risk–coverage curve the
	// metrics were computed from (Curves).
	cal    CalibrationReport
	curve  []RCPoint
	curves bool
}

// Curves are Calibration(outs, t) and RiskCoverage(outs, t) of the
// outcomes evaluated, as the metrics computed them (ok false for an
// Evaluation that did not come from Evaluate).
func (e Evaluation) Curves() (cal CalibrationReport, curve []RCPoint, ok bool) {
	return e.cal, e.curve, e.curves
}

// WithoutCurves is e without its Curves (a million claims' curve is a
// point per distinct confidence), for a caller that keeps e.
func (e Evaluation) WithoutCurves() Evaluation {
	e.cal, e.curve, e.curves = CalibrationReport{}, nil, false
	return e
}

// Value is the named metric (NaN when undefined or unknown).
func (e Evaluation) Value(name string) float64 {
	for _, m := range e.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return math.NaN()
}

// Evaluate computes every metric of Names for outcomes whose probabilities
// come from temperature t (1: raw; calibrated-stage numbers are Evaluate
// at 1 of Scaled outcomes), with bootstrap intervals. Undefined values are
// NaN (Undefined says why). It returns ErrNaN for NaN or Inf inputs.
func Evaluate(outs []Outcome, t float64, opts BootstrapOptions) (Evaluation, error) {
	if err := Check(outs); err != nil {
		return Evaluation{}, err
	}
	c := Count(outs)
	v, pp := pointValues(outs, t, c)
	var ci map[string]Interval
	majorityHigh := math.NaN()
	if !opts.None {
		ci = bootstrap(outs, pp.scored, opts, [3]float64{v["auc_supported"], v["auc_unsupported"], v["auc_insufficient"]})
		majorityHigh = ci["majority_accuracy"].High
	}
	v["degenerate_verifier"] = degenerate(c, v["accuracy"], majorityHigh)
	maps.Copy(v, checkValues(pp.gates, pp.bounds))
	maps.Copy(v, retrievalValues(outs))
	maps.Copy(v, ruleValues(outs))
	ov, oci := evaluateOutputs(outs, t, opts)
	maps.Copy(v, ov)
	if ci != nil {
		maps.Copy(ci, oci)
	}
	if len(v) != len(Names) {
		panic(fmt.Sprintf("metrics: %d values for %d names", len(v), len(Names)))
	}
	e := Evaluation{Metrics: make([]Metric, len(Names)), Intervals: map[string]Interval{}, Counts: c, cal: pp.cal, curve: pp.curve, curves: true}
	for i, n := range Names {
		x, ok := v[n]
		if !ok {
			panic("metrics: no value for " + n)
		}
		e.Metrics[i] = Metric{Name: n, Value: x}
		if iv, ok := ci[n]; ok && !math.IsNaN(x) && !math.IsNaN(iv.Low) {
			e.Intervals[n] = iv
		}
	}
	return e, nil
}

// degenerate is 1 when one predicted label covers at least DegenerateShare
// of answered claims (from DegenerateMinAnswered up), or accuracy does not exceed the upper end of the
// majority baseline's interval; 0 when neither; NaN when no claim was
// answered, or when the first test passes and there is no gold to run the
// second.
func degenerate(c Counts, accuracy, majorityHigh float64) float64 {
	if c.Answered == 0 {
		return math.NaN()
	}
	for _, n := range c.PredictedTotal {
		if c.Answered >= DegenerateMinAnswered && float64(n) >= DegenerateShare*float64(c.Answered) {
			return 1
		}
	}
	if math.IsNaN(accuracy) || math.IsNaN(majorityHigh) {
		return math.NaN()
	}
	if accuracy <= majorityHigh {
		return 1
	}
	return 0
}

// pointValues computes every metric but degenerate_verifier.
func pointValues(outs []Outcome, t float64, c Counts) (map[string]float64, pointParts) {
	s := answeredScored(outs, t)
	var rank []ranked
	if len(s) > 0 {
		rank = rankByConf(s)
	}
	cal := calibrationRanked(s, t, rank)
	b := boundsOf(s, c, cal.ECE10)
	var auc [3]float64
	for k := Class(0); k < 3; k++ {
		auc[k] = aucOf(s, k)
	}
	rc := riskCoverageRanked(s, rank)
	errs := 0
	for _, x := range s {
		if !x.correct {
			errs++
		}
	}
	aurc := AURC(rc, len(s))
	g := QualityGates(outs, t)
	var lat []float64
	confSum := 0.0
	for _, o := range outs {
		if o.LatencyMS >= 0 {
			lat = append(lat, o.LatencyMS)
		}
		if !o.Abstained && o.Scored {
			p := Softmax(o.Logits, t)
			confSum += p[Argmax(p)]
		}
	}
	sort.Float64s(lat)
	meanConf := math.NaN()
	if c.Answered > 0 {
		meanConf = confSum / float64(c.Answered)
	}
	v := map[string]float64{
		"n": float64(c.N), "answered": float64(c.Answered), "abstained": float64(c.Abstained),
		"coverage": c.Coverage(), "abstain_rate": c.AbstainRate(), "mean_confidence": meanConf,
		"accuracy": c.Accuracy(), "majority_accuracy": c.MajorityAccuracy(), "balanced_accuracy": c.BalancedAccuracy(),
		"cohen_kappa": c.CohenKappa(), "macro_f1": c.MacroF1(), "majority_macro_f1": c.MajorityMacroF1(),
		"binary_balanced_accuracy": c.BinaryBalancedAccuracy(), "binary_auc": auc[Supported],
		"tier1_fa_conditional": c.Tier1FAConditional(), "tier1_fa_unconditional": c.Tier1FAUnconditional(),
		"tier2_fa_conditional": c.Tier2FAConditional(), "tier2_fa_unconditional": c.Tier2FAUnconditional(),
		"tier1_fa_of_gold_negatives": c.Tier1FAOfGoldNegatives(), "tier2_fa_of_gold_unsupported": c.Tier2FAOfGoldUnsupported(),
		"selective_risk": c.SelectiveRisk(), "ece_10": cal.ECE10, "ece_15": cal.ECE15, "ece_em_10": cal.ECEEqualMass,
		"classwise_ece": cal.ClasswiseECE, "mce": cal.MCE, "brier": cal.Brier, "nll": cal.NLL,
		"aurc": aurc, "e_aurc": aurc - OracleAURC(len(s), errs), "temperature": t,
		"pass_rate": c.PassRate(), "false_positive_rate": c.FalsePositiveRate(), "false_negative_rate": c.FalseNegativeRate(),
		"evidence_coverage": g.EvidenceCoverage, "unsupported_rate": g.UnsupportedRate,
		"latency_p50_ms": percentileSorted(lat, 0.50), "latency_p99_ms": percentileSorted(lat, 0.99),
	}
	for k := Class(0); k < 3; k++ {
		p, r, f := c.PerClass(k)
		v["precision_"+k.String()], v["recall_"+k.String()], v["f1_"+k.String()] = p, r, f
		v["pred_count_"+k.String()] = float64(c.PredictedTotal[k])
		v["pred_rate_"+k.String()] = c.PredictedRate(k)
		v["auc_"+k.String()] = auc[k]
	}
	return v, pointParts{gates: g, bounds: b, scored: s, cal: cal, curve: rc}
}

// pointParts are what pointValues computed that checkValues reports too.
type pointParts struct {
	gates  Gates
	bounds Bounds
	scored []scored // answeredScored(outs, t), in the order of outs
	cal    CalibrationReport
	curve  []RCPoint
}

// Undefined says why the named metric, found NaN for outcomes with counts
// c, is undefined (for a gate's message and summary.json).
func Undefined(name string, c Counts) string {
	label := func(prefix string) (Class, bool) {
		if !strings.HasPrefix(name, prefix) {
			return Unknown, false
		}
		for k := Class(0); k < 3; k++ {
			if name == prefix+k.String() {
				return k, true
			}
		}
		return Unknown, false
	}
	noGold := func() string {
		if c.Labelled == 0 {
			return "no claim has a gold label"
		}
		if c.AnsweredLabelled == 0 {
			return "no answered claim has a gold label"
		}
		return ""
	}
	if strings.HasPrefix(name, "rule_") {
		switch {
		case strings.HasSuffix(name, "_count"):
			return ""
		case strings.HasSuffix(name, "_verifier_accuracy"):
			return "the rule gave no labelled claim the verifier had labelled a label (or the layer is off: --rules none)"
		}
		return "the rule gave no labelled claim a label (or the layer is off: --rules none)"
	}
	switch name {
	case "quality_gates_pass", "critical_unsupported", "contradictions", "supported_n_at_p80", "unsupported_n_at_p80",
		"degenerate_supported", "degenerate_refuted", "outputs", "retrieval_claims":
		return ""
	case "calibration_pass":
		if r := noGold(); r != "" {
			return r + " (the bounds need the 10-bin ECE)"
		}
		return ""
	case "supported_accuracy_at_p80", "unsupported_accuracy_at_p80", "calibration_bound_supported", "calibration_bound_unsupported":
		if r := noGold(); r != "" {
			return r
		}
		class := strings.TrimPrefix(strings.TrimSuffix(name, "_accuracy_at_p80"), "calibration_bound_")
		return "no answered labelled claim was predicted " + class + " with probability >= 0.8"
	case "output_supported_fraction", "output_any_unsupported_rate", "output_pass_rate":
		return "no claim has a source_id (the model output it came from)"
	case "gold_output_supported_fraction", "gold_output_any_unsupported_rate":
		return "no output has a claim with a gold label (or no claim has a source_id)"
	case "gold_output_pass_rate":
		return "no output has a gold label for every claim (or no claim has a source_id)"
	case "retrieval_recall_at_1", "retrieval_recall_at_5", "retrieval_recall", "retrieval_mrr", "retrieval_hit_rate",
		"errors_evidence_missed", "errors_evidence_retrieved":
		return "no gold label names evidence (the gold file's evidence ids)"
	case "error_share_evidence_missed":
		return "no answered labelled claim with gold evidence is wrong (or no gold label names evidence)"
	case "coverage", "abstain_rate", "pass_rate":
		if c.N == 0 {
			return "there are no claims"
		}
		return ""
	case "mean_confidence", "pred_rate_supported", "pred_rate_unsupported", "pred_rate_insufficient":
		if c.Answered == 0 {
			return "no claim was answered"
		}
		return ""
	case "tier1_fa_unconditional", "tier2_fa_unconditional":
		if c.Labelled == 0 {
			return "no claim has a gold label"
		}
		return ""
	case "tier1_fa_of_gold_negatives", "tier2_fa_of_gold_unsupported":
		if c.Labelled == 0 {
			return "no claim has a gold label"
		}
		if name == "tier2_fa_of_gold_unsupported" {
			return "no claim has gold label unsupported"
		}
		return "no claim has gold label unsupported or insufficient"
	case "false_positive_rate", "false_negative_rate":
		g := Unsupported
		if name == "false_negative_rate" {
			g = Supported
		}
		if c.GoldTotal[g] == 0 {
			if c.Labelled == 0 {
				return "no claim has a gold label"
			}
			return "no claim has gold label " + g.String()
		}
		return ""
	case "evidence_coverage", "unsupported_rate":
		return "every claim is of minor importance (the rate counts critical and material claims)"
	case "latency_p50_ms", "latency_p99_ms":
		return "no latency was measured"
	case "degenerate_verifier":
		if c.Answered == 0 {
			return "no claim was answered"
		}
		if r := noGold(); r != "" {
			return "no predicted label reaches 95% of answered claims, and " + r + " to compare accuracy with the majority baseline"
		}
		return ""
	case "cohen_kappa":
		if r := noGold(); r != "" {
			return r
		}
		return "gold labels and predictions are all one and the same label (chance agreement is 1)"
	}
	if r := noGold(); r != "" {
		switch {
		case strings.HasPrefix(name, "pred_count_"), name == "n", name == "answered", name == "abstained", name == "temperature":
			return ""
		}
		return r
	}
	if k, ok := label("precision_"); ok {
		return "no answered labelled claim was predicted " + k.String()
	}
	if k, ok := label("recall_"); ok {
		return "no answered claim has gold label " + k.String()
	}
	if k, ok := label("f1_"); ok {
		return "no answered labelled claim has " + k.String() + " as gold label or prediction"
	}
	if k, ok := label("auc_"); ok {
		return "answered labelled claims are all or none " + k.String() + " (AUC needs both)"
	}
	if name == "binary_auc" {
		return "answered labelled claims are all or none supported (AUC needs both)"
	}
	return ""
}

// Seed 002 verdicts.
const (
	VerdictSupported    = "supported"
	VerdictWeak         = "weak"
	VerdictContradicted = "contradicted"
	VerdictNotFound     = "not_found"
)

// VerdictOf maps a decision to seed 002's verdict: predicted supported with
// confidence above 0.8 is supported, below it weak; predicted unsupported is
// contradicted; predicted insufficient or abstained is not found.
func VerdictOf(o Outcome, t float64) string {
	if o.Abstained {
		return VerdictNotFound
	}
	switch o.Predicted {
	case Supported:
		if o.Scored && Softmax(o.Logits, t)[Supported] > 0.8 {
			return VerdictSupported
		}
		return VerdictWeak
	case Unsupported:
		return VerdictContradicted
	}
	return VerdictNotFound
}

// Gates are seed 002's quality gates.
type Gates struct {
	EvidenceCoverage    float64 // of non-minor claims, supported or weak; NaN when there are none
	UnsupportedRate     float64 // of non-minor claims, not found; NaN when there are none
	CriticalUnsupported int     // critical claims not found
	Contradictions      int     // claims contradicted
	// Pass: coverage >= 0.85 and unsupported <= 0.05 (vacuous without
	// non-minor claims), no critical unsupported, no contradictions.
	Pass bool
}

// QualityGates computes seed 002's gates. Claims without an importance
// count as non-minor, as in the seed (importance !== "minor").
func QualityGates(outs []Outcome, t float64) Gates {
	var g Gates
	material, covered, notFound := 0, 0, 0
	for _, o := range outs {
		v := VerdictOf(o, t)
		if v == VerdictContradicted {
			g.Contradictions++
		}
		if o.Importance.String() == "critical" && v == VerdictNotFound {
			g.CriticalUnsupported++
		}
		if o.Importance.String() == "minor" {
			continue
		}
		material++
		switch v {
		case VerdictSupported, VerdictWeak:
			covered++
		case VerdictNotFound:
			notFound++
		}
	}
	g.EvidenceCoverage = ratio(covered, material)
	g.UnsupportedRate = ratio(notFound, material)
	g.Pass = (material == 0 || g.EvidenceCoverage >= 0.85 && g.UnsupportedRate <= 0.05) && g.CriticalUnsupported == 0 && g.Contradictions == 0
	return g
}

// Bounds are seed 004's calibration bound and degenerate-verifier checks.
type Bounds struct {
	// Accuracy among answered labelled claims predicted supported (resp.
	// unsupported) with probability >= 0.8, and how many there were.
	SupportedAccuracy, UnsupportedAccuracy float64
	SupportedN, UnsupportedN               int
	// CalibrationPass: both accuracies >= 0.75 (a side with no such claims
	// passes vacuously) and the 10-bin ECE <= 0.10; CalibrationDefined is
	// false when there is no answered labelled claim to judge (the ECE is
	// undefined) and CalibrationPass is then false.
	CalibrationPass    bool
	CalibrationDefined bool
	// Shares of answered claims predicted supported and unsupported (NaN
	// with none); a verifier is flagged degenerate when over 100 answered
	// claims it says supported for more than 99% or unsupported for more
	// than 50%.
	SupportedRate, RefutedRate             float64
	DegenerateSupported, DegenerateRefuted bool
}

// CalibrationBounds computes seed 004's bounds at temperature t.
func CalibrationBounds(outs []Outcome, t float64) Bounds {
	s := answeredScored(outs, t)
	return boundsOf(s, Count(outs), ECEOf(ReliabilityWidth(s, 10)))
}

// boundsOf is CalibrationBounds of the answered scored outcomes s (in any
// order), the counts of all the outcomes and the 10-bin ECE of s.
func boundsOf(s []scored, c Counts, ece float64) Bounds {
	var b Bounds
	var okS, okU int
	for _, x := range s {
		pred := Argmax(x.probs)
		if x.probs[pred] < 0.8 {
			continue
		}
		switch pred {
		case Supported:
			b.SupportedN++
			if x.correct {
				okS++
			}
		case Unsupported:
			b.UnsupportedN++
			if x.correct {
				okU++
			}
		}
	}
	b.SupportedAccuracy, b.UnsupportedAccuracy = math.NaN(), math.NaN()
	if b.SupportedN > 0 {
		b.SupportedAccuracy = ratio(okS, b.SupportedN)
	}
	if b.UnsupportedN > 0 {
		b.UnsupportedAccuracy = ratio(okU, b.UnsupportedN)
	}
	b.CalibrationDefined = !math.IsNaN(ece)
	b.CalibrationPass = (b.SupportedN == 0 || b.SupportedAccuracy >= 0.75) &&
		(b.UnsupportedN == 0 || b.UnsupportedAccuracy >= 0.75) && ece <= 0.10
	b.SupportedRate = ratio(c.PredictedTotal[Supported], c.Answered)
	b.RefutedRate = ratio(c.PredictedTotal[Unsupported], c.Answered)
	b.DegenerateSupported = c.Answered >= 100 && b.SupportedRate > 0.99
	b.DegenerateRefuted = c.Answered >= 100 && b.RefutedRate > 0.50
	return b
}

// Slice is a named subset of outcomes.
type Slice struct {
	Name    string // "all", "type=numeric", "source=...", "importance=critical"
	Indexes []int
}

// DefaultMaxSourceSlices is how many sources get a slice of their own by
// default: the largest ones (most claims, then name); the claims of every
// other source form one slice, OtherSources. Without a cap a run with one
// source per claim document would carry a slice (and its intervals) per
// source, and reports would grow with the number of sources.
const DefaultMaxSourceSlices = 20

// OtherSources names the slice of the sources beyond the cap.
const OtherSources = "source=(other)"

// MinBootstrapClaims is the floor under which a slice other than "all"
// gets no bootstrap intervals (they are null): with fewer claims a
// percentile interval says little and costs as much as a large slice's.
const MinBootstrapClaims = 30

// SliceOptions tune Slices.
type SliceOptions struct {
	// MaxSources: sources with their own slice; 0 takes
	// DefaultMaxSourceSlices, a negative value keeps every source.
	MaxSources int
}

// Slices returns "all", then one slice per claim type, source and
// importance (sorted by value; empty values only count in "all"), with the
// default cap on source slices.
func Slices(outs []Outcome) []Slice { return SlicesWith(outs, SliceOptions{}) }

// SlicesWith is Slices with options.
func SlicesWith(outs []Outcome, opts SliceOptions) []Slice { return SlicesBy(outs, opts, nil) }

// SlicesBy returns Slices, then one slice per value of each metadata key
// in keys ("meta.topic=health"), keys in the order given and values
// sorted; claims without the key only count in "all". The key SliceTags
// gives a slice per evidence tag instead (TagSlices: a claim is in one
// per tag it has). The slices after "all" are the partitions'
// (PartitionOf), as index lists, and the tags'.
func SlicesBy(outs []Outcome, opts SliceOptions, keys []string) []Slice {
	all := Slice{Name: "all", Indexes: make([]int, len(outs))}
	for i := range all.Indexes {
		all.Indexes[i] = i
	}
	out := []Slice{all}
	for _, kind := range PartitionKinds(keys) {
		if kind == KindTag {
			out = append(out, TagSlices(outs)...)
			continue
		}
		p := PartitionOf(outs, opts, kind)
		members := make([][]int, len(p.Names))
		for i, g := range p.Group {
			if g >= 0 {
				members[g] = append(members[g], i)
			}
		}
		for g, name := range p.Names {
			out = append(out, Slice{Name: name, Indexes: members[g]})
		}
	}
	return out
}

// Pick returns the outcomes of a slice.
// The slice of every outcome ("all") is outs itself, not a copy: callers
// read what Pick returns and never change it.
func (s Slice) Pick(outs []Outcome) []Outcome {
	if s.Name == "all" && len(s.Indexes) == len(outs) {
		return outs
	}
	p := make([]Outcome, len(s.Indexes))
	for i, j := range s.Indexes {
		p[i] = outs[j]
	}
	return p
}

// SliceMetrics are the metrics of one slice.
type SliceMetrics struct {
	Slice string
	Evaluation
}

// BySlice evaluates every metric overall, by claim type, by source and by
// importance (the order of Slices).
func BySlice(outs []Outcome, t float64, opts BootstrapOptions) ([]SliceMetrics, error) {
	var out []SliceMetrics
	for _, s := range Slices(outs) {
		e, err := Evaluate(s.Pick(outs), t, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, SliceMetrics{Slice: s.Name, Evaluation: e})
	}
	return out, nil
}
