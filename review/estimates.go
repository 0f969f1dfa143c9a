package review

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/reports"
)

// claimView is what a quantity needs of one claim: the verifier's decision
// and probabilities, and (for reviewed claims) the human label.
type claimView struct {
	answered bool
	pred     label.Label
	p        [3]float64
}

func viewOf(r *reports.Record) claimView {
	v := claimView{p: Probabilities(r)}
	if r.PredictedLabel != nil && !r.Abstained {
		v.answered = true
		v.pred, _ = label.Parse(*r.PredictedLabel)
	}
	return v
}

func ind(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Quantity is one estimated quantity: the ratio ΣA/ΣB over all claims,
// A and B from the human label y, FA and FB the verifier's predictions of
// them (docs/review.md lists each).
type Quantity struct {
	Name string
	// terms gives (A, B) for a human label and (FA, FB) without one.
	terms func(c claimView, y label.Label) (a, b float64)
	preds func(c claimView) (fa, fb float64)
}

var (
	sup, unsup, insuff = label.Supported, label.Unsupported, label.Insufficient
)

func share(l label.Label) Quantity {
	return Quantity{Name: "share_" + l.String(),
		terms: func(_ claimView, y label.Label) (float64, float64) { return ind(y == l), 1 },
		preds: func(c claimView) (float64, float64) { return c.p[l.Index()], 1 }}
}

// Quantities are what `audit estimate` reports, in order.
var Quantities = []Quantity{
	share(sup), share(unsup), share(insuff),
	{Name: "verifier_accuracy",
		terms: func(c claimView, y label.Label) (float64, float64) {
			return ind(c.answered && c.pred == y), ind(c.answered)
		},
		preds: func(c claimView) (float64, float64) {
			if !c.answered {
				return 0, 0
			}
			return c.p[c.pred.Index()], 1
		}},
	{Name: "tier1_fa",
		terms: func(c claimView, y label.Label) (float64, float64) {
			neg := y != sup
			return ind(neg && c.answered && c.pred == sup), ind(neg)
		},
		preds: func(c claimView) (float64, float64) {
			pn := 1 - c.p[0]
			return ind(c.answered && c.pred == sup) * pn, pn
		}},
	{Name: "tier1_fa_unconditional",
		terms: func(c claimView, y label.Label) (float64, float64) {
			return ind(c.answered && y != sup && c.pred == sup), 1
		},
		preds: func(c claimView) (float64, float64) {
			return ind(c.answered && c.pred == sup) * (1 - c.p[0]), 1
		}},
	{Name: "tier2_fa",
		terms: func(c claimView, y label.Label) (float64, float64) {
			neg := y == unsup
			return ind(neg && c.answered && c.pred != unsup), ind(neg)
		},
		preds: func(c claimView) (float64, float64) {
			pn := c.p[1]
			return ind(c.answered && c.pred != unsup) * pn, pn
		}},
	{Name: "tier2_fa_unconditional",
		terms: func(c claimView, y label.Label) (float64, float64) {
			return ind(c.answered && y == unsup && c.pred != unsup), 1
		},
		preds: func(c claimView) (float64, float64) {
			return ind(c.answered && c.pred != unsup) * c.p[1], 1
		}},
}

// QuantityNames are the names of Quantities (est_<name> in gates).
func QuantityNames() []string {
	var n []string
	for _, q := range Quantities {
		n = append(n, q.Name)
	}
	return n
}

// Result is what Estimate found.
type Result struct {
	Rows      []reports.EstimateRow
	Labelled  int      // queue claims with a human label
	Unused    []string // why other answered or queued claims were left out
	Agreement []string
}

// Estimate computes every quantity by PPI++ and classically from a run's
// records, its review queue and the answers. Answers are settled per
// claim by HumanLabel; queue claims without a settled label are left out
// (docs/review.md: valid when which claims went unanswered is unrelated
// to their labels).
func Estimate(records []reports.Record, q *Queue, answers []Answer) (*Result, error) {
	if len(records) != q.Plan.Population {
		return nil, fmt.Errorf("the queue was drawn from %d claims, the records hold %d: give the run the queue was drawn from", q.Plan.Population, len(records))
	}
	byID := make(map[string]*reports.Record, len(records))
	for i := range records {
		byID[records[i].ClaimID] = &records[i]
	}
	per := map[string][]Answer{}
	for _, a := range answers {
		per[a.ClaimID] = append(per[a.ClaimID], a)
	}
	strata := map[string]int{}
	for h, s := range q.Plan.Strata {
		strata[s.Name] = h
	}
	res := &Result{}
	why := map[string]int{}
	type unit struct {
		it *Item
		v  claimView
		y  label.Label
	}
	var units []unit
	for i := range q.Items {
		it := &q.Items[i]
		r := byID[it.ClaimID]
		if r == nil {
			return nil, fmt.Errorf("queue claim %q is not in the records: give the run the queue was drawn from", it.ClaimID)
		}
		as := per[it.ClaimID]
		if len(as) == 0 {
			why["not reviewed"]++
			continue
		}
		y, reason := HumanLabel(as)
		if y == label.None {
			why[reason]++
			continue
		}
		units = append(units, unit{it, viewOf(r), y})
	}
	res.Labelled = len(units)
	for _, k := range sortedKeys(why) {
		res.Unused = append(res.Unused, fmt.Sprintf("%d queued claims: %s", why[k], k))
	}
	views := make([]claimView, len(records))
	for i := range records {
		views[i] = viewOf(&records[i])
	}
	d := q.Plan.Design()
	for _, qt := range Quantities {
		var tot estimate.Totals
		for _, v := range views {
			fa, fb := qt.preds(v)
			tot.FA += fa
			tot.FB += fb
		}
		s := make([]estimate.Obs, len(units))
		for j, u := range units {
			a, b := qt.terms(u.v, u.y)
			fa, fb := qt.preds(u.v)
			s[j] = estimate.Obs{Pi: u.it.InclusionProbability, Stratum: strata[u.it.Stratum], A: a, B: b, FA: fa, FB: fb}
		}
		m := estimate.Denominator(s)
		ppi := estimate.Ratio(d, tot, s, true).Share(m)
		cl := estimate.Ratio(d, tot, s, false).Share(m)
		res.Rows = append(res.Rows, row(q, qt.Name, "ppi", ppi, cl), row(q, qt.Name, "classical", cl, cl))
	}
	res.Agreement = agreement(per)
	return res, nil
}

func fp(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func row(q *Queue, name, method string, r, classical estimate.Result) reports.EstimateRow {
	er := reports.EstimateRow{RunID: q.Plan.RunID, Quantity: name, Method: method, NHuman: int64(r.N), Design: string(q.Plan.Strategy)}
	if !r.Estimable() {
		why := r.Reason
		er.Reason = &why
		return er
	}
	er.Value, er.CILow, er.CIHigh, er.StdError = fp(r.Value), fp(r.Lo), fp(r.Hi), fp(r.SE)
	if method == "ppi" {
		er.Lambda = fp(r.Lambda)
		// From the intervals as printed, so it never says "better" beside
		// a wider interval: the two intervals need not be built alike
		// (a bounded share's classical interval is not ± 1.96·SE), so the
		// ratio of variances and the ratio of widths can disagree.
		if w, wc := r.Hi-r.Lo, classical.Hi-classical.Lo; w > 0 && wc > 0 && classical.Estimable() {
			er.NEffective = fp(float64(r.N) * (wc / w) * (wc / w))
		}
	}
	return er
}

// Agreement describes how far reviewers agree on answers (see agreement).
func Agreement(answers []Answer) []string {
	per := map[string][]Answer{}
	for _, a := range answers {
		per[a.ClaimID] = append(per[a.ClaimID], a)
	}
	return agreement(per)
}

// agreement describes how far reviewers agree: Krippendorff's α over every
// claim two or more reviewed, and Cohen's κ for each pair of reviewers
// with ten or more claims in common (unsure answers count as a category).
func agreement(per map[string][]Answer) []string {
	var units [][]string
	pairs := map[[2]string][2][]string{}
	for _, id := range sortedKeys(per) {
		as := per[id]
		if len(as) < 2 {
			continue
		}
		u := make([]string, len(as))
		for i, a := range as {
			u[i] = a.Label
		}
		units = append(units, u)
		for i := range as {
			for j := range as {
				if as[i].Reviewer < as[j].Reviewer {
					k := [2]string{as[i].Reviewer, as[j].Reviewer}
					p := pairs[k]
					p[0], p[1] = append(p[0], as[i].Label), append(p[1], as[j].Label)
					pairs[k] = p
				}
			}
		}
	}
	if len(units) == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("Krippendorff's α (nominal) %s over %d claims with two or more reviews", num(estimate.KrippendorffAlpha(units)), len(units))}
	keys := make([][2]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"\x00"+keys[i][1] < keys[j][0]+"\x00"+keys[j][1] })
	for _, k := range keys {
		p := pairs[k]
		if len(p[0]) >= 10 {
			out = append(out, fmt.Sprintf("Cohen's κ %s between %s and %s over %d claims", num(estimate.CohenKappa(p[0], p[1])), k[0], k[1], len(p[0])))
		}
	}
	return out
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "— (undefined: one category only)"
	}
	return fmt.Sprintf("%.3f", x)
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

// Truth is each quantity's value over every claim whose record has a gold
// label, the gold label standing in for the human one: what the estimates
// estimate when every claim is labelled (benchmarks use it as the truth).
func Truth(records []reports.Record) map[string]float64 {
	out := map[string]float64{}
	for _, qt := range Quantities {
		var a, b float64
		for i := range records {
			r := &records[i]
			if r.GoldLabel == nil {
				continue
			}
			y, ok := label.Parse(*r.GoldLabel)
			if !ok {
				continue
			}
			x, z := qt.terms(viewOf(r), y)
			a += x
			b += z
		}
		out[qt.Name] = math.NaN()
		if b > 0 {
			out[qt.Name] = a / b
		}
	}
	return out
}
