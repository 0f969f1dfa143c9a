package reports

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
)

// Gate is one --fail-on comparison: the run fails when Metric Op Threshold
// holds (for the whole run, calibrated stage).
type Gate struct {
	Expr      string  `json:"gate"`
	Metric    string  `json:"metric"`
	Op        string  `json:"op"`
	Threshold float64 `json:"threshold"`
}

// GateResult is a gate with the value it was checked against.
type GateResult struct {
	Gate
	Value  float64 `json:"value"`
	Failed bool    `json:"failed"`
}

// ErrBadGate marks a malformed --fail-on expression or an unknown metric.
var ErrBadGate = errors.New("bad --fail-on expression")

var reGate = regexp.MustCompile(`^\s*([a-z0-9_]+)\s*(>=|<=|>|<)\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$`)

// ParseGates parses "tier1_fa_conditional>0.05,ece_10>0.10,coverage<0.8".
func ParseGates(expr string) ([]Gate, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, nil
	}
	var gates []Gate
	for _, part := range strings.Split(expr, ",") {
		m := reGate.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%w: %q is not METRIC(>|<|>=|<=)NUMBER", ErrBadGate, strings.TrimSpace(part))
		}
		if !slices.Contains(metrics.Names, m[1]) {
			return nil, fmt.Errorf("%w: unknown metric %q (known: %s)", ErrBadGate, m[1], strings.Join(metrics.Names, ", "))
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBadGate, part, err)
		}
		gates = append(gates, Gate{Expr: strings.TrimSpace(part), Metric: m[1], Op: m[2], Threshold: v})
	}
	return gates, nil
}

// Check evaluates gates against metric values.
func Check(gates []Gate, values map[string]float64) []GateResult {
	out := make([]GateResult, len(gates))
	for i, g := range gates {
		v := values[g.Metric]
		var hit bool
		switch g.Op {
		case ">":
			hit = v > g.Threshold
		case "<":
			hit = v < g.Threshold
		case ">=":
			hit = v >= g.Threshold
		case "<=":
			hit = v <= g.Threshold
		}
		out[i] = GateResult{Gate: g, Value: v, Failed: hit}
	}
	return out
}
