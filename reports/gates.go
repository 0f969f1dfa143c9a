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

// The gate grammar (docs/gates.md), one for `audit run`, `audit report`
// and `audit diff`:
//
//	gates   = gate { "," gate }
//	gate    = operand op ( number | operand )
//	op      = ">" | "<" | ">=" | "<="
//	operand = [ "delta." ] name [ "[" key "=" value "]" ] [ ".lo" | ".hi" ]
//
// A gate fails (exit 1) when its comparison holds, or when a value it
// compares is undefined. name is a metric of metrics.Names, or in diff one
// of DiffCounts; the slice key is one metrics.parquet uses (type, source,
// importance) or a records column naming it (claim_type, source_id);
// .lo/.hi are the ends of the metric's 95% interval.

// Operand is one side of a gate that names a value.
type Operand struct {
	Delta bool   `json:"delta,omitempty"` // diff: B − A
	Name  string `json:"name"`
	Slice string `json:"slice"`           // metrics.parquet's spelling: "all", "type=numeric", "source=out_1"
	Bound string `json:"bound,omitempty"` // "", "lo" or "hi"
}

// String writes the operand in the canonical spelling.
func (o Operand) String() string {
	s := o.Name
	if o.Delta {
		s = "delta." + s
	}
	if o.Slice != "all" && o.Slice != "" {
		s += "[" + o.Slice + "]"
	}
	if o.Bound != "" {
		s += "." + o.Bound
	}
	return s
}

// Gate is one --fail-on comparison: it fails when Left Op Right holds,
// Right being Threshold or, when Against is set, another value.
type Gate struct {
	Expr      string   `json:"gate"`
	Metric    string   `json:"metric"` // the left operand, canonical
	Op        string   `json:"op"`
	Threshold float64  `json:"threshold"`
	Against   string   `json:"against,omitempty"` // the right operand, canonical, when it is not a number
	Left      Operand  `json:"-"`
	Right     *Operand `json:"-"`
}

// GateResult is a gate with the values it was checked against. A gate over
// an undefined value fails: Undefined is set, Value (or AgainstValue) is
// NaN (null in JSON) and Reason says why.
type GateResult struct {
	Gate
	Value        float64 `json:"-"`
	AgainstValue float64 `json:"-"`
	Failed       bool    `json:"failed"`
	Undefined    bool    `json:"undefined,omitempty"`
	Reason       string  `json:"reason,omitempty"`
}

// MarshalJSON writes Value as "value" (and AgainstValue as
// "against_value"), null when undefined.
func (r GateResult) MarshalJSON() ([]byte, error) {
	type plain GateResult
	v := struct {
		plain
		Value        *float64 `json:"value"`
		AgainstValue *float64 `json:"against_value,omitempty"`
	}{plain: plain(r), Value: fp(r.Value)}
	if r.Right != nil {
		v.AgainstValue = fp(r.AgainstValue)
	}
	return json.Marshal(v)
}

// Describe is the gate with its value, or why it has none:
// "accuracy<0.6 (value 0.55)", "broken>fixed (values 12, 30)",
// "accuracy<0.6 (accuracy is undefined: no claim has a gold label)".
func (r GateResult) Describe() string {
	switch {
	case r.Undefined:
		return fmt.Sprintf("%s (%s)", r.Expr, r.Reason)
	case r.Right != nil:
		return fmt.Sprintf("%s (values %.4g, %.4g)", r.Expr, r.Value, r.AgainstValue)
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

// ErrBadGate marks a malformed --fail-on expression, an unknown metric,
// slice key or bound.
var ErrBadGate = errors.New("bad --fail-on expression")

// DiffCounts are the paired counts `audit diff` gates on besides metrics:
// claims labelled in both runs, fixed (wrong in A, right in B), broken
// (right in A, wrong in B), unchanged, and McNemar's exact p-value of
// fixed against broken.
var DiffCounts = []string{"shared", "fixed", "broken", "unchanged_correct", "unchanged_wrong", "mcnemar_p"}

// GateScope says which names a gate may use: those of a run (`audit run`,
// `audit report`) or of a comparison (`audit diff`).
type GateScope int

const (
	RunScope GateScope = iota
	DiffScope
	// EstimateScope is `audit estimate`: est_<quantity> of estimates.parquet.
	EstimateScope
)

// sliceKeys maps every accepted slice key to metrics.parquet's.
var sliceKeys = map[string]string{"type": "type", "claim_type": "type", "source": "source", "source_id": "source", "importance": "importance"}

var (
	reGate    = regexp.MustCompile(`^\s*(.*?)\s*(>=|<=|>|<)\s*(.*?)\s*$`)
	reOperand = regexp.MustCompile(`^(delta\.)?([a-z0-9_]+)(?:\[([^\]=]*)(?:=([^\]]*))?\])?(?:\.([a-z]+))?$`)
	reNumber  = regexp.MustCompile(`^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$`)
)

const grammar = `NAME[KEY=VALUE].lo|.hi (>|<|>=|<=) NUMBER or NAME`

// ParseGates parses run gates: "tier1_fa_conditional>0.05,
// accuracy[type=numeric]<0.7,accuracy.lo<0.7".
func ParseGates(expr string) ([]Gate, error) { return ParseScopedGates(expr, RunScope) }

// ParseDiffGates parses diff gates: "delta.tier1_fa_conditional>0.01,
// broken>fixed,mcnemar_p<0.05".
func ParseDiffGates(expr string) ([]Gate, error) { return ParseScopedGates(expr, DiffScope) }

// ParseScopedGates parses gates for a scope; every error wraps ErrBadGate
// and says what is wrong with which gate.
func ParseScopedGates(expr string, scope GateScope) ([]Gate, error) {
	return parseGates(expr, scope, nil)
}

// ParseEstimateGates parses `audit estimate` gates over est_<quantity>,
// one of quantities, and its interval: "est_tier1_fa.hi>0.05".
func ParseEstimateGates(expr string, quantities []string) ([]Gate, error) {
	return parseGates(expr, EstimateScope, quantities)
}

func parseGates(expr string, scope GateScope, quantities []string) ([]Gate, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, nil
	}
	var gates []Gate
	for _, part := range splitGates(expr) {
		part = strings.TrimSpace(part)
		m := reGate.FindStringSubmatch(part)
		if m == nil || m[1] == "" || m[3] == "" {
			return nil, fmt.Errorf("%w: %q is not %s", ErrBadGate, part, grammar)
		}
		left, err := parseOperand(m[1], scope, quantities)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBadGate, part, err)
		}
		g := Gate{Expr: part, Metric: left.String(), Op: m[2], Left: left}
		if reNumber.MatchString(m[3]) {
			v, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %q: %v", ErrBadGate, part, err)
			}
			g.Threshold = v
		} else {
			right, err := parseOperand(m[3], scope, quantities)
			if err != nil {
				return nil, fmt.Errorf("%w: %q: %v", ErrBadGate, part, err)
			}
			g.Right, g.Against = &right, right.String()
		}
		gates = append(gates, g)
	}
	return gates, nil
}

// splitGates splits on commas outside brackets (a slice value may hold
// none, but a stray bracket must not swallow the next gate silently).
func splitGates(expr string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range expr {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, expr[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, expr[start:])
}

func parseOperand(s string, scope GateScope, quantities []string) (Operand, error) {
	m := reOperand.FindStringSubmatch(s)
	if m == nil {
		return Operand{}, fmt.Errorf("%q is not a number or NAME[KEY=VALUE].lo|.hi", s)
	}
	if scope == EstimateScope {
		return parseEstimateOperand(m, quantities)
	}
	o := Operand{Delta: m[1] != "", Name: m[2], Slice: "all", Bound: m[5]}
	isCount := slices.Contains(DiffCounts, o.Name)
	switch {
	case o.Delta && scope != DiffScope:
		return o, fmt.Errorf("delta.%s compares two runs: use it with audit diff", o.Name)
	case isCount && scope != DiffScope:
		return o, fmt.Errorf("%s is a count of audit diff (%s), not a metric of one run", o.Name, strings.Join(DiffCounts, ", "))
	case isCount && o.Delta:
		return o, fmt.Errorf("%s is already a comparison of two runs: write it without the delta prefix", o.Name)
	case !isCount && !slices.Contains(metrics.Names, o.Name):
		more := ""
		if scope == DiffScope {
			more = "; in diff also " + strings.Join(DiffCounts, ", ") + " and delta.<metric>"
		}
		return o, errors.New(unknownMetric(o.Name, metrics.Names, more))
	}
	if m[3] != "" || m[4] != "" || strings.Contains(s, "[") {
		key, val := strings.TrimSpace(m[3]), strings.TrimSpace(m[4])
		switch {
		case key == "all" && val == "":
		case val == "":
			return o, fmt.Errorf("slice [%s] is not [KEY=VALUE] (keys: type, source, importance; or claim_type, source_id)", m[3])
		default:
			k, ok := sliceKeys[key]
			if !ok {
				return o, fmt.Errorf("unknown slice key %q (keys: type, source, importance; or claim_type, source_id)", key)
			}
			o.Slice = k + "=" + val
		}
	}
	switch o.Bound {
	case "":
	case "lo", "hi":
		if isCount {
			return o, fmt.Errorf("%s has no interval (.%s)", o.Name, o.Bound)
		}
		if scope == DiffScope && !o.Delta {
			return o, fmt.Errorf("in audit diff, intervals are of the paired deltas: write delta.%s.%s", o.Name, o.Bound)
		}
		has := metrics.HasInterval
		if o.Delta {
			has = metrics.HasPairedInterval
		}
		if !has(o.Name) {
			return o, fmt.Errorf("%s has no interval (.%s); metrics with one: %s", o.String(), o.Bound, strings.Join(intervalNames(has), ", "))
		}
	default:
		return o, fmt.Errorf("unknown bound .%s (.lo or .hi: the ends of the 95%% interval)", o.Bound)
	}
	return o, nil
}

func intervalNames(has func(string) bool) []string {
	var out []string
	for _, n := range metrics.Names {
		if has(n) {
			out = append(out, n)
		}
	}
	return out
}

// Resolver gives the value an operand names, or NaN and why it is
// undefined.
type Resolver interface {
	Resolve(o Operand) (float64, string)
}

// Check evaluates gates. A gate over an undefined value fails, whatever
// its comparison: a nightly job must not pass on a number that does not
// exist.
func Check(gates []Gate, r Resolver) []GateResult {
	out := make([]GateResult, len(gates))
	for i, g := range gates {
		res := GateResult{Gate: g, AgainstValue: math.NaN()}
		var why string
		res.Value, why = r.Resolve(g.Left)
		rhs := g.Threshold
		if g.Right != nil {
			var w2 string
			res.AgainstValue, w2 = r.Resolve(*g.Right)
			rhs = res.AgainstValue
			if math.IsNaN(res.AgainstValue) && why == "" {
				why = w2
				if why == "" {
					why = g.Right.String() + " is undefined"
				}
			}
		} else if math.IsNaN(res.Value) && why == "" {
			why = g.Left.String() + " is undefined"
		}
		if math.IsNaN(res.Value) || math.IsNaN(rhs) {
			res.Failed, res.Undefined, res.Reason = true, true, why
			out[i] = res
			continue
		}
		v := res.Value
		switch g.Op {
		case ">":
			res.Failed = v > rhs
		case "<":
			res.Failed = v < rhs
		case ">=":
			res.Failed = v >= rhs
		case "<=":
			res.Failed = v <= rhs
		}
		out[i] = res
	}
	return out
}

// Resolve gives a run's value of a metric (calibrated stage) in a slice,
// or an end of its interval, from the rows of metrics.parquet.
func (t *Tables) Resolve(o Operand) (float64, string) {
	return ResolveRows(t.Metrics, StageCalibrated, o, func(slice, metric string) string { return t.undefined[slice+"\x00"+metric] })
}

// ResolveRows resolves an operand against metrics.parquet rows of a stage;
// why (may be nil) says why a metric of a slice is undefined.
func ResolveRows(rows []MetricRow, stage string, o Operand, why func(slice, metric string) string) (float64, string) {
	slice := o.Slice
	if slice == "" {
		slice = "all"
	}
	seen := false
	for _, r := range rows {
		if r.Stage != stage || r.Slice != slice {
			continue
		}
		seen = true
		if r.Metric != o.Name {
			continue
		}
		p := r.Value
		switch o.Bound {
		case "lo":
			p = r.CILow
		case "hi":
			p = r.CIHigh
		}
		if p == nil {
			if r.Value == nil {
				w := ""
				if why != nil {
					w = why(slice, o.Name)
				}
				if w == "" {
					w = "see summary.json's undefined"
				}
				return math.NaN(), fmt.Sprintf("%s is undefined: %s", o, w)
			}
			return math.NaN(), fmt.Sprintf("%s is undefined: no bootstrap resample defined the interval", o)
		}
		return *p, ""
	}
	if !seen {
		return math.NaN(), fmt.Sprintf("%s is undefined: no claim is in slice %s", o, slice)
	}
	return math.NaN(), fmt.Sprintf("%s is undefined: the run did not compute it", o)
}

// Resolve gives a value from summary.json alone: every metric of slice
// all and its interval, and the few metrics summary.json keeps per slice.
// Tables.Resolve, which sees every row of metrics.parquet, is what run and
// report use.
func (s *Summary) Resolve(o Operand) (float64, string) {
	var p *float64
	var ok bool
	switch {
	case o.Slice != "all" && o.Slice != "":
		var sl map[string]*float64
		if sl, ok = s.Slices[o.Slice]; !ok {
			return math.NaN(), fmt.Sprintf("%s is undefined: no claim is in slice %s", o, o.Slice)
		}
		if o.Bound != "" {
			return math.NaN(), fmt.Sprintf("%s is undefined: summary.json keeps no interval per slice", o)
		}
		p, ok = sl[o.Name]
	case o.Bound != "":
		var iv *[2]float64
		if iv, ok = s.Intervals[o.Name]; ok && iv != nil {
			v := iv[0]
			if o.Bound == "hi" {
				v = iv[1]
			}
			p = &v
		}
	default:
		p, ok = s.Metrics[o.Name]
	}
	if p == nil {
		why := s.Undefined[o.Name]
		if !ok || why == "" {
			why = "the run did not compute it"
		}
		return math.NaN(), o.String() + " is undefined: " + why
	}
	return *p, ""
}
