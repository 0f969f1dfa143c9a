package metrics

import "testing"

func TestRuleMetrics(t *testing.T) {
	outs := []Outcome{
		{Gold: Insufficient, Predicted: Insufficient, Rule: NameOf("hedge"), RuleLabel: Insufficient, VerifierLabel: Supported},
		{Gold: Insufficient, Predicted: Insufficient, Rule: NameOf("hedge"), RuleLabel: Insufficient, VerifierLabel: Supported},
		{Gold: Supported, Predicted: Insufficient, Rule: NameOf("hedge"), RuleLabel: Insufficient, VerifierLabel: Supported},
		{Gold: Unknown, Predicted: Insufficient, Rule: NameOf("hedge"), RuleLabel: Insufficient, VerifierLabel: Supported},
		{Gold: Insufficient, Predicted: Insufficient, Rule: NameOf("no_evidence"), RuleLabel: Insufficient, VerifierLabel: Unknown},
		{Gold: Supported, Predicted: Supported, RuleLabel: Unknown, VerifierLabel: Unknown},
	}
	v := ruleValues(outs)
	if v["rule_hedge_count"] != 4 || v["rule_hedge_accuracy"] != 2.0/3 || v["rule_hedge_verifier_accuracy"] != 1.0/3 {
		t.Errorf("hedge: %v %v %v", v["rule_hedge_count"], v["rule_hedge_accuracy"], v["rule_hedge_verifier_accuracy"])
	}
	if v["rule_no_evidence_count"] != 1 || v["rule_no_evidence_accuracy"] != 1 || v["rule_no_evidence_verifier_accuracy"] == v["rule_no_evidence_verifier_accuracy"] {
		t.Errorf("no_evidence: the verifier labelled none of its claims, so its accuracy is undefined: %v", v)
	}
	if v["rule_conflict_count"] != 0 || v["rule_conflict_accuracy"] == v["rule_conflict_accuracy"] {
		t.Errorf("conflict: %v", v)
	}
}
