package reports

import (
	"fmt"
	"github.com/claimaudit/claimaudit/label"
	"io"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// headline rows of the terminal table, in order; baselines sit right under
// the number they are a baseline for (↳).
var headline = []struct{ name, label string }{
	{"coverage", "coverage"}, {"abstain_rate", "abstain rate"}, {"mean_confidence", "mean confidence"},
	{"accuracy", "accuracy"}, {"majority_accuracy", "↳ majority-class baseline"},
	{"balanced_accuracy", "↳ balanced accuracy"}, {"cohen_kappa", "↳ Cohen's kappa"},
	{"macro_f1", "macro-F1"}, {"majority_macro_f1", "↳ majority-class baseline"},
	{"binary_balanced_accuracy", "supported vs not: balanced acc."}, {"binary_auc", "supported vs not: ROC AUC"},
	{"tier1_fa_of_gold_negatives", "tier-1 FA rate (÷ gold negatives)"},
	{"tier1_fa_conditional", "tier-1 FA (of answered)"}, {"tier1_fa_unconditional", "tier-1 FA (of all)"},
	{"tier2_fa_of_gold_unsupported", "tier-2 FA rate (÷ gold unsupported)"},
	{"tier2_fa_conditional", "tier-2 FA (of answered)"}, {"tier2_fa_unconditional", "tier-2 FA (of all)"},
	{"ece_10", "ECE (10 bins)"}, {"aurc", "AURC"}, {"pass_rate", "pass rate"},
	{"false_positive_rate", "false-positive rate"}, {"false_negative_rate", "false-negative rate"},
	{"degenerate_verifier", "degenerate verifier"},
}

func newTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

// num prints a value to three places, or — when undefined.
func num(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *p)
}

// calibrationLine says what temperature scaling did, in a few words.
func calibrationLine(s *Summary) string {
	c := s.Calibration
	switch c.Applied {
	case AppliedCrossFitted:
		lo, hi := c.FoldTemperatures[0].Temperature, c.FoldTemperatures[0].Temperature
		for _, f := range c.FoldTemperatures {
			lo, hi = min(lo, f.Temperature), max(hi, f.Temperature)
		}
		return fmt.Sprintf("cross-fitted: T = %.3f (%d folds %.3f–%.3f)", s.Temperature, len(c.FoldTemperatures), lo, hi)
	case AppliedUniform:
		return fmt.Sprintf("T = %.3f for every claim", s.Temperature)
	case AppliedPerClaim:
		return "a T per claim (records' temperature column)"
	}
	if !c.Fitted {
		return "not applied: no temperature fitted"
	}
	return fmt.Sprintf("not applied (fitted T = %.3f)", *c.FullTemperature)
}

// PrintTables writes the headline metrics with intervals and baselines, the
// predicted-label distribution, the confusion matrix (when there is gold),
// and the gates. The summary's warnings are not results: the command logs
// them (stderr, in the chosen log format).
func PrintTables(w io.Writer, s *Summary) error {
	t := newTable(w)
	t.Header("metric", "value", "95% interval", "raw")
	for _, h := range headline {
		iv := ""
		if ci := s.Intervals[h.name]; ci != nil {
			iv = fmt.Sprintf("[%.3f, %.3f]", ci[0], ci[1])
		}
		v, raw := num(s.Metrics[h.name]), num(s.RawMetrics[h.name])
		if h.name == "degenerate_verifier" {
			v = map[string]string{"—": "—", "1.000": "YES", "0.000": "no"}[v]
			raw = ""
		}
		t.Append(h.label, v, iv, raw)
	}
	if err := t.Render(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "temperature scaling: %s\n", calibrationLine(s)); err != nil {
		return err
	}
	p := newTable(w)
	p.Header("predicted", "claims", "share of answered", "95% interval")
	for _, k := range metrics.ClassNames {
		iv := ""
		if ci := s.Intervals["pred_rate_"+k]; ci != nil {
			iv = fmt.Sprintf("[%.3f, %.3f]", ci[0], ci[1])
		}
		p.Append(k, fmt.Sprintf("%.0f", deref(s.Metrics["pred_count_"+k])), num(s.Metrics["pred_rate_"+k]), iv)
	}
	p.Append("abstained", fmt.Sprintf("%.0f", deref(s.Metrics["abstained"])), "", "")
	if err := p.Render(); err != nil {
		return err
	}
	labelled := 0
	for _, row := range s.Confusion {
		for _, n := range row {
			labelled += n
		}
	}
	if labelled > 0 {
		c := newTable(w)
		c.Header("gold \\ predicted", string(label.Supported), string(label.Unsupported), string(label.Insufficient))
		for _, g := range metrics.ClassNames {
			c.Append(g, fmt.Sprint(s.Confusion[g][string(label.Supported)]), fmt.Sprint(s.Confusion[g][string(label.Unsupported)]), fmt.Sprint(s.Confusion[g][string(label.Insufficient)]))
		}
		if err := c.Render(); err != nil {
			return err
		}
	}
	if err := printOutputsAndRetrieval(w, s); err != nil {
		return err
	}
	if err := PrintRules(w, s); err != nil {
		return err
	}
	return PrintGates(w, s.Gates)
}

// printOutputsAndRetrieval writes the per-output headline (when claims
// name their model output) and retrieval against gold evidence (when the
// gold file names it).
func printOutputsAndRetrieval(w io.Writer, s *Summary) error {
	iv := func(name string) string {
		if ci := s.Intervals[name]; ci != nil {
			return fmt.Sprintf("[%.3f, %.3f]", ci[0], ci[1])
		}
		return ""
	}
	if deref(s.Metrics["outputs"]) > 0 {
		t := newTable(w)
		t.Header(fmt.Sprintf("over %.0f model outputs", deref(s.Metrics["outputs"])), "value", "95% interval", "from gold")
		for _, r := range [][2]string{{"mean supported fraction", "output_supported_fraction"},
			{"share with an unsupported claim", "output_any_unsupported_rate"}, {"share passing the quality gates", "output_pass_rate"}} {
			t.Append(r[0], num(s.Metrics[r[1]]), iv(r[1]), num(s.Metrics["gold_"+r[1]]))
		}
		// The per-output decisions of a run over model outputs.
		if _, ok := s.Metrics["output_ship_rate"]; ok {
			for _, r := range [][2]string{{"revision: ship", "output_ship_rate"}, {"revision: revise", "output_revise_rate"},
				{"revision: abstain", "output_abstain_rate"}, {"with an uncited critical claim", "output_uncited_critical_rate"},
				{"queries abstaining (final attempt)", "query_abstain_rate"}, {"branch success rate", "branch_success_rate"},
				{"queries ending NO_IMPROVEMENT", "query_no_improvement_rate"},
				{"queries ending UNSUPPORTED_CLAIMS", "query_unsupported_claims_rate"}} {
				t.Append(r[0], num(s.Metrics[r[1]]), "", "")
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if deref(s.Metrics["retrieval_claims"]) > 0 {
		t := newTable(w)
		t.Header(fmt.Sprintf("retrieval (%.0f claims with gold evidence)", deref(s.Metrics["retrieval_claims"])), "value")
		for _, r := range [][2]string{{"recall@1", "retrieval_recall_at_1"}, {"recall@5", "retrieval_recall_at_5"},
			{"recall (all retrieved)", "retrieval_recall"}, {"MRR", "retrieval_mrr"},
			{"errors: evidence not retrieved", "errors_evidence_missed"}, {"errors: retrieved but misjudged", "errors_evidence_retrieved"}} {
			v := num(s.Metrics[r[1]])
			if strings.HasPrefix(r[1], "errors_") && s.Metrics[r[1]] != nil {
				v = fmt.Sprintf("%.0f", *s.Metrics[r[1]])
			}
			t.Append(r[0], v)
		}
		return t.Render()
	}
	return nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// PrintGates prints the --fail-on gates and their outcome as a table
// (nothing when there are none).
func PrintGates(w io.Writer, gates []GateResult) error {
	if len(gates) == 0 {
		return nil
	}
	g := newTable(w)
	g.Header("gate", "value", "result")
	for _, r := range gates {
		res, v := "pass", fmt.Sprintf("%.4g", r.Value)
		if r.Right != nil {
			v += fmt.Sprintf(" vs %.4g", r.AgainstValue)
		}
		if r.Failed {
			res = "FAIL"
		}
		if r.Undefined {
			v, res = "—", "FAIL (undefined)"
		}
		g.Append(r.Expr, v, res)
	}
	return g.Render()
}
