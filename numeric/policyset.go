package numeric

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Mode is one verification relation of seed 000 — a policy type (exact,
// rounded, abbr, tolerance, percent, range, ratio, year, auto) — with the
// parameters that tune it.
type Mode struct {
	Type   string
	Params PolicyParams
}

// Name is the mode's short name: the type, or roundN for rounded to N
// decimals (seed 000's round0, round1, …).
func (m Mode) Name() string {
	if m.Type == PolicyRounded && m.Params.Decimals >= 0 {
		return "round" + strconv.Itoa(m.Params.Decimals)
	}
	return m.Type
}

// Policy is a named set of modes. Seed 000: R(t, c; Π) = 1 when some mode
// allowed by Π holds, so a token verifies a claim when any mode does.
type Policy struct {
	Name  string
	Modes []Mode
}

// CheckQuantity checks token t against claim c under every mode of p, in
// order, and stops at the first that holds. Decision.Policy names the mode
// that decided ("round1", "auto:abbr"), after the policy's name and " via "
// when that is another ("display via round1", "exact,round1 via round1").
// Not verified under several modes, the reason gives every mode's.
func (p Policy) CheckQuantity(c, t Quantity) Decision {
	if len(p.Modes) == 0 {
		return Decision{Policy: p.Name, Reason: "the policy allows no mode"}
	}
	reasons := make([]string, 0, len(p.Modes))
	for _, m := range p.Modes {
		d := CheckQuantity(m.Type, m.Params, c, t)
		label := d.Policy
		if m.Type == PolicyRounded {
			label = m.Name()
		}
		if p.Name != "" && p.Name != m.Name() {
			label = p.Name + " via " + label
		}
		if d.Verified || len(p.Modes) == 1 {
			d.Policy = label
			return d
		}
		reasons = append(reasons, m.Name()+": "+d.Reason)
	}
	return Decision{Policy: p.Name, Reason: strings.Join(reasons, "; ")}
}

// Check is CheckQuantity on texts; like the package's Check it fails
// closed on a claim or token that does not parse.
func (p Policy) Check(claim, token string) Decision {
	c, err := ParseQuantity(claim)
	if err != nil {
		return Decision{Policy: p.Name, Reason: fmt.Sprintf("claim value does not parse: %v", err)}
	}
	t, err := ParseQuantity(token)
	if err != nil {
		return Decision{Policy: p.Name, Reason: fmt.Sprintf("token does not parse: %v", err)}
	}
	return p.CheckQuantity(c, t)
}

var reRoundN = regexp.MustCompile(`^round([0-9]|1[0-5])$`)

// BuiltinMode returns the mode a built-in name stands for: a policy type
// with its default parameters, or roundN (seed 000's round0, round1, …)
// for rounded to N decimals.
func BuiltinMode(name string) (Mode, bool) {
	if m := reRoundN.FindStringSubmatch(name); m != nil {
		d, _ := strconv.Atoi(m[1])
		return Mode{Type: PolicyRounded, Params: PolicyParams{Decimals: d}}, true
	}
	if slices.Contains(Policies, name) {
		return Mode{Type: name}, true
	}
	return Mode{}, false
}

// BuiltinNames are the names BuiltinMode knows, for help text (roundN
// stands for round0, round1, …).
var BuiltinNames = append(append([]string(nil), Policies...), "round0", "round1", "round2", "roundN")

// PolicySet holds policies by name: those of a policy file, looked up
// before the built-in names.
type PolicySet map[string]Policy

// Resolve reads a policy as given on a command line or in a tag: one name
// or a comma-separated set of names ("exact,round1"), each a policy of s
// or a built-in mode; or a mode as the reference implementation writes it,
// a JSON object ({"type": "rounded", "decimals": 1}) or an array of them.
// Every mode keeps the parameters of base that its own definition leaves
// unset (the command line's --decimals, --rel-tol, …).
func (s PolicySet) Resolve(spec string, base PolicyParams) (Policy, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "{") || strings.HasPrefix(spec, "[") {
		modes, err := decodeModes([]byte(spec), "policy")
		if err != nil {
			return Policy{}, err
		}
		return Policy{Name: modesName(modes), Modes: modes}, nil
	}
	var p Policy
	p.Name = spec
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		if named, ok := s[name]; ok {
			p.Modes = append(p.Modes, named.Modes...)
			continue
		}
		m, ok := BuiltinMode(name)
		if !ok {
			return Policy{}, fmt.Errorf("policy %q is not one of %s%s", name, strings.Join(BuiltinNames, ", "), s.namesNote())
		}
		m.Params = withDefaults(m.Params, base, m.Type, name)
		p.Modes = append(p.Modes, m)
	}
	return p, nil
}

// withDefaults fills a built-in mode's unset parameters from base; a
// roundN name keeps its N.
func withDefaults(p, base PolicyParams, typ, name string) PolicyParams {
	out := base
	if typ == PolicyRounded && name != PolicyRounded {
		out.Decimals = p.Decimals
	}
	return out
}

func (s PolicySet) namesNote() string {
	if len(s) == 0 {
		return ""
	}
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	slices.Sort(names)
	return ", or a policy of the policy file (" + strings.Join(names, ", ") + ")"
}

func modesName(modes []Mode) string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = m.Name()
	}
	return strings.Join(names, ",")
}
