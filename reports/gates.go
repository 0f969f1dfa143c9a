package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// GateResult is a gate with the value it was checked against. A gate over
// an undefined metric fails: Undefined is set, Value is NaN (null in
// JSON) and Reason says why the metric is undefined.
type GateResult struct {
	Gate
	Value     float64 `json:"-"`
	Failed    bool    `json:"failed"`
	Undefined bool    `json:"undefined,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// MarshalJSON writes Value as "value", null when undefined.
func (r GateResult) MarshalJSON() ([]byte, error) {
	type plain GateResult
	return json.Marshal(struct {
		plain
		Value *float64 `json:"value"`
	}{plain(r), fp(r.Value)})
}

// Describe is the gate with its value, or why it has none:
// "accuracy<0.6 (value 0.55)", "accuracy<0.6 (accuracy is undefined: no
// claim has a gold label)".
func (r GateResult) Describe() string {
	if r.Undefined {
		return fmt.Sprintf("%s (%s)", r.Expr, r.Reason)
	}
	return fmt.Sprintf("%s (value %.4g)", r.Expr, r.Value)
}

// GateError names every failed gate of a run.
type GateError struct{ Failed []GateResult }

func (e *GateError) Error() string {
	d := make([]string, len(e.Failed))
	for i, r := range e.Failed {
		d[i] = r.Describe()
	}
	return "gate failed: " + strings.Join(d, "; ")
}

// Failures is a *GateError naming every failed gate, or nil.
func Failures(results []GateResult) error {
	var f []GateResult
	for _, r := range results {
		if r.Failed {
			f = append(f, r)
		}
	}
	if len(f) == 0 {
		return nil
	}
	return &GateError{Failed: f}
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

// Check evaluates gates against the summary's metrics (slice all,
// calibrated stage). A gate over an undefined metric fails, whatever its
// comparison: a nightly job must not pass on a number that does not exist.
func Check(gates []Gate, s *Summary) []GateResult {
	out := make([]GateResult, len(gates))
	for i, g := range gates {
		p := s.Metrics[g.Metric]
		if p == nil {
			why := s.Undefined[g.Metric]
			if why == "" {
				why = "the run did not compute it"
			}
			out[i] = GateResult{Gate: g, Value: math.NaN(), Failed: true, Undefined: true, Reason: g.Metric + " is undefined: " + why}
			continue
		}
		v := *p
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
