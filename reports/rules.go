package reports

import (
	"fmt"
	"io"

	"github.com/claimaudit/claimaudit/metrics"
)

// RuleRow is one decision rule's line in the terminal and report.html:
// how many claims it gave a label, and on those with gold the accuracy of
// its label beside the verifier's own.
type RuleRow struct {
	Rule                       string
	Count                      string
	Accuracy, VerifierAccuracy string
}

// ruleRows are the rules that gave at least one claim a label.
func ruleRows(s *Summary) []RuleRow {
	var rows []RuleRow
	for _, r := range metrics.RuleNames {
		n := s.Metrics["rule_"+r+"_count"]
		if n == nil || *n == 0 {
			continue
		}
		rows = append(rows, RuleRow{Rule: r, Count: fmt.Sprintf("%.0f", *n),
			Accuracy: num(s.Metrics["rule_"+r+"_accuracy"]), VerifierAccuracy: num(s.Metrics["rule_"+r+"_verifier_accuracy"])})
	}
	return rows
}

// BoundRow is seed 004's calibration bound for one class: accuracy of the
// claims predicted that class with p >= 0.8 (argmax of the calibrated
// probabilities), against 0.75.
type BoundRow struct {
	Class, N, Accuracy, Result string
}

func boundRows(s *Summary) []BoundRow {
	var rows []BoundRow
	for _, c := range []string{"supported", "unsupported"} {
		r := BoundRow{Class: c, N: num(s.Metrics[c+"_n_at_p80"]), Accuracy: num(s.Metrics[c+"_accuracy_at_p80"]), Result: "—"}
		if p := s.Metrics["calibration_bound_"+c]; p != nil {
			r.Result = map[bool]string{true: "pass", false: "FAIL"}[*p == 1]
		}
		if p := s.Metrics[c+"_n_at_p80"]; p != nil {
			r.N = fmt.Sprintf("%.0f", *p)
		}
		rows = append(rows, r)
	}
	return rows
}

// PrintRules writes the decision rules' table (when a rule gave a label)
// and the calibration bound at p >= 0.8.
func PrintRules(w io.Writer, s *Summary) error {
	if rows := ruleRows(s); len(rows) > 0 {
		t := newTable(w)
		t.Header("rule decided", "claims", "rule's accuracy", "verifier's accuracy")
		for _, r := range rows {
			t.Append(r.Rule, r.Count, r.Accuracy, r.VerifierAccuracy)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	t := newTable(w)
	t.Header("calibration bound (p ≥ 0.8)", "claims", "accuracy", "≥ 0.75")
	for _, r := range boundRows(s) {
		t.Append(r.Class, r.N, r.Accuracy, r.Result)
	}
	return t.Render()
}
