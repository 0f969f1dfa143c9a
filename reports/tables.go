package reports

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// headline rows of the terminal table, in order.
var headline = []struct{ name, label string }{
	{"coverage", "coverage"}, {"abstain_rate", "abstain rate"}, {"accuracy", "accuracy"}, {"macro_f1", "macro-F1"},
	{"tier1_fa_conditional", "tier-1 FA (of answered)"}, {"tier1_fa_unconditional", "tier-1 FA (of all)"},
	{"tier2_fa_conditional", "tier-2 FA (of answered)"}, {"tier2_fa_unconditional", "tier-2 FA (of all)"},
	{"ece_10", "ECE (10 bins)"}, {"aurc", "AURC"}, {"pass_rate", "pass rate"},
	{"false_positive_rate", "false-positive rate"}, {"false_negative_rate", "false-negative rate"},
}

func newTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

// PrintTables writes the headline metrics with intervals, the confusion
// matrix and the gates.
func PrintTables(w io.Writer, s *Summary) error {
	t := newTable(w)
	t.Header("metric", "value", "95% interval", "raw")
	for _, h := range headline {
		iv := ""
		if ci, ok := s.Intervals[h.name]; ok {
			iv = fmt.Sprintf("[%.3f, %.3f]", ci[0], ci[1])
		}
		t.Append(h.label, fmt.Sprintf("%.3f", s.Metrics[h.name]), iv, fmt.Sprintf("%.3f", s.RawMetrics[h.name]))
	}
	cal := "not applied"
	if s.CalibrationApplied {
		cal = fmt.Sprintf("T = %.3f", s.Temperature)
	}
	t.Append("temperature scaling", cal, "", "")
	if err := t.Render(); err != nil {
		return err
	}
	c := newTable(w)
	c.Header("gold \\ predicted", "supported", "unsupported", "insufficient")
	for _, g := range []string{"supported", "unsupported", "insufficient"} {
		c.Append(g, fmt.Sprint(s.Confusion[g]["supported"]), fmt.Sprint(s.Confusion[g]["unsupported"]), fmt.Sprint(s.Confusion[g]["insufficient"]))
	}
	if err := c.Render(); err != nil {
		return err
	}
	if len(s.Gates) > 0 {
		g := newTable(w)
		g.Header("gate", "value", "result")
		for _, r := range s.Gates {
			res := "pass"
			if r.Failed {
				res = "FAIL"
			}
			g.Append(r.Expr, fmt.Sprintf("%.4g", r.Value), res)
		}
		return g.Render()
	}
	return nil
}
