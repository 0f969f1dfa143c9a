package claims

import (
	"bufio"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

func defectLines(t *testing.T, path string) map[int]bool {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	lines := map[int]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), "defect") {
			lines[n] = true
		}
	}
	return lines
}

func TestLoadPlantedDefects(t *testing.T) {
	cp, gp := filepath.Join("testdata", "defects", "claims.jsonl"), filepath.Join("testdata", "defects", "gold.jsonl")
	_, err := Load(context.Background(), cp, gp)
	var list *jsonl.ErrorList
	require.ErrorAs(t, err, &list)
	got := map[string]map[int]bool{cp: {}, gp: {}}
	var text strings.Builder
	for _, e := range list.Errors {
		got[e.File][e.Line] = true
		text.WriteString(e.Error() + "\n")
	}
	assert.Equal(t, defectLines(t, cp), got[cp], "claim lines reported must be exactly the planted ones")
	assert.Equal(t, defectLines(t, gp), got[gp], "gold lines reported must be exactly the planted ones")
	golden := filepath.Join("testdata", "defects", "want.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(text.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), text.String())
}

func TestLoadJoinsGold(t *testing.T) {
	dir := t.TempDir()
	cp, gp := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "g.jsonl")
	require.NoError(t, os.WriteFile(cp, []byte(`{"id":"a","text":"A is B.","label":"SUPPORTS"}
{"id":"b","text":"C is D."}
{"id":"c","text":"E is F."}
`), 0o644))
	require.NoError(t, os.WriteFile(gp, []byte(`{"claim_id":"b","label":"NOT ENOUGH INFO"}
{"claim_id":"a","label":"supported"}
`), 0o644))
	cs, err := Load(context.Background(), cp, gp)
	require.NoError(t, err)
	require.Len(t, cs, 3)
	assert.Equal(t, Supported, cs[0].Label)
	assert.Equal(t, Insufficient, cs[1].Label)
	assert.Equal(t, Label(""), cs[2].Label, "no gold label stays unknown")
}

func TestParseLabel(t *testing.T) {
	for in, want := range map[string]Label{
		"supported": Supported, "SUPPORTS": Supported, "Supported": Supported,
		"unsupported": Unsupported, "REFUTES": Unsupported,
		"insufficient": Insufficient, "NOT ENOUGH INFO": Insufficient, "not  enough   info": Insufficient,
	} {
		got, ok := ParseLabel(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "true", "SUPPORT", "maybe"} {
		_, ok := ParseLabel(in)
		assert.False(t, ok, in)
	}
}

func TestScalarJSON(t *testing.T) {
	var s Scalar
	require.NoError(t, s.UnmarshalJSON([]byte(`"48.2 million"`)))
	assert.Equal(t, Scalar{Str: "48.2 million"}, s)
	require.NoError(t, s.UnmarshalJSON([]byte(`4.82e7`)))
	assert.Equal(t, Scalar{Num: 4.82e7, IsNum: true}, s)
	b, err := NumScalar(0.5).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "0.5", string(b))
	assert.Error(t, s.UnmarshalJSON([]byte(`[1]`)))
}

func TestLoadMeta(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		want       map[string]string
		errHas     string
	}{
		{"strings pass through", `{"topic":"health","lang":"en"}`, map[string]string{"topic": "health", "lang": "en"}, ""},
		{"numbers and booleans as JSON text", `{"year":2020,"share":0.5,"reviewed":true}`, map[string]string{"year": "2020", "share": "0.5", "reviewed": "true"}, ""},
		{"null members dropped", `{"topic":null}`, nil, ""},
		{"null meta", `null`, nil, ""},
		{"nested object rejected", `{"topic":{"a":"b"}}`, nil, "meta.topic: expected string, number, boolean or null, got object"},
		{"array rejected", `{"tags":["a"]}`, nil, "meta.tags"},
		{"not an object", `"health"`, nil, "meta: expected object or null, got string"},
		{"empty key", `{"":"x"}`, nil, "key \"\" is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "c.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(`{"id":"a","text":"A is B.","meta":`+tc.meta+"}\n"), 0o644))
			cs, err := Load(context.Background(), p, "")
			if tc.errHas != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errHas)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, cs[0].Meta)
		})
	}
}

// A run over a sample of the claims with the full gold file: lines for
// claims not read are counted, not errors, when IgnoreUnknownGold is set;
// a malformed line is still an error.
func TestIgnoreUnknownGold(t *testing.T) {
	ctx := context.Background()
	cl := `{"id":"a","text":"The sky is blue."}` + "\n"
	gold := `{"claim_id":"a","label":"supported"}` + "\n" + `{"claim_id":"b","label":"unsupported"}` + "\n" + `{"claim_id":"c","label":"refutes"}` + "\n"
	strict := NewValidator(false)
	require.NoError(t, strict.AddClaims(ctx, strings.NewReader(cl), "c.jsonl"))
	require.NoError(t, strict.AddGold(ctx, strings.NewReader(gold), "g.jsonl"))
	assert.Equal(t, 2, strict.Errors().Total)
	assert.Equal(t, 0, strict.UnknownGold())

	lenient := NewValidator(false)
	lenient.IgnoreUnknownGold = true
	require.NoError(t, lenient.AddClaims(ctx, strings.NewReader(cl), "c.jsonl"))
	require.NoError(t, lenient.AddGold(ctx, strings.NewReader(gold+`{"claim_id":"d","label":"maybe"}`+"\n"), "g.jsonl"))
	assert.Equal(t, 1, lenient.Errors().Total, "a bad label is an error whatever the claim")
	assert.Equal(t, 3, lenient.UnknownGold())
	assert.Equal(t, map[string]Label{"a": Supported}, lenient.Gold())
}
