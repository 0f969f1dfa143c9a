package rules

import (
	"slices"
	"testing"

	"github.com/claimaudit/claimaudit/metrics"
)

// The per-rule metrics are named from metrics.RuleNames: the two lists
// must agree.
func TestMetricsKnowEveryRule(t *testing.T) {
	if !slices.Equal(Names, metrics.RuleNames) {
		t.Errorf("rules.Names %v, metrics.RuleNames %v", Names, metrics.RuleNames)
	}
}
