package corpus

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tieIndex holds two documents that say the same of different museums,
// and a third about neither: the claim "The museum opened in 1990." ties
// on the first two.
func tieIndex(t *testing.T) *Index {
	t.Helper()
	dir := t.TempDir()
	docs := `{"doc_id":"doc_a","text":"The museum opened in 1990. Prado visitors queue early."}
{"doc_id":"doc_b","text":"The museum opened in 1990. Louvre visitors queue early."}
{"doc_id":"doc_c","text":"A bridge was built across the river in 1850 by the Louvre family."}
`
	path := filepath.Join(dir, "corpus.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(docs), 0o644))
	return openIndexOf(t, path, "")
}

func TestQueryFieldsBreakATie(t *testing.T) {
	ix := tieIndex(t)
	ctx := context.Background()
	plain, err := ix.Search(ctx, "The museum opened in 1990.", 3)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(plain), 2)
	require.Equal(t, plain[0].Score, plain[1].Score, "the two museums tie on the text")
	assert.Equal(t, "doc_a", plain[0].DocID, "a tie goes to the lower passage id")

	for _, fields := range [][]string{{"Louvre"}, {"Louvre Museum"}, {"", "the Louvre"}} {
		hits, err := ix.SearchQuery(ctx, Query{Text: "The museum opened in 1990.", Fields: fields}, 3)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		assert.Equal(t, "doc_b", hits[0].DocID, "fields %q: the entity ranks its museum first", fields)
		assert.Greater(t, hits[0].Score, plain[0].Score, "fields %q", fields)
		if len(hits) > 1 {
			assert.Greater(t, hits[0].Score, hits[1].Score, "fields %q: no tie left", fields)
		}
	}
	// The other entity turns the order the other way.
	hits, err := ix.SearchQuery(ctx, Query{Text: "The museum opened in 1990.", Fields: []string{"Prado"}}, 3)
	require.NoError(t, err)
	assert.Equal(t, "doc_a", hits[0].DocID)
	// Within one document the fields count too, with the same scores.
	within, err := ix.SearchWithinQuery(ctx, Query{Text: "The museum opened in 1990.", Fields: []string{"Louvre"}}, "doc_b", 3)
	require.NoError(t, err)
	all, err := ix.SearchQuery(ctx, Query{Text: "The museum opened in 1990.", Fields: []string{"Louvre"}}, 3)
	require.NoError(t, err)
	require.Len(t, within, 1)
	assert.Equal(t, all[0].Score, within[0].Score)
	s, err := ix.ScoreQuery(Query{Text: "The museum opened in 1990.", Fields: []string{"Louvre"}}, within[0].Text)
	require.NoError(t, err)
	assert.Equal(t, within[0].Score, s, "ScoreQuery scores a text as the search does")
}

func TestQueryFieldsThatRepeatTheTextChangeNothing(t *testing.T) {
	ix := demoIndex(t)
	ctx := context.Background()
	for _, q := range []Query{
		{Text: "Meridian Rail carried 48 million passengers in 2023"},
		{Text: "Meridian Rail carried 48 million passengers in 2023", Fields: []string{}},
		// every word already in the text, whatever its case or ending
		{Text: "Meridian Rail carried 48 million passengers in 2023", Fields: []string{"Meridian Rail", "meridian", "Passenger", "the rail"}},
		{Text: "Meridian Rail carried 48 million passengers in 2023", Fields: []string{"", "  ", "of the"}},
	} {
		want, err := ix.Search(ctx, q.Text, 10)
		require.NoError(t, err)
		got, err := ix.SearchQuery(ctx, q, 10)
		require.NoError(t, err)
		assert.Equal(t, want, got, "fields %q", q.Fields)
	}
	// A text with no content word finds nothing, whatever the fields.
	hits, err := ix.SearchQuery(ctx, Query{Text: "it is what it is", Fields: []string{"Meridian Rail"}}, 5)
	require.NoError(t, err)
	assert.Empty(t, hits)
}

func TestQueryFieldWeights(t *testing.T) {
	ix := demoIndex(t)
	got := ix.analyse(Query{Text: "Kestrel flight time", Fields: []string{"Kestrel X2", "the drone", "2023"}})
	weights := map[string]float64{}
	for _, w := range got {
		weights[w.term] = w.weight
	}
	assert.Equal(t, boostWord, weights["kestrel"], "the text's first word keeps its weight")
	assert.Equal(t, boostEntity, weights["x2"], "a field word with a digit weighs as a number")
	assert.Equal(t, boostWord, weights["drone"])
	assert.Equal(t, boostNumber, weights["2023"])
	_, the := weights["the"]
	assert.False(t, the, "stop words stay out")
	assert.Len(t, got, 6)
}
