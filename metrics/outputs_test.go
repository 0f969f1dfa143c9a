package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Three outputs scored by hand: a has 2 of 3 claims supported (one abstained),
// b has one claim predicted unsupported, c is all supported with p > 0.8.
func TestOutputsByHand(t *testing.T) {
	sure := [3]float64{5, 0, 0}   // supported, p > 0.8
	weak := [3]float64{1, 0.5, 0} // supported, p < 0.8
	refute := [3]float64{0, 5, 0}
	outs := []Outcome{
		{Source: "a", Gold: Supported, Scored: true, Logits: sure, Predicted: Supported, Importance: NameOf("material")},
		{Source: "a", Gold: Unsupported, Scored: true, Logits: weak, Predicted: Supported, Importance: NameOf("material")},
		{Source: "a", Gold: Unknown, Abstained: true, Importance: NameOf("minor")},
		{Source: "b", Gold: Unsupported, Scored: true, Logits: refute, Predicted: Unsupported, Importance: NameOf("material")},
		{Source: "b", Gold: Supported, Scored: true, Logits: sure, Predicted: Supported, Importance: NameOf("material")},
		{Source: "c", Gold: Supported, Scored: true, Logits: sure, Predicted: Supported},
		{Source: "", Gold: Supported, Scored: true, Logits: refute, Predicted: Unsupported}, // no output
	}
	s := Outputs(outs, 1)
	require.Len(t, s, 3)
	assert.Equal(t, []string{"a", "b", "c"}, []string{s[0].OutputID, s[1].OutputID, s[2].OutputID})
	assert.Equal(t, [3]int{2, 0, 0}, s[0].Predicted)
	assert.Equal(t, 1, s[0].Abstained)
	assert.InDelta(t, 2.0/3, s[0].SupportedFraction, 1e-12)
	assert.False(t, s[0].AnyUnsupported)
	assert.Equal(t, OutputPass, s[0].Verdict, "both material claims covered (supported or weak); the abstained one is minor")
	assert.Equal(t, 2, s[0].Labelled)
	assert.InDelta(t, 0.5, s[0].GoldSupportedFraction, 1e-12)
	assert.True(t, s[0].GoldAnyUnsupported)
	assert.Equal(t, "", s[0].GoldVerdict, "one claim has no gold label")
	assert.True(t, s[1].AnyUnsupported)
	assert.Equal(t, OutputRevise, s[1].Verdict, "a contradiction")
	assert.Equal(t, OutputRevise, s[1].GoldVerdict)
	assert.Equal(t, OutputPass, s[2].GoldVerdict)

	e, err := Evaluate(outs, 1, BootstrapOptions{Resamples: 200, Seed: 3})
	require.NoError(t, err)
	assert.Equal(t, 3.0, e.Value("outputs"))
	assert.InDelta(t, (2.0/3+0.5+1)/3, e.Value("output_supported_fraction"), 1e-12)
	assert.InDelta(t, 1.0/3, e.Value("output_any_unsupported_rate"), 1e-12)
	assert.InDelta(t, 2.0/3, e.Value("output_pass_rate"), 1e-12)
	assert.InDelta(t, (0.5+0.5+1)/3, e.Value("gold_output_supported_fraction"), 1e-12)
	assert.InDelta(t, 2.0/3, e.Value("gold_output_any_unsupported_rate"), 1e-12)
	assert.InDelta(t, 0.5, e.Value("gold_output_pass_rate"), 1e-12, "b revises, c passes; a has no gold verdict")
	iv, ok := e.Intervals["output_supported_fraction"]
	require.True(t, ok)
	assert.LessOrEqual(t, iv.Low, e.Value("output_supported_fraction"))
	assert.GreaterOrEqual(t, iv.High, e.Value("output_supported_fraction"))
	assert.GreaterOrEqual(t, iv.Low, 0.5, "a resample of outputs, never of claims: the smallest output fraction is 0.5")

	// No source ids: no outputs, and the output metrics are undefined.
	for i := range outs {
		outs[i].Source = ""
	}
	e, err = Evaluate(outs, 1, BootstrapOptions{Resamples: 10, Seed: 3})
	require.NoError(t, err)
	assert.Equal(t, 0.0, e.Value("outputs"))
	assert.True(t, math.IsNaN(e.Value("output_supported_fraction")))
	assert.Contains(t, Undefined("output_supported_fraction", e.Counts), "source_id")
	_, ok = e.Intervals["output_supported_fraction"]
	assert.False(t, ok)
}

func TestRetrievalByHand(t *testing.T) {
	p := func(doc, span string) Passage { return Passage{DocID: doc, SpanID: span} }
	retrieved := []Passage{p("d1", "s1"), p("d2", ""), p("d3", "s3"), p("d4", "s4"), p("d5", "s5"), p("d6", "s6")}
	assert.Equal(t, []int{3, 2, 0, 6}, EvidenceRanksOf([]string{"s3", "d2", "s9", "d6"}, retrieved))
	assert.Nil(t, EvidenceRanksOf(nil, retrieved))

	outs := []Outcome{
		// gold ids ranked 3, 2, missing, 6: recall@1 0, @5 2/4, all 3/4, RR 1/2
		{Gold: Supported, Predicted: Unsupported, Scored: true, Logits: [3]float64{0, 1, 0}, EvidenceRanks: []int{3, 2, 0, 6}},
		// found first: recall 1 everywhere, RR 1; wrong: retrieved but misjudged
		{Gold: Supported, Predicted: Insufficient, Scored: true, Logits: [3]float64{0, 0, 1}, EvidenceRanks: []int{1}},
		// not found: wrong for want of evidence
		{Gold: Unsupported, Predicted: Insufficient, Scored: true, Logits: [3]float64{0, 0, 1}, EvidenceRanks: []int{0}},
		// right, not found
		{Gold: Insufficient, Predicted: Insufficient, Scored: true, Logits: [3]float64{0, 0, 1}, EvidenceRanks: []int{0, 0}},
		// no gold evidence: not counted
		{Gold: Supported, Predicted: Unsupported, Scored: true, Logits: [3]float64{0, 1, 0}},
	}
	e, err := Evaluate(outs, 1, BootstrapOptions{Resamples: 10, Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, 4.0, e.Value("retrieval_claims"))
	assert.InDelta(t, (0+1+0+0)/4.0, e.Value("retrieval_recall_at_1"), 1e-12)
	assert.InDelta(t, (0.5+1+0+0)/4, e.Value("retrieval_recall_at_5"), 1e-12)
	assert.InDelta(t, (0.75+1+0+0)/4, e.Value("retrieval_recall"), 1e-12)
	assert.InDelta(t, (0.5+1+0+0)/4, e.Value("retrieval_mrr"), 1e-12)
	assert.InDelta(t, 0.5, e.Value("retrieval_hit_rate"), 1e-12)
	assert.Equal(t, 1.0, e.Value("errors_evidence_missed"))
	assert.Equal(t, 2.0, e.Value("errors_evidence_retrieved"))
	assert.InDelta(t, 1.0/3, e.Value("error_share_evidence_missed"), 1e-12)
}

// outputsByMap is Outputs as it was before eachOutput (a map of index
// lists per source): the oracle the counting-sort grouping is held to.
func outputsByMap(outs []Outcome, t float64) []OutputScore {
	groups := map[string][]int{}
	for i, o := range outs {
		if o.Source != "" {
			groups[o.Source] = append(groups[o.Source], i)
		}
	}
	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	scores := make([]OutputScore, len(ids))
	for j, id := range ids {
		s := OutputScore{OutputID: id, Claims: len(groups[id])}
		var verdicts, gverdicts, imp []string
		for _, i := range groups[id] {
			o := outs[i]
			if o.Abstained {
				s.Abstained++
			} else {
				s.Predicted[o.Predicted]++
			}
			verdicts = append(verdicts, VerdictOf(o, t))
			imp = append(imp, o.Importance.String())
			if o.Gold != Unknown {
				s.Labelled++
				s.Gold[o.Gold]++
				gverdicts = append(gverdicts, goldVerdict(o.Gold))
			}
		}
		s.SupportedFraction = ratio(s.Predicted[Supported], s.Claims)
		s.AnyUnsupported = s.Predicted[Unsupported] > 0
		s.Verdict = OutputRevise
		if gatesPass(verdicts, imp) {
			s.Verdict = OutputPass
		}
		s.GoldSupportedFraction = ratio(s.Gold[Supported], s.Labelled)
		s.GoldAnyUnsupported = s.Gold[Unsupported] > 0
		if s.Labelled == s.Claims {
			s.GoldVerdict = OutputRevise
			if gatesPass(gverdicts, imp) {
				s.GoldVerdict = OutputPass
			}
		}
		scores[j] = s
	}
	return scores
}

// Outputs grouped by counting sort equal the map-of-lists grouping they
// replaced: the same outputs, in the same order, with the same counts
// and verdicts, on random claims (sources shared, unique and empty;
// abstentions, gold and importance drawn at random).
func TestOutputsEqualMapGrouping(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for c := range 300 {
		outs := make([]Outcome, r.IntN(300))
		nsrc := 1 + r.IntN(100)
		for i := range outs {
			o := &outs[i]
			o.Source = fmt.Sprintf("out-%03d", r.IntN(nsrc))
			if r.IntN(8) == 0 {
				o.Source = ""
			}
			o.Abstained = r.IntN(5) == 0
			o.Predicted = Class(r.IntN(3))
			o.Gold = Class(r.IntN(4) - 1)
			o.Importance = NameOf([]string{"", "critical", "material", "minor"}[r.IntN(4)])
			o.Scored = r.IntN(6) > 0
			for k := range o.Logits {
				o.Logits[k] = r.NormFloat64() * 3
			}
		}
		// Printed: NaN (no labelled claim) equals NaN there.
		require.Equal(t, fmt.Sprintf("%+v", outputsByMap(outs, 1)), fmt.Sprintf("%+v", Outputs(outs, 1)), "case %d", c)
	}
}
