package lexical

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newDefault(t *testing.T) adjudicate.Verifier {
	v, err := New("", nil)
	require.NoError(t, err)
	return v
}

func TestConformance(t *testing.T) {
	adjudicatetest.Run(t, newDefault)
}

func TestEmbeddedWeightsHaveProvenance(t *testing.T) {
	w, err := ParseWeights(DefaultWeights())
	require.NoError(t, err)
	tr, ok := w.Provenance["training"].(map[string]any)
	require.True(t, ok, "training metrics recorded")
	assert.Greater(t, tr["macro_f1"], 0.5)
	sets, ok := w.Provenance["sets"].([]any)
	require.True(t, ok, "training sets recorded")
	var names []string
	for _, s := range sets {
		m := s.(map[string]any)
		names = append(names, m["name"].(string))
		assert.Len(t, m["inputs"].(map[string]any)["claims_sha256"], 64, m["name"])
		assert.Greater(t, m["claims"], 500.0, m["name"])
	}
	assert.Equal(t, []string{"generated", "sufficient_facts", "fm2", "citint_train", "checkcovid_train"}, names)
}

func TestBadWeightsAreRejected(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"not json":      "{",
		"wrong format":  `{"format":"x"}`,
		"wrong feature": `{"format":"claimaudit-lexical-weights","feature_version":99}`,
	} {
		p := filepath.Join(dir, "w.json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		_, err := New(p, nil)
		assert.Error(t, err, name)
	}
	_, err := New(filepath.Join(dir, "missing.json"), nil)
	assert.Error(t, err)
}

func argmax(z [3]float64) int {
	b := 0
	for k := 1; k < 3; k++ {
		if z[k] > z[b] {
			b = k
		}
	}
	return b
}

// The default weights get the clear cases right.
func TestDefaultWeightsOnClearCases(t *testing.T) {
	// 25 is a typical best-passage score of standard BM25 on the generated
	// sets (k1 0.9, b 0.4; a full match of a one-sentence passage).
	pass := func(t string) []adjudicate.Passage {
		return []adjudicate.Passage{{ID: "p", DocID: "d", Text: t, Score: 25}}
	}
	cases := []struct {
		claim, passage string
		want           int
	}{
		{"Meridian Rail employed 5,700 staff in 2023.", "Meridian Rail employed 5,700 staff at the end of 2023.", adjudicate.Supported},
		{"Meridian Rail employed about 5,700 staff in 2023.", "Meridian Rail employed 5,700 staff at the end of 2023.", adjudicate.Supported},
		{"Meridian Rail employed 9,100 staff in 2023.", "Meridian Rail employed 5,700 staff at the end of 2023.", adjudicate.Unsupported},
		{"Meridian Rail was not founded in 1901.", "Meridian Rail was founded in 1901.", adjudicate.Unsupported},
		{"Zorblat Foods employed 5,700 staff in 2023.", "Meridian Rail employed 5,700 staff at the end of 2023.", adjudicate.Insufficient},
	}
	v := newDefault(t)
	for _, c := range cases {
		got, err := v.Verify(context.Background(), []adjudicate.Pair{{ClaimID: "c", Claim: c.claim, Passages: pass(c.passage)}})
		require.NoError(t, err)
		assert.Equal(t, c.want, argmax(got[0].Logits), "%q vs %q: logits %v (%s)", c.claim, c.passage, got[0].Logits, got[0].Rationale)
		assert.Contains(t, got[0].Rationale, "d [")
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	var ex []Example
	for i, p := range adjudicatetest.Pairs() {
		ex = append(ex, Example{Pair: p, Label: i % 3})
	}
	a, _, err := Train(ex, nil, TrainOptions{})
	require.NoError(t, err)
	b, _, err := Train(ex, nil, TrainOptions{})
	require.NoError(t, err)
	assert.Equal(t, a, b)
	_, _, err = Train(nil, nil, TrainOptions{})
	assert.Error(t, err)
}

func TestVersionFollowsWeights(t *testing.T) {
	v := newDefault(t).(*Verifier)
	assert.Regexp(t, `^lexical/[0-9a-f]{12}$`, v.Version())
}

func BenchmarkVerify(b *testing.B) {
	v, err := New("", nil)
	if err != nil {
		b.Fatal(err)
	}
	pairs := adjudicatetest.Pairs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(context.Background(), pairs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// The passage cache changes nothing but speed: verdicts with it equal
// verdicts without it, also when it is small enough to turn over.
func TestPassageCacheKeepsVerdicts(t *testing.T) {
	pairs := adjudicatetest.Pairs()
	for _, size := range []int{2, 1000} {
		cache := newPassageCache(size)
		for round := 0; round < 3; round++ {
			for _, p := range pairs {
				want, wantBest := Features(p, nil)
				got, gotBest := features(p, nil, cache)
				require.Equal(t, want, got, "cache %d, round %d, claim %s", size, round, p.ClaimID)
				require.Equal(t, wantBest, gotBest)
			}
		}
		assert.LessOrEqual(t, cache.m.Len(), size)
	}
}

// Consecutive pairs of one claim (a cited document's chunks) analyse the
// claim once, after all their passages: each verdict is the one the pair
// gets alone from a fresh verifier — also for a chunk verified before the
// chunk that holds the claim's words, and when the claim comes back after
// another claim's pairs.
func TestVerifyGroupsChunksOfOneClaim(t *testing.T) {
	claimA := "Meridian Rail carried 48.2 million passengers in 2023 on the Harbour line."
	claimB := "The average depth of Lake Orrin is 18 metres."
	chunk := func(claim, text string) adjudicate.Pair {
		return adjudicate.Pair{ClaimID: claim[:8], Claim: claim, Passages: []adjudicate.Passage{{ID: text[:12], Text: text, Score: 3}}}
	}
	batch := []adjudicate.Pair{
		chunk(claimA, "The timetable changed in spring. Trains ran every ten minutes at peak."),
		chunk(claimA, "Meridian Rail carried 48.2 million passengers in 2023, up 6% from 2022, most on the Harbour line."),
		chunk(claimA, "Meridian Rail carried 41 million passengers in 2023."),
		chunk(claimB, "Lake Orrin is 40 metres deep at its centre."),
		chunk(claimA, "The Harbour line opened in 1911 and was extended in 1932."),
		{ClaimID: "none", Claim: claimA},
	}
	got, err := newDefault(t).Verify(context.Background(), batch)
	require.NoError(t, err)
	require.Len(t, got, len(batch))
	for i, p := range batch {
		alone, err := newDefault(t).Verify(context.Background(), []adjudicate.Pair{p})
		require.NoError(t, err)
		assert.Equal(t, alone[0], got[i], "pair %d", i)
	}
	assert.NotEqual(t, got[0].Logits, got[1].Logits, "the chunks are told apart")
}
