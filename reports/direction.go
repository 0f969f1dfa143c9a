package reports

import "strings"

// Direction says which way a metric gets worse: a run that leaves the
// band that way is flagged (red), the other way it improved (green); a
// metric with no better direction (a count, a share of labels, the
// temperature) is flagged either way.
type Direction int

const (
	// EitherWay: no direction is better.
	EitherWay Direction = iota
	// HigherIsWorse: error rates, calibration error, latency.
	HigherIsWorse
	// LowerIsWorse: accuracy, F1, AUC, coverage, recall.
	LowerIsWorse
)

// WorseWay is the direction in which metric gets worse.
func WorseWay(metric string) Direction {
	switch {
	case strings.HasPrefix(metric, "gold_"), strings.HasPrefix(metric, "majority_"),
		strings.HasPrefix(metric, "pred_"), strings.HasSuffix(metric, "_count"), strings.HasSuffix(metric, "_n_at_p80"):
		return EitherWay
	case strings.HasPrefix(metric, "tier1_fa"), strings.HasPrefix(metric, "tier2_fa"), strings.HasPrefix(metric, "ece"),
		strings.HasPrefix(metric, "latency_"), strings.HasPrefix(metric, "degenerate_"), strings.HasPrefix(metric, "errors_"),
		strings.HasSuffix(metric, "_ece"):
		return HigherIsWorse
	case strings.HasPrefix(metric, "rule_") && strings.HasSuffix(metric, "accuracy"),
		strings.HasPrefix(metric, "precision_"), strings.HasPrefix(metric, "recall_"), strings.HasPrefix(metric, "f1_"),
		strings.HasPrefix(metric, "auc_"), strings.HasPrefix(metric, "binary_"), strings.HasPrefix(metric, "retrieval_") && metric != "retrieval_claims",
		strings.HasPrefix(metric, "calibration_bound_"), strings.HasSuffix(metric, "_accuracy_at_p80"):
		return LowerIsWorse
	}
	switch metric {
	case "abstain_rate", "selective_risk", "mce", "brier", "nll", "aurc", "e_aurc", "false_positive_rate", "false_negative_rate",
		"unsupported_rate", "critical_unsupported", "contradictions", "error_share_evidence_missed", "output_any_unsupported_rate":
		return HigherIsWorse
	case "accuracy", "balanced_accuracy", "cohen_kappa", "macro_f1", "coverage", "quality_gates_pass", "calibration_pass",
		"evidence_coverage", "output_supported_fraction", "output_pass_rate":
		return LowerIsWorse
	}
	return EitherWay
}

// String is how docs and pages say it.
func (d Direction) String() string {
	switch d {
	case HigherIsWorse:
		return "higher is worse"
	case LowerIsWorse:
		return "lower is worse"
	}
	return "no better direction"
}
