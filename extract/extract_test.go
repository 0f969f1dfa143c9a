package extract

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestExtractGolden runs extraction on the committed sample of model outputs
// and compares the claims and the skip counts with golden files
// (go test ./extract -update refreshes them; read the diff before committing).
func TestExtractGolden(t *testing.T) {
	dir := filepath.Join("testdata", "extract")
	out := filepath.Join(t.TempDir(), "claims.jsonl")
	stats, err := ExtractFile(context.Background(), filepath.Join(dir, "outputs.jsonl"), out, ExtractOptions{})
	require.NoError(t, err)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	statsJSON, err := json.MarshalIndent(stats, "", "  ")
	require.NoError(t, err)
	for name, data := range map[string][]byte{"claims.golden.jsonl": got, "stats.golden.json": append(statsJSON, '\n')} {
		golden := filepath.Join(dir, name)
		if *update {
			require.NoError(t, os.WriteFile(golden, data, 0o644))
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(data), name)
	}
	assert.GreaterOrEqual(t, stats.Sentences, 40, "the sample covers at least 40 sentences")
	// The golden claims are valid claims.
	_, err = claims.Load(context.Background(), out, "")
	require.NoError(t, err)
}

func texts(cs []claims.Claim) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Text)
	}
	return out
}

func TestExtractRules(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"compound split", "Paris is in France and Berlin is in Germany.", []string{"Paris is in France.", "Berlin is in Germany."}},
		{"noun-phrase and", "Salt and pepper are common seasonings.", []string{"Salt and pepper are common seasonings."}},
		{"research and development", "The firm spends heavily on research and development.", []string{"The firm spends heavily on research and development."}},
		{"but with comma", "The station opened in 1901, but the tracks were rebuilt in 1985.", []string{"The station opened in 1901.", "The tracks were rebuilt in 1985."}},
		{"while", "The U.S. market grew while the European market shrank.", []string{"The U.S. market grew.", "The European market shrank."}},
		{"semicolon", "The depot stores cars; the office handles sales.", []string{"The depot stores cars.", "The office handles sales."}},
		{"question dropped", "Is Lisbon the capital of Portugal?", nil},
		{"imperative dropped", "Install it with the package manager.", nil},
		{"opinion dropped", "I think the design is elegant. In my view, it is strict.", nil},
		{"acknowledgement dropped", "Thank you for asking. Great question!", nil},
		{"acknowledgement stripped", "Sure, the fee is $150 for adults.", []string{"The fee is $150 for adults."}},
		{"connector stripped", "However, the shop did not open.", []string{"The shop did not open."}},
		{"meta dropped", "Here is a summary of the tool. I hope this helps!", nil},
		{"hedged skipped", "The drug may reduce symptoms. About 40% of users upgraded.", nil},
		{"contextual skipped", "For example, a shop sells 500 units a day.", nil},
		{"duplicates dropped", "The museum opened in 1898. The museum opened in 1898.", []string{"The museum opened in 1898."}},
		{"abbreviations survive", "Dr. Patel approved the policy in 2020.", []string{"Dr. Patel approved the policy in 2020."}},
		{"decimals survive", "Punctuality reached 91.4% on regional lines.", []string{"Punctuality reached 91.4% on regional lines."}},
		{"list markers", "1. Lake Orrin covers 312 square kilometres.\n- The lake is the largest in the region.", []string{"Lake Orrin covers 312 square kilometres.", "The lake is the largest in the region."}},
		{"citations stripped", "Revenue was $1.9 billion [cite:span_004].", []string{"Revenue was $1.9 billion."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, texts(Extract(Output{ID: "o", Text: tt.in}, ExtractOptions{}, nil)))
		})
	}
}

func TestExtractFields(t *testing.T) {
	cs := Extract(Output{ID: "out7", Query: "How many passengers did Meridian Rail carry?", Text: "Meridian Rail carried 48.2 million passengers in 2023 [cite:span_001, doc_001]. The bridge was completed in 1932. Members must return books on time. A business day refers to Monday through Friday. Swimming was not advised at the beach."}, ExtractOptions{}, nil)
	require.Len(t, cs, 5)
	c := cs[0]
	assert.Equal(t, "out7", c.SourceID)
	assert.True(t, strings.HasPrefix(c.ID, "out7#"))
	assert.Equal(t, "numeric", c.Type)
	assert.Equal(t, "critical", c.Importance)
	assert.Equal(t, []string{"span_001", "doc_001"}, c.Cite)
	assert.Equal(t, "48.2 million passengers", c.Qualifiers.Quantity.Str)
	assert.Equal(t, "passengers", c.Qualifiers.Unit)
	assert.Equal(t, 48.2e6, c.Normalization.Value.Num)
	assert.Equal(t, "temporal", cs[1].Type)
	assert.Equal(t, &claims.Timeframe{Start: "1932-01-01", End: "1932-12-31"}, cs[1].Timeframe)
	assert.Equal(t, "policy", cs[2].Type)
	assert.Equal(t, "material", cs[2].Importance)
	assert.Equal(t, "definitional", cs[3].Type)
	assert.Equal(t, "minor", cs[3].Importance)
	assert.Equal(t, "fact", cs[4].Type)
	assert.Equal(t, "negative", cs[4].Polarity)

	again := Extract(Output{ID: "out7", Text: "Swimming was not advised at the beach."}, ExtractOptions{}, nil)
	assert.Equal(t, cs[4].ID, again[0].ID, "ids are stable: they do not depend on position")
}

func TestExtractIncludeMarks(t *testing.T) {
	o := Output{ID: "o", Text: "The drug may reduce symptoms. For example, a shop sells 500 units a day."}
	cs := Extract(o, ExtractOptions{IncludeHedged: true, IncludeContextual: true}, nil)
	require.Len(t, cs, 2)
	assert.Equal(t, "hedged: may", cs[0].Notes)
	assert.Equal(t, "possibility", cs[0].Modality)
	assert.Equal(t, "contextual: for example", cs[1].Notes)
}

func TestExtractFileRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(`{"id":"a","text":"Paris is in France."}
{"id":"a","text":"dup"}
{"text":"no id"}
`), 0o644))
	_, err := ExtractFile(context.Background(), in, out, ExtractOptions{})
	var list *jsonl.ErrorList
	require.ErrorAs(t, err, &list)
	assert.Equal(t, 2, list.Total)
	assert.Equal(t, 2, list.Errors[0].Line)
	assert.Equal(t, 3, list.Errors[1].Line)
	_, statErr := os.Stat(out)
	assert.True(t, os.IsNotExist(statErr), "no output file for invalid input")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left behind")
}

func FuzzExtract(f *testing.F) {
	f.Add("Paris is in France and Berlin is in Germany. Is it? 1. A 5% rise [cite:x].")
	f.Add("Sure, $1.9 billion, 85-95%; the U.S. grew while v1.0 shipped.")
	f.Add("Back up.") // two words, the second a particle: once a panic
	f.Add("Please note that. Among the. In the. For seniors over, in sub-X or Y between 2010 and.")
	f.Add("Keep in mind that fees are $1 or $ in 1999–2001 among adults aged 18 to")
	f.Fuzz(func(t *testing.T, text string) {
		cs := Extract(Output{ID: "o", Text: text}, ExtractOptions{IncludeHedged: true, IncludeContextual: true}, nil)
		ids := map[string]bool{}
		for _, c := range cs {
			if c.Text == "" || c.ID == "" || ids[c.ID] {
				t.Fatalf("bad claim %+v from %q", c, text)
			}
			ids[c.ID] = true
		}
	})
}

// A sentence of two words whose second is a phrasal particle is read
// without indexing past its end (the fuzzer found "Xx in" panicking).
func TestImperativeOfTwoWords(t *testing.T) {
	for _, s := range []string{"Back up.", "Fill in", "Turn off.", "Log out", "Sign in."} {
		assert.True(t, isImperative(s), s)
	}
	for _, s := range []string{"Revenue in", "Rains in", "Nitrate in."} {
		assert.NotPanics(t, func() { isImperative(s) }, s)
	}
	assert.False(t, isImperative("Revenues in"), "a plural noun before a particle is no command")
}

// The five extraction failures a user met, each fixed.
func TestExtractFailuresFixed(t *testing.T) {
	t.Run("hedged claim kept when cited", func(t *testing.T) {
		cs := Extract(Output{ID: "o", Text: "The film earned back about 80% of its budget [cite:span_3]. Ticket sales may rise."}, ExtractOptions{}, nil)
		require.Len(t, cs, 1)
		assert.Equal(t, "The film earned back about 80% of its budget.", cs[0].Text)
		assert.Equal(t, []string{"span_3"}, cs[0].Cite)
		assert.Equal(t, "hedged: about", cs[0].Notes)
		assert.Equal(t, "possibility", cs[0].Modality)
	})
	t.Run("sentence boundary after U.S.", func(t *testing.T) {
		var stats ExtractStats
		cs := Extract(Output{ID: "o", Text: "The film earned $60 million in the U.S. Is it any good?"}, ExtractOptions{}, &stats)
		assert.Equal(t, []string{"The film earned $60 million in the U.S."}, texts(cs))
		assert.Equal(t, 1, stats.Skipped[SkipQuestion], "the question is its own sentence, dropped as a question")
	})
	t.Run("no split inside a noun phrase", func(t *testing.T) {
		cs := Extract(Output{ID: "o", Text: "Duncan led the league in blocks and rebounds, and he won the award in 2004."}, ExtractOptions{}, nil)
		assert.Equal(t, []string{"Duncan led the league in blocks and rebounds.", "Duncan won the award in 2004."}, texts(cs))
		cs = Extract(Output{ID: "o", Text: "The company designs and builds ships, and its yard employs 900 people."}, ExtractOptions{}, nil)
		assert.Equal(t, "The company designs and builds ships.", cs[0].Text, "no split inside a verb phrase")
	})
	t.Run("advice, imperatives and opinions dropped", func(t *testing.T) {
		var stats ExtractStats
		cs := Extract(Output{ID: "o", Text: "You should watch it. Don't miss the sequel. It is a must-see. The acting is amazing. I recommend it highly. Watch it twice."}, ExtractOptions{}, &stats)
		assert.Empty(t, texts(cs))
		assert.Equal(t, 3, stats.Skipped[SkipImperative])
		assert.Equal(t, 3, stats.Skipped[SkipOpinion])
	})
	t.Run("pronoun subjects resolved or marked", func(t *testing.T) {
		cs := Extract(Output{ID: "o", Text: "The Matrix is a 1999 film. It grossed $467 million worldwide. Its budget was $63 million."}, ExtractOptions{}, nil)
		assert.Equal(t, []string{"The Matrix is a 1999 film.", "The Matrix grossed $467 million worldwide.", "The Matrix's budget was $63 million."}, texts(cs))
		for _, c := range cs {
			assert.Empty(t, c.Notes)
		}
		cs = Extract(Output{ID: "o", Text: "It grossed $467 million worldwide."}, ExtractOptions{}, nil)
		require.Len(t, cs, 1, "kept")
		assert.Equal(t, `contextual: unresolved pronoun "it"`, cs[0].Notes)
		// "he" needs a name, and only one: "The team" is not one.
		cs = Extract(Output{ID: "o", Text: "The team won in 2004. He scored 30 points."}, ExtractOptions{}, nil)
		assert.Equal(t, "He scored 30 points.", cs[1].Text)
		assert.Equal(t, `contextual: unresolved pronoun "he"`, cs[1].Notes)
		cs = Extract(Output{ID: "o", Text: "Tim Duncan joined in 1997. He scored 30 points."}, ExtractOptions{}, nil)
		assert.Equal(t, "Tim Duncan scored 30 points.", cs[1].Text)
		cs = Extract(Output{ID: "o", Text: "The players arrived in 1997. They scored 30 points."}, ExtractOptions{}, nil)
		assert.Equal(t, `contextual: unresolved pronoun "they"`, cs[1].Notes, "they stays unresolved")
	})
}
