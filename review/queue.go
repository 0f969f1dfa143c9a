package review

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/reports"
)

// Item is one line of queue.jsonl: a claim to review, where the design put
// it and the probability it had of being drawn.
type Item struct {
	Position             int     `json:"position"` // 1-based order of review
	ClaimID              string  `json:"claim_id"`
	InclusionProbability float64 `json:"inclusion_probability"`
	Stratum              string  `json:"stratum"`
}

// Stratum is one stratum of a stratified design: its claims and how many
// were drawn.
type Stratum struct {
	Name  string `json:"name"`
	Size  int    `json:"size"`
	Drawn int    `json:"drawn"`
}

// Plan is design.json: how the queue was drawn, which the estimator needs.
type Plan struct {
	Strategy   estimate.Kind `json:"strategy"`
	Seed       uint64        `json:"seed"`
	Requested  int           `json:"requested"`
	Population int           `json:"population"`
	RunID      string        `json:"run_id"`
	StratifyBy string        `json:"stratify_by,omitempty"`
	Strata     []Stratum     `json:"strata,omitempty"`
	// UniformShare is the active design's floor: the share of each
	// inclusion probability spread evenly over all claims.
	UniformShare float64 `json:"uniform_share,omitempty"`
}

// Design is the plan as estimate needs it.
func (p Plan) Design() estimate.Design {
	d := estimate.Design{Kind: p.Strategy, N: p.Population}
	for _, s := range p.Strata {
		d.StratumSizes = append(d.StratumSizes, s.Size)
	}
	return d
}

// Queue is a drawn review queue.
type Queue struct {
	Plan  Plan
	Items []Item
}

// Options choose the design.
type Options struct {
	N            int
	Strategy     estimate.Kind
	Seed         uint64
	StratifyBy   string  // "predicted_label", "claim_type" or "predicted_label,claim_type"
	UniformShare float64 // active only; 0 means DefaultUniformShare
}

// DefaultUniformShare is the active design's default floor: half of every
// inclusion probability is uniform, so no weight 1/π exceeds 2N/n.
const DefaultUniformShare = 0.5

// StratifyChoices are the accepted --stratify-by values.
var StratifyChoices = []string{"predicted_label", "claim_type", "predicted_label,claim_type"}

// stratumOf names a record's stratum: its predicted label ("abstained"
// when it has none) and/or its claim type.
func stratumOf(r *reports.Record, by string) string {
	pred := "abstained"
	if r.PredictedLabel != nil {
		pred = *r.PredictedLabel
	}
	switch by {
	case "claim_type":
		return r.ClaimType
	case "predicted_label,claim_type":
		return pred + "|" + r.ClaimType
	}
	return pred
}

// Uncertainty is the verifier's uncertainty about a claim for the active
// design: 1 − the largest calibrated probability (1 − 1/3 ≈ 0.67 when the
// record has none).
func Uncertainty(r *reports.Record) float64 {
	p := Probabilities(r)
	return 1 - max(p[0], p[1], p[2])
}

// Probabilities are a record's calibrated probabilities in label order, or
// 1/3 each when it has none (an adjudication error) or one is not a
// number in [0, 1]. Any fixed prediction keeps the estimates valid; 1/3
// only makes them no sharper for that claim.
func Probabilities(r *reports.Record) [3]float64 {
	even := [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	if r.PSupported == nil || r.PUnsupported == nil || r.PInsufficient == nil {
		return even
	}
	p := [3]float64{*r.PSupported, *r.PUnsupported, *r.PInsufficient}
	for _, x := range p {
		if !(x >= 0 && x <= 1) {
			return even
		}
	}
	return p
}

// Draw draws a review queue from a run's records (in their file order).
func Draw(records []reports.Record, o Options) (*Queue, error) {
	N := len(records)
	rng := rand.New(rand.NewPCG(o.Seed, 0x27))
	q := &Queue{Plan: Plan{Strategy: o.Strategy, Seed: o.Seed, Requested: o.N, Population: N}}
	if N > 0 {
		q.Plan.RunID = records[0].RunID
	}
	var idx []int
	pi := make([]float64, N)
	stratum := make([]string, N)
	switch o.Strategy {
	case estimate.Uniform:
		var err error
		if idx, err = estimate.DrawUniform(rng, N, o.N); err != nil {
			return nil, err
		}
		for i := range pi {
			pi[i] = float64(o.N) / float64(N)
		}
	case estimate.Stratified:
		by := cmp.Or(o.StratifyBy, "predicted_label")
		if !slices.Contains(StratifyChoices, by) {
			return nil, fmt.Errorf("stratify by %q: one of %v", by, StratifyChoices)
		}
		q.Plan.StratifyBy = by
		names := map[string]int{}
		for i := range records {
			stratum[i] = stratumOf(&records[i], by)
			if _, ok := names[stratum[i]]; !ok {
				names[stratum[i]] = len(names)
			}
		}
		// Strata in a fixed order (by name), whatever the record order.
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		slices.Sort(sorted)
		for h, n := range sorted {
			names[n] = h
		}
		h := make([]int, N)
		for i := range h {
			h[i] = names[stratum[i]]
		}
		var alloc []int
		var d estimate.Design
		var err error
		if idx, alloc, d, err = estimate.DrawStratified(rng, h, len(sorted), o.N); err != nil {
			return nil, err
		}
		for k, n := range sorted {
			q.Plan.Strata = append(q.Plan.Strata, Stratum{Name: n, Size: d.StratumSizes[k], Drawn: alloc[k]})
		}
		for i := range pi {
			pi[i] = float64(alloc[h[i]]) / float64(d.StratumSizes[h[i]])
		}
	case estimate.Active:
		share := o.UniformShare
		if share == 0 {
			share = DefaultUniformShare
		}
		q.Plan.UniformShare = share
		u := make([]float64, N)
		for i := range records {
			u[i] = Uncertainty(&records[i])
		}
		var err error
		if pi, err = estimate.ActiveProbabilities(u, o.N, share); err != nil {
			return nil, err
		}
		idx = estimate.DrawPoisson(rng, pi)
	default:
		return nil, fmt.Errorf("unknown strategy %q", o.Strategy)
	}
	for k, i := range idx {
		q.Items = append(q.Items, Item{Position: k + 1, ClaimID: records[i].ClaimID, InclusionProbability: pi[i], Stratum: stratum[i]})
	}
	return q, nil
}

// labelOK reports whether s is a label or "unsure".
func labelOK(s string) (label.Label, bool, bool) {
	if label.Normalize(s) == Unsure {
		return label.None, true, true
	}
	l, ok := label.Parse(s)
	return l, false, ok
}

// Unsure is the answer of a reviewer who cannot decide.
const Unsure = "unsure"
