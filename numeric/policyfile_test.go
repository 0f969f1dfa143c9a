package numeric

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func policySchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "docs", "format", "policy.schema.json"))
	require.NoError(t, err)
	return sch
}

func validate(t *testing.T, sch *jsonschema.Schema, doc []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	require.NoError(t, err)
	return sch.Validate(inst)
}

// TestSchemaValidatesBuiltins: every built-in policy, by name and as the
// mode object MarshalJSON writes, is valid under the published schema.
func TestSchemaValidatesBuiltins(t *testing.T) {
	sch := policySchema(t)
	names := append(append([]string(nil), Policies...), "round0", "round1", "round2", "round15")
	for _, name := range names {
		m, ok := BuiltinMode(name)
		require.True(t, ok, name)
		byName, _ := json.Marshal(map[string]any{"policies": map[string]any{"p": name}})
		assert.NoError(t, validate(t, sch, byName), name)
		asObject, err := MarshalPolicyFile(PolicySet{"p": {Name: "p", Modes: []Mode{m}}})
		require.NoError(t, err)
		assert.NoError(t, validate(t, sch, asObject), "%s as %s", name, asObject)
		back, err := ParsePolicyFile(asObject)
		require.NoError(t, err, name)
		assert.Equal(t, []Mode{m}, back["p"].Modes, name)
	}
}

// TestPolicyFileRoundTrips: the example file is valid, reads, writes and
// reads back to the same policies, and the written file is valid too.
func TestPolicyFileRoundTrips(t *testing.T) {
	sch := policySchema(t)
	data, err := os.ReadFile(filepath.Join("testdata", "policy", "example.json"))
	require.NoError(t, err)
	require.NoError(t, validate(t, sch, data))
	set, err := ParsePolicyFile(data)
	require.NoError(t, err)
	require.Len(t, set, 6)
	assert.Equal(t, []Mode{{Type: PolicyExact}, {Type: PolicyRounded, Params: PolicyParams{Decimals: 1}},
		{Type: PolicyAbbr, Params: PolicyParams{Scales: []float64{1000, 1e6}}}}, set["display"].Modes)
	assert.True(t, set["reference_tolerance"].Modes[0].Params.NoQualifier)
	out, err := MarshalPolicyFile(set)
	require.NoError(t, err)
	require.NoError(t, validate(t, sch, out), "%s", out)
	back, err := ParsePolicyFile(out)
	require.NoError(t, err)
	assert.Equal(t, set, back)
}

// TestPolicyFileDefects: what the schema rejects, the reader rejects, and
// its error names the member.
func TestPolicyFileDefects(t *testing.T) {
	sch := policySchema(t)
	tests := []struct{ doc, member string }{
		{`{"policies": {"p": "fuzzy"}}`, "policies.p"},
		{`{"policies": {"p": []}}`, "policies.p"},
		{`{"policies": {"p": {"type": "rounded", "decimals": -1}}}`, "policies.p.decimals"},
		{`{"policies": {"p": {"type": "exact", "decimals": 1}}}`, "policies.p.decimals"},
		{`{"policies": {"p": {"type": "tolerance", "tolerance": -0.1}}}`, "policies.p.tolerance"},
		{`{"policies": {"p": {"type": "tolerance", "colour": 1}}}`, "policies.p"},
		{`{"policies": {"p": {"type": "abbr", "scales": [0]}}}`, "policies.p.scales[0]"},
		{`{"policies": {"p": ["exact", {"type": "rounded", "decimals": 99}]}}`, "policies.p[1].decimals"},
		{`{"policies": {"exact": "rounded"}}`, "policies.exact"},
		{`{"policies": {"1st": "exact"}}`, "policies.1st"},
		{`{"policies": {}, "extra": 1}`, "extra"},
		{`{}`, "policies"},
	}
	for _, tt := range tests {
		assert.Error(t, validate(t, sch, []byte(tt.doc)), "schema accepts %s", tt.doc)
		_, err := ParsePolicyFile([]byte(tt.doc))
		if assert.Error(t, err, tt.doc) {
			assert.ErrorIs(t, err, ErrPolicyFile, tt.doc)
			assert.Contains(t, err.Error(), tt.member, tt.doc)
		}
	}
	_, err := ParsePolicyFile([]byte("{\"policies\": {\n  \"p\": \"exact\",\n}}"))
	assert.ErrorContains(t, err, "line 3")
}

// TestPolicySets: seed 000's R = 1 when any allowed mode holds.
func TestPolicySets(t *testing.T) {
	file, err := ParsePolicyFile([]byte(`{"policies": {"display": ["exact", "round0"]}}`))
	require.NoError(t, err)
	tests := []struct {
		spec, claim, token string
		verified           bool
		policy             string
	}{
		{"exact,rounded", "5.7", "6", true, "exact,rounded via round0"},
		{"exact,rounded", "5.7", "5.7", true, "exact,rounded via exact"},
		{"exact,round1", "5.7", "6", false, "exact,round1"},
		{"exact,rounded", "5.7", "7", false, "exact,rounded"},
		{"round1", "5.7", "5.7", true, "round1"},
		{"round0", "5.7", "6", true, "round0"},
		{"round1", "5.7", "5.8", false, "round1"},
		{"rounded", "5.7", "6", true, "rounded via round0"},
		{"auto", "1500", "1.5K", true, "auto:abbr"},
		{"display", "5.7", "6", true, "display via round0"},
		{"exact,abbr", "1500", "1.5K", true, "exact,abbr via abbr"},
		{`{"type": "rounded", "decimals": 1}`, "5.67", "5.7", true, "round1"},
		{`{"type": "tolerance", "tolerance": 0.02}`, "100", "about 102", true, "tolerance"},
		{`{"type": "tolerance", "tolerance": 0.02}`, "100", "102", false, "tolerance"},
		{`{"type": "tolerance", "tolerance": 0.02, "require_qualifier": false}`, "100", "102", true, "tolerance"},
		{`[{"type": "exact"}, {"type": "percent"}]`, "12%", "0.12", true, "exact,percent via percent"},
		{"exact,percent", "12%", "0.12", true, "exact,percent via percent"},
	}
	for _, tt := range tests {
		p, err := file.Resolve(tt.spec, PolicyParams{})
		require.NoError(t, err, tt.spec)
		d := p.Check(tt.claim, tt.token)
		assert.Equal(t, tt.verified, d.Verified, "%s: claim %q token %q: %s", tt.spec, tt.claim, tt.token, d.Reason)
		assert.Equal(t, tt.policy, d.Policy, tt.spec)
	}
	for _, bad := range []string{"fuzzy", "exact,fuzzy", "round16", `{"type": "rounded", "decimals": -1}`, "{"} {
		_, err := file.Resolve(bad, PolicyParams{})
		assert.Error(t, err, bad)
	}
	// Not verified under a set: every mode's reason is given.
	p, _ := file.Resolve("exact,round1", PolicyParams{})
	d := p.Check("5.7", "6")
	assert.Contains(t, d.Reason, "exact: 6 differs from 5.7")
	assert.Contains(t, d.Reason, "round1: round_1(6)")
}
