package numeric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A policy file (docs/format/policy.schema.json) names policies:
//
//	{"policies": {
//	  "strict":  "exact",
//	  "display": ["exact", "round1", {"type": "tolerance", "tolerance": 0.02}]
//	}}
//
// A policy is a built-in name, a mode object, or an array of them (a set:
// any mode verifies). A mode object is the reference implementation's
// form: "type" and the parameters of that type.

// modeJSON is a mode object as written in a policy file.
type modeJSON struct {
	Type             string    `json:"type"`
	Decimals         *int      `json:"decimals,omitempty"`
	Tolerance        *float64  `json:"tolerance,omitempty"`
	AbsTolerance     *float64  `json:"abs_tolerance,omitempty"`
	Qualifiers       []string  `json:"qualifiers,omitempty"`
	RequireQualifier *bool     `json:"require_qualifier,omitempty"`
	Scales           []float64 `json:"scales,omitempty"`
}

// ErrPolicyFile marks a defect of a policy file or a policy given as JSON.
var ErrPolicyFile = errors.New("invalid policy")

var rePolicyName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// ReadPolicyFile reads a policy file. Errors name the file, the line and
// column of a syntax error, and the policy and member of any other defect.
func ReadPolicyFile(path string) (PolicySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open policy file: %w", err)
	}
	set, err := ParsePolicyFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return set, nil
}

// ParsePolicyFile reads a policy file's contents.
func ParsePolicyFile(data []byte) (PolicySet, error) {
	var doc struct {
		Policies map[string]json.RawMessage `json:"policies"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, jsonError(data, err)
	}
	if doc.Policies == nil {
		return nil, fmt.Errorf("%w: the file needs an object \"policies\"", ErrPolicyFile)
	}
	set := PolicySet{}
	for _, name := range sortedNames(doc.Policies) {
		if !rePolicyName.MatchString(name) {
			return nil, fmt.Errorf("%w: policies.%s: a name starts with a letter and holds letters, digits, _ . -", ErrPolicyFile, name)
		}
		if _, builtin := BuiltinMode(name); builtin {
			return nil, fmt.Errorf("%w: policies.%s: a built-in name cannot be redefined", ErrPolicyFile, name)
		}
		modes, err := decodeModes(doc.Policies[name], "policies."+name)
		if err != nil {
			return nil, err
		}
		set[name] = Policy{Name: name, Modes: modes}
	}
	return set, nil
}

func sortedNames(m map[string]json.RawMessage) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// decodeModes reads a policy: a built-in name, a mode object or an array
// of them. where names it in errors.
func decodeModes(raw json.RawMessage, where string) ([]Mode, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrPolicyFile, where, err)
		}
		if len(items) == 0 {
			return nil, fmt.Errorf("%w: %s: an empty set allows nothing", ErrPolicyFile, where)
		}
		var out []Mode
		for i, it := range items {
			m, err := decodeMode(it, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	m, err := decodeMode(raw, where)
	if err != nil {
		return nil, err
	}
	return []Mode{m}, nil
}

func decodeMode(raw json.RawMessage, where string) (Mode, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		m, ok := BuiltinMode(name)
		if !ok {
			return Mode{}, fmt.Errorf("%w: %s: %q is not one of %s", ErrPolicyFile, where, name, strings.Join(BuiltinNames, ", "))
		}
		return m, nil
	}
	var mj modeJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mj); err != nil {
		return Mode{}, fmt.Errorf("%w: %s: expected a policy name or a mode object: %v", ErrPolicyFile, where, err)
	}
	return mj.mode(where)
}

// mode checks a mode object: a known type, and only the parameters that
// type takes, in range.
func (mj modeJSON) mode(where string) (Mode, error) {
	bad := func(member, format string, args ...any) (Mode, error) {
		return Mode{}, fmt.Errorf("%w: %s.%s: %s", ErrPolicyFile, where, member, fmt.Sprintf(format, args...))
	}
	if !slices.Contains(Policies, mj.Type) {
		return bad("type", "%q is not one of %s", mj.Type, strings.Join(Policies, ", "))
	}
	m := Mode{Type: mj.Type}
	if mj.Decimals != nil {
		if mj.Type != PolicyRounded {
			return bad("decimals", "only a rounded mode takes decimals")
		}
		if *mj.Decimals < 0 || *mj.Decimals > 15 {
			return bad("decimals", "%d is not in 0..15", *mj.Decimals)
		}
		m.Params.Decimals = *mj.Decimals
	}
	tol := mj.Tolerance != nil || mj.AbsTolerance != nil || mj.Qualifiers != nil || mj.RequireQualifier != nil
	if tol && mj.Type != PolicyTolerance && mj.Type != PolicyRange && mj.Type != PolicyAuto {
		return bad("tolerance", "only tolerance, range and auto modes take tolerance parameters")
	}
	for _, t := range []struct {
		member string
		v      *float64
	}{{"tolerance", mj.Tolerance}, {"abs_tolerance", mj.AbsTolerance}} {
		if t.v != nil && !(*t.v >= 0) {
			return bad(t.member, "%v is negative", *t.v)
		}
	}
	if mj.Tolerance != nil {
		m.Params.RelTol = *mj.Tolerance
	}
	if mj.AbsTolerance != nil {
		m.Params.AbsTol = *mj.AbsTolerance
	}
	for i, q := range mj.Qualifiers {
		if strings.TrimSpace(q) == "" {
			return bad(fmt.Sprintf("qualifiers[%d]", i), "a blank qualifier")
		}
		m.Params.Qualifiers = append(m.Params.Qualifiers, strings.ToLower(strings.TrimSpace(q)))
	}
	m.Params.NoQualifier = mj.RequireQualifier != nil && !*mj.RequireQualifier
	if mj.Scales != nil && mj.Type != PolicyAbbr && mj.Type != PolicyAuto {
		return bad("scales", "only abbr and auto modes take scales")
	}
	for i, sc := range mj.Scales {
		if !(sc > 0) {
			return bad(fmt.Sprintf("scales[%d]", i), "%v is not a positive scale", sc)
		}
	}
	m.Params.Scales = mj.Scales
	return m, nil
}

// MarshalJSON writes a mode as a mode object with every parameter it sets.
func (m Mode) MarshalJSON() ([]byte, error) {
	mj := modeJSON{Type: m.Type, Qualifiers: m.Params.Qualifiers, Scales: m.Params.Scales}
	if m.Type == PolicyRounded {
		d := max(m.Params.Decimals, 0)
		mj.Decimals = &d
	}
	if m.Params.RelTol != 0 {
		mj.Tolerance = &m.Params.RelTol
	}
	if m.Params.AbsTol != 0 {
		mj.AbsTolerance = &m.Params.AbsTol
	}
	if m.Params.NoQualifier {
		f := false
		mj.RequireQualifier = &f
	}
	return json.Marshal(mj)
}

// MarshalPolicyFile writes a policy set as a policy file that
// ParsePolicyFile reads back to the same set: every policy as an array of
// mode objects.
func MarshalPolicyFile(set PolicySet) ([]byte, error) {
	doc := struct {
		Policies map[string][]Mode `json:"policies"`
	}{Policies: map[string][]Mode{}}
	for name, p := range set {
		doc.Policies[name] = p.Modes
	}
	return json.MarshalIndent(doc, "", "  ")
}

// jsonError positions a decoding error by line and column.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 {
		return fmt.Errorf("%w: %v", ErrPolicyFile, err)
	}
	line, col := 1, 1
	for _, b := range data[:min(int(off), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%w: line %d, column %d: %v", ErrPolicyFile, line, col, err)
}
