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
	{"tier1_fa_conditional", "tier-1 FA (of answered)"}, {"tier1_fa_unconditional", "tier-1 FA (of all)"},
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
// the gates and the warnings.
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
	if len(s.Gates) > 0 {
		g := newTable(w)
		g.Header("gate", "value", "result")
		for _, r := range s.Gates {
			res, v := "pass", fmt.Sprintf("%.4g", r.Value)
			if r.Failed {
				res = "FAIL"
			}
			if r.Undefined {
				v, res = "—", "FAIL (undefined)"
			}
			g.Append(r.Expr, v, res)
		}
		if err := g.Render(); err != nil {
			return err
		}
	}
	return PrintWarnings(w, s)
}

// PrintWarnings writes each of the summary's warnings on a line of its own.
func PrintWarnings(w io.Writer, s *Summary) error {
	for _, m := range s.Warnings {
		if _, err := fmt.Fprintln(w, "warning: "+strings.TrimSpace(m)); err != nil {
			return err
		}
	}
	return nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
