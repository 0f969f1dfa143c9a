package reports

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComparePairsStreamedRuns: runs read as compact rows pair by claim
// id whatever the order of B's records, with claims only in A, only in B
// and twice in B (the last pairs); the comparison is the one of B in A's
// order, and the html page's changed claims are the whole records (text,
// deciding passage), broken first.
func TestComparePairsStreamedRuns(t *testing.T) {
	a := variedRecords(11, 0, 3000)
	b := variedRecords(12, 0, 3000) // the same claims, other decisions
	for i := range b {
		b[i].GoldLabel = a[i].GoldLabel
		b[i].SourceID, b[i].ClaimType, b[i].Importance = a[i].SourceID, a[i].ClaimType, a[i].Importance
		b[i].Text = "B's " + a[i].Text
	}
	a = append(a, variedRecords(13, 7000, 40)...) // only in A
	inOrder := slices.Clone(b[:2900])             // the last 100 only... nowhere
	extra := variedRecords(14, 9000, 25)          // only in B
	shuffled := slices.Clone(inOrder)
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	stale := b[5]
	stale.PredictedLabel, stale.Abstained = nil, true
	shuffled = slices.Concat([]Record{stale}, shuffled[:1500], extra, shuffled[1500:]) // b[5] twice: the later record counts

	load := func(name string, rs []Record) *Run {
		r, err := LoadRun(writeRecords(t, name, rs))
		require.NoError(t, err)
		return r
	}
	want, err := Compare(load("a.parquet", a), load("b.parquet", inOrder), CompareOptions{Seed: 3, Resamples: 50})
	require.NoError(t, err)
	got, err := Compare(load("a.parquet", a), load("b.parquet", shuffled), CompareOptions{Seed: 3, Resamples: 50})
	require.NoError(t, err)
	assert.Equal(t, 140, got.OnlyA)
	assert.Equal(t, 25+1, got.OnlyB) // the extra claims, and b[5]'s first record
	got.A, got.B, got.OnlyB = want.A, want.B, want.OnlyB
	got.Warnings = want.Warnings // they count the claims left out
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	assert.JSONEq(t, string(wj), string(gj))

	claims, more := got.changedClaims()
	wantClaims, wantMore := want.changedClaims()
	assert.Equal(t, wantClaims, claims)
	assert.Equal(t, wantMore, more)
	require.NotEmpty(t, claims)
	byID := map[string]Record{}
	for _, r := range inOrder {
		byID[r.ClaimID] = r
	}
	sawFixed := false
	for _, c := range claims {
		assert.Equal(t, byID[c.ID].Text, c.Text, "B's whole record")
		if c.Fixed {
			sawFixed = true
		} else {
			assert.False(t, sawFixed, "broken claims come first")
		}
	}
}
