package metrics

import (
	"math"
	"sort"
	"strings"
)

// Metric is one named value, as in the long-form metrics.parquet.
type Metric struct {
	Name  string
	Value float64
}

// Names is every headline metric in DESIGN.md's order.
var Names = []string{
	"n", "answered", "abstained", "coverage", "abstain_rate", "accuracy", "macro_f1",
	"precision_supported", "precision_unsupported", "precision_insufficient",
	"recall_supported", "recall_unsupported", "recall_insufficient",
	"f1_supported", "f1_unsupported", "f1_insufficient",
	"tier1_fa_conditional", "tier1_fa_unconditional", "tier2_fa_conditional", "tier2_fa_unconditional",
	"selective_risk", "ece_10", "ece_15", "ece_em_10", "classwise_ece", "mce", "brier", "nll",
	"aurc", "e_aurc", "temperature", "pass_rate", "false_positive_rate", "false_negative_rate",
	"evidence_coverage", "unsupported_rate", "latency_p50_ms", "latency_p99_ms",
}

// Headline computes every metric of Names for outcomes whose probabilities
// come from temperature t (1: raw). Undefined values (a latency percentile
// with no latencies) are NaN. It returns ErrNaN for NaN or Inf inputs.
func Headline(outs []Outcome, t float64) ([]Metric, error) {
	if err := Check(outs); err != nil {
		return nil, err
	}
	c := Count(outs)
	s := answeredScored(outs, t)
	cal := calibrationOf(s, t)
	rc := riskCoverage(s)
	errs := 0
	for _, x := range s {
		if !x.correct {
			errs++
		}
	}
	aurc := AURC(rc, len(s))
	g := QualityGates(outs, t)
	var lat []float64
	for _, o := range outs {
		if o.LatencyMS >= 0 {
			lat = append(lat, o.LatencyMS)
		}
	}
	sort.Float64s(lat)
	v := map[string]float64{
		"n": float64(c.N), "answered": float64(c.Answered), "abstained": float64(c.Abstained),
		"coverage": c.Coverage(), "abstain_rate": c.AbstainRate(), "accuracy": c.Accuracy(), "macro_f1": c.MacroF1(),
		"tier1_fa_conditional": c.Tier1FAConditional(), "tier1_fa_unconditional": c.Tier1FAUnconditional(),
		"tier2_fa_conditional": c.Tier2FAConditional(), "tier2_fa_unconditional": c.Tier2FAUnconditional(),
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
	}
	out := make([]Metric, len(Names))
	for i, n := range Names {
		out[i] = Metric{Name: n, Value: v[n]}
	}
	return out, nil
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
	EvidenceCoverage    float64 // of non-minor claims, supported or weak; 1 when there are none
	UnsupportedRate     float64 // of non-minor claims, not found; 0 when there are none
	CriticalUnsupported int     // critical claims not found
	Contradictions      int     // claims contradicted
	Pass                bool    // coverage >= 0.85, unsupported <= 0.05, no critical unsupported, no contradictions
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
		if o.Importance == "critical" && v == VerdictNotFound {
			g.CriticalUnsupported++
		}
		if o.Importance == "minor" {
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
	g.EvidenceCoverage, g.UnsupportedRate = 1, 0
	if material > 0 {
		g.EvidenceCoverage = ratio(covered, material)
		g.UnsupportedRate = ratio(notFound, material)
	}
	g.Pass = g.EvidenceCoverage >= 0.85 && g.UnsupportedRate <= 0.05 && g.CriticalUnsupported == 0 && g.Contradictions == 0
	return g
}

// Bounds are seed 004's calibration bound and degenerate-verifier checks.
type Bounds struct {
	// Accuracy among answered labelled claims predicted supported (resp.
	// unsupported) with probability >= 0.8, and how many there were.
	SupportedAccuracy, UnsupportedAccuracy float64
	SupportedN, UnsupportedN               int
	// CalibrationPass: both accuracies >= 0.75 (a side with no such claims
	// passes vacuously) and the 10-bin ECE <= 0.10.
	CalibrationPass bool
	// Shares of answered claims predicted supported and unsupported; a
	// verifier is flagged degenerate when over 100 answered claims it says
	// supported for more than 99% or unsupported for more than 50%.
	SupportedRate, RefutedRate             float64
	DegenerateSupported, DegenerateRefuted bool
}

// CalibrationBounds computes seed 004's bounds at temperature t.
func CalibrationBounds(outs []Outcome, t float64) Bounds {
	var b Bounds
	var okS, okU int
	c := Count(outs)
	for _, x := range answeredScored(outs, t) {
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
	b.CalibrationPass = (b.SupportedN == 0 || b.SupportedAccuracy >= 0.75) &&
		(b.UnsupportedN == 0 || b.UnsupportedAccuracy >= 0.75) && Calibration(outs, t).ECE10 <= 0.10
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
func SlicesWith(outs []Outcome, opts SliceOptions) []Slice {
	maxSources := opts.MaxSources
	if maxSources == 0 {
		maxSources = DefaultMaxSourceSlices
	}
	all := Slice{Name: "all", Indexes: make([]int, len(outs))}
	groups := map[string][]int{}
	for i, o := range outs {
		all.Indexes[i] = i
		for _, kv := range [][2]string{{"type", o.Type}, {"source", o.Source}, {"importance", o.Importance}} {
			if kv[1] != "" {
				key := kv[0] + "=" + kv[1]
				groups[key] = append(groups[key], i)
			}
		}
	}
	var sources []string
	for k := range groups {
		if strings.HasPrefix(k, "source=") {
			sources = append(sources, k)
		}
	}
	if maxSources > 0 && len(sources) > maxSources {
		sort.Slice(sources, func(a, b int) bool {
			na, nb := len(groups[sources[a]]), len(groups[sources[b]])
			if na != nb {
				return na > nb
			}
			return sources[a] < sources[b]
		})
		var other []int
		for _, k := range sources[maxSources:] {
			other = append(other, groups[k]...)
			delete(groups, k)
		}
		sort.Ints(other)
		groups[OtherSources] = other
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	order := map[byte]int{'t': 0, 's': 1, 'i': 2}
	sort.Slice(keys, func(a, b int) bool {
		if order[keys[a][0]] != order[keys[b][0]] {
			return order[keys[a][0]] < order[keys[b][0]]
		}
		// the pooled sources come after the named ones
		if oa, ob := keys[a] == OtherSources, keys[b] == OtherSources; oa != ob {
			return ob
		}
		return keys[a] < keys[b]
	})
	out := []Slice{all}
	for _, k := range keys {
		out = append(out, Slice{Name: k, Indexes: groups[k]})
	}
	return out
}

// Pick returns the outcomes of a slice.
func (s Slice) Pick(outs []Outcome) []Outcome {
	p := make([]Outcome, len(s.Indexes))
	for i, j := range s.Indexes {
		p[i] = outs[j]
	}
	return p
}

// SliceMetrics are the headline metrics of one slice.
type SliceMetrics struct {
	Slice   string
	Metrics []Metric
}

// BySlice computes every headline metric overall, by claim type, by source
// and by importance (the order of Slices).
func BySlice(outs []Outcome, t float64) ([]SliceMetrics, error) {
	var out []SliceMetrics
	for _, s := range Slices(outs) {
		m, err := Headline(s.Pick(outs), t)
		if err != nil {
			return nil, err
		}
		out = append(out, SliceMetrics{Slice: s.Name, Metrics: m})
	}
	return out, nil
}
