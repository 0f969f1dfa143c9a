package corpus

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Search scores are the textbook formula of docs/format/index.md, computed
// here the slow way from the analysed text of every passage.
func TestScoresAreStandardBM25(t *testing.T) {
	ix := demoIndex(t)
	c, err := Load(context.Background(), demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	type doc struct {
		id  string
		tf  map[string]int
		len int
	}
	var docs []doc
	total := 0
	df := map[string]int{}
	require.NoError(t, c.Passages(DefaultPassageSettings, func(p Passage) error {
		d := doc{id: p.ID, tf: map[string]int{}}
		for _, tok := range ix.Tokens(p.Text) {
			if d.tf[tok] == 0 {
				df[tok]++
			}
			d.tf[tok]++
			d.len++
		}
		total += d.len
		docs = append(docs, d)
		return nil
	}))
	n := float64(len(docs))
	avg := float64(total) / n
	for _, q := range []string{"Meridian Rail passengers 2023", "Lake Orrin depth metres", "university enrolled students", "renewable share of electricity"} {
		type scoredDoc struct {
			id    string
			score float64
		}
		var want []scoredDoc
		for _, d := range docs {
			s := 0.0
			for _, wt := range ix.QueryWeights(q) {
				tf := float64(d.tf[wt.Term])
				if tf == 0 {
					continue
				}
				idf := math.Log(1 + (n-float64(df[wt.Term])+0.5)/(float64(df[wt.Term])+0.5))
				s += wt.Weight * idf * tf * (BM25K1 + 1) / (tf + BM25K1*(1-BM25B+BM25B*float64(d.len)/avg))
			}
			if s > 0 {
				want = append(want, scoredDoc{d.id, math.Round(s*1e9) / 1e9})
			}
		}
		sort.Slice(want, func(i, j int) bool {
			if want[i].score != want[j].score {
				return want[i].score > want[j].score
			}
			return want[i].id < want[j].id
		})
		hits, err := ix.Search(context.Background(), q, 5)
		require.NoError(t, err)
		require.Len(t, hits, min(5, len(want)), q)
		for i, h := range hits {
			assert.Equal(t, want[i].id, h.ID, "%q rank %d", q, i+1)
			assert.InDelta(t, want[i].score, h.Score, 1e-8, "%q rank %d", q, i+1)
		}
	}
}

// A search within one document gives its passages the scores the whole
// collection search gives them.
func TestSearchWithinKeepsCollectionScores(t *testing.T) {
	ix := demoIndex(t)
	ctx := context.Background()
	all, err := ix.Search(ctx, "Meridian Rail passengers 2023", 39)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	doc := all[len(all)-1].DocID
	within, err := ix.SearchWithin(ctx, "Meridian Rail passengers 2023", doc, 39)
	require.NoError(t, err)
	var want []Hit
	for _, h := range all {
		if h.DocID == doc {
			h.Rank = len(want) + 1
			want = append(want, h)
		}
	}
	assert.Equal(t, want, within)
	none, err := ix.SearchWithin(ctx, "Meridian Rail", "no-such-doc", 5)
	require.NoError(t, err)
	assert.Empty(t, none)
}
