package lint

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func demoTexts(t *testing.T, file string) []string {
	f, err := os.Open("../benchdata/demo/" + file)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o struct {
			Text string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &o))
		out = append(out, o.Text)
	}
	return out
}

func checkJSON(t *testing.T, c NumericCheck) string {
	b, err := json.Marshal(c)
	require.NoError(t, err)
	return string(b)
}

// Prepared facts, and a claim prepared once for many passages, give the
// check VerifyNumeric gives, with and without the sentence entity guard;
// a fact changed after Prepare is read again.
func TestPrepareChangesNoCheck(t *testing.T) {
	docs, claims := demoTexts(t, "corpus.jsonl"), demoTexts(t, "claims.jsonl")
	plain, prepared := map[int][]Fact{}, map[int][]Fact{}
	for i, doc := range docs[:60] {
		plain[i], prepared[i] = FactsFromText("p", doc), Prepare(FactsFromText("p", doc))
	}
	checked, matched := 0, 0
	for _, claim := range claims[:200] {
		for _, opts := range []MatchOptions{{}, {Policy: "auto", SentenceEntity: true}} {
			cc := PrepareClaim(claim, opts)
			for i := range docs[:60] {
				want := VerifyNumeric(claim, plain[i], opts)
				require.Equal(t, checkJSON(t, want), checkJSON(t, cc.Verify(prepared[i])), "%q vs %q", claim, docs[i])
				checked++
				if want.Fact != nil {
					matched++
				}
			}
		}
	}
	assert.Greater(t, matched, 30, "facts match claims")
	assert.Greater(t, checked, 20000)

	facts := Prepare(FactsFromText("p", "Meridian Rail carried 48.2 million passengers in 2023."))
	claim := "Northwind Rail carried 48.2 million passengers in 2023."
	before := VerifyNumeric(claim, facts, MatchOptions{}).Status
	facts[0].Context, facts[0].Description = "Northwind Rail carried them.", "Northwind Rail carried 48.2 million passengers in 2023."
	after := VerifyNumeric(claim, facts, MatchOptions{})
	facts[0].words = nil
	assert.Equal(t, checkJSON(t, VerifyNumeric(claim, facts, MatchOptions{})), checkJSON(t, after))
	assert.NotEqual(t, before, after.Status, "the changed context names the claim's entity")
}
