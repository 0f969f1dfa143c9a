package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rule-based extractor reaches claim precision and recall of 0.9 on the
// golden set, on the held-out one and on issue 45's.
func TestGoldenPrecisionRecall(t *testing.T) {
	for _, path := range []string{"../../extract/testdata/golden.jsonl", "../../extract/testdata/heldout.jsonl", "../../extract/testdata/issue45.jsonl"} {
		gs, err := readGolden(path)
		require.NoError(t, err)
		r, err := score(gs, ruleBased)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, r.all.precision(), 0.9, path)
		assert.GreaterOrEqual(t, r.all.recall(), 0.9, path)
	}
}

// Every extraction slip the issue lists is a case of the golden set, and
// the extractor gets each right.
func TestSlipsAreGoldenCases(t *testing.T) {
	gs, err := readGolden("../../extract/testdata/golden.jsonl")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(gs), 150)
	slips := []string{
		"Thank you for asking about our policy on refunds.",
		"Maybe Paris is the largest city in France.",
		"The office may close early on Fridays.",
		"Close the door.",
		"It is important that staff wear badges.",
		"The tower was completed in 1889 and is about 330 metres tall.",
		"The company employs more than 10,000 people and operates in 40 countries.",
		"The audit found 5 or 6 issues in the report.",
		"Line 2 with 50% claim coverage.",
		"Line 4 with 100 rules.",
		"50% success.",
		"25 rules.",
		"# ISL Features\nThe ISL supports 40 languages.",
	}
	for _, slip := range slips {
		i := -1
		for k, g := range gs {
			if g.Text == slip {
				i = k
			}
		}
		require.GreaterOrEqual(t, i, 0, "slip %q is not a golden case", slip)
		c, misses := scoreOne(gs[i], must(ruleBased(gs[i])))
		assert.Equal(t, c.gold, c.tp, "slip %q: %v", slip, misses)
		assert.Equal(t, c.pred, c.tp, "slip %q: %v", slip, misses)
		assert.Empty(t, misses, "slip %q", slip)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The scorer counts what it says: an extra claim lowers precision, a
// missed one recall, and only the normalised text decides a match.
func TestScorer(t *testing.T) {
	g := Golden{ID: "x", Text: "t", Claims: []GoldClaim{{Text: "Paris is in France."}, {Text: "Berlin is in Germany."}}}
	c, m := scoreOne(g, must(ruleBased(Golden{ID: "x", Text: "paris  is in France! Rome is in Italy."})))
	assert.Equal(t, 1, c.tp)
	assert.Equal(t, 2, c.pred)
	assert.Equal(t, 2, c.gold)
	assert.Len(t, m, 2)
	b, _ := json.Marshal(g)
	path := t.TempDir() + "/g.jsonl"
	require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	gs, err := readGolden(path)
	require.NoError(t, err)
	assert.Equal(t, g, gs[0])
	require.NoError(t, os.WriteFile(path, []byte(`{"id": "x", "text": "t", "claimz": []}`+"\n"), 0o644))
	_, err = readGolden(path)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), ":1:"), err.Error())
}

// Issue 45's set: besides the text, the fields it checks (location,
// population, timeframe, importance, quantity) agree on at least 0.9 of
// the matched claims each.
func TestIssue45Fields(t *testing.T) {
	gs, err := readGolden("../../extract/testdata/issue45.jsonl")
	require.NoError(t, err)
	r, err := score(gs, ruleBased)
	require.NoError(t, err)
	for _, a := range []string{"quantity", "location", "population", "timeframe", "importance"} {
		require.Positive(t, r.all.attrN[a], a)
		assert.GreaterOrEqual(t, rate(r.all.attrOK[a], r.all.attrN[a]), 0.9, a)
	}
}
