package corpus

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	demoCorpus = "testdata/small/corpus.jsonl"
	demoSpans  = "testdata/small/spans.jsonl"
)

func demoIndex(t *testing.T) *Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	_, err := EnsureIndex(context.Background(), EnsureRequest{Dir: dir, CorpusPath: demoCorpus, SpansPath: demoSpans})
	require.NoError(t, err)
	ix, err := OpenIndex(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ix.Close() })
	return ix
}

func TestSearchFindsTheEvidence(t *testing.T) {
	ix := demoIndex(t)
	tests := []struct {
		query   string
		wantDoc string
	}{
		{"Meridian Rail carried 48 million passengers in 2023", "doc_001"},
		{"How deep is Lake Orrin?", "doc_003"},
		{"Café Lumière opened in Saint-Étienne", "doc_004"},
		{"the Kestrel X2 flight time", "doc_007"},
		{"Harbour Bridge completed 1932", "doc_009"},
		{"server logs deleted after 90 days", "doc_012"},
	}
	for _, tt := range tests {
		hits, err := ix.Search(context.Background(), tt.query, 3)
		require.NoError(t, err)
		require.NotEmpty(t, hits, tt.query)
		assert.Equal(t, tt.wantDoc, hits[0].DocID, "query %q: top hit %+v", tt.query, hits[0])
		for i, h := range hits {
			assert.Equal(t, i+1, h.Rank)
			assert.Positive(t, h.Score)
			if i > 0 {
				assert.GreaterOrEqual(t, hits[i-1].Score, h.Score, "ranked best first")
			}
			d := docText(t, h.DocID)
			assert.Equal(t, h.Text, Slice(d, h.Start, h.End), "stored offsets point at the stored text")
		}
	}
}

func docText(t *testing.T, id string) string {
	c, err := Load(context.Background(), demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	d, ok := c.Doc(id)
	require.True(t, ok)
	return d.Text
}

func TestSearchReturnsSpanProvenance(t *testing.T) {
	ix := demoIndex(t)
	hits, err := ix.Search(context.Background(), "Members may borrow up to 12 items", 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "span_014", hits[0].SpanID)
	assert.Equal(t, "span_014", hits[0].ID)
	assert.Equal(t, "doc_008", hits[0].DocID)
}

func TestSearchWithoutContentWords(t *testing.T) {
	ix := demoIndex(t)
	hits, err := ix.Search(context.Background(), "it is what it is", 5)
	require.NoError(t, err)
	assert.Empty(t, hits)
}

func TestSearchIsDeterministicAndConcurrent(t *testing.T) {
	ix := demoIndex(t)
	queries := []string{"renewable share 42%", "passengers 2022", "university founded", "solar farm homes", "drone price"}
	want := map[string][]Hit{}
	for _, q := range queries {
		h, err := ix.Search(context.Background(), q, 5)
		require.NoError(t, err)
		want[q] = h
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				q := queries[(g+i)%len(queries)]
				h, err := ix.Search(context.Background(), q, 5)
				assert.NoError(t, err)
				assert.Equal(t, want[q], h)
			}
		}()
	}
	wg.Wait()
}

func TestQueryTerms(t *testing.T) {
	got := QueryTerms("The U.S. and the UK said that 5,700 staff at Meridian Rail were not paid in 2023.")
	var words []string
	boost := map[string]float64{}
	for _, term := range got {
		words = append(words, term.Text)
		boost[term.Text] = term.Boost
	}
	assert.Equal(t, []string{"U.S", "UK", "said", "5,700", "staff", "Meridian", "Rail", "not", "paid", "2023"}, words)
	assert.Equal(t, boostNumber, boost["5,700"])
	assert.Equal(t, boostNumber, boost["2023"])
	assert.Equal(t, boostEntity, boost["Meridian"])
	assert.Equal(t, boostEntity, boost["UK"])
	assert.Equal(t, boostWord, boost["staff"])
	assert.Equal(t, []Term{{"US", boostEntity}, {"economy", boostWord}}, QueryTerms("US economy"), "an all-caps acronym survives though 'us' is a stop word")
	assert.Empty(t, QueryTerms("it is what it is"))
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

func TestEnsureIndexReusesAndRebuilds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cp, sp, idx := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "idx")
	copyFile(t, demoCorpus, cp)
	copyFile(t, demoSpans, sp)
	req := EnsureRequest{Dir: idx, CorpusPath: cp, SpansPath: sp}

	res, err := EnsureIndex(ctx, req)
	require.NoError(t, err)
	assert.False(t, res.Reused)
	assert.Equal(t, "no index", res.Reason)
	first := res.Manifest

	res, err = EnsureIndex(ctx, req)
	require.NoError(t, err)
	assert.True(t, res.Reused, "unchanged inputs reuse the index")
	assert.Equal(t, first.CreatedAt, res.Manifest.CreatedAt)

	// Moving the files does not matter; their content does.
	cp2 := filepath.Join(dir, "moved.jsonl")
	copyFile(t, cp, cp2)
	res, err = EnsureIndex(ctx, EnsureRequest{Dir: idx, CorpusPath: cp2, SpansPath: sp})
	require.NoError(t, err)
	assert.True(t, res.Reused)

	req.Force = true
	res, err = EnsureIndex(ctx, req)
	require.NoError(t, err)
	assert.False(t, res.Reused)
	assert.Equal(t, "--force", res.Reason)
	req.Force = false

	f, err := os.OpenFile(cp, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"doc_id":"new","text":"A brand new zeppelin document."}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	res, err = EnsureIndex(ctx, req)
	require.NoError(t, err)
	assert.False(t, res.Reused)
	assert.Contains(t, res.Reason, "changed")
	assert.Equal(t, first.Counts.Documents+1, res.Manifest.Counts.Documents)
	ix, err := OpenIndex(idx)
	require.NoError(t, err)
	hits, err := ix.Search(ctx, "zeppelin", 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "new", hits[0].DocID, "the rebuilt index holds the new document")
	require.NoError(t, ix.Close())

	req.Index.Passages = PassageSettings{WindowSentences: 1, WindowStride: 1, MaxChars: 500}
	res, err = EnsureIndex(ctx, req)
	require.NoError(t, err)
	assert.False(t, res.Reused)
	assert.Contains(t, res.Reason, "passage settings")
}

func TestInvalidInputLeavesOldIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cp, idx := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "idx")
	copyFile(t, demoCorpus, cp)
	_, err := EnsureIndex(ctx, EnsureRequest{Dir: idx, CorpusPath: cp})
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(idx, ManifestFile))
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(cp, []byte(`{"doc_id":"x"}`+"\n"), 0o644))
	_, err = EnsureIndex(ctx, EnsureRequest{Dir: idx, CorpusPath: cp})
	var list *jsonl.ErrorList
	require.ErrorAs(t, err, &list)
	after, err := os.ReadFile(filepath.Join(idx, ManifestFile))
	require.NoError(t, err)
	assert.Equal(t, before, after)
	ix, err := OpenIndex(idx)
	require.NoError(t, err, "the old index still opens")
	ix.Close()
}

func TestHalfBuiltIndexIsNotAnIndex(t *testing.T) {
	dir := t.TempDir()
	// A bleve folder with no manifest, as a build killed before its end would leave.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bleve"), 0o755))
	_, err := OpenIndex(dir)
	assert.ErrorIs(t, err, ErrNotIndex)

	require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format":"claimaudit-index","complete":false}`), 0o644))
	_, err = OpenIndex(dir)
	assert.ErrorIs(t, err, ErrNotIndex)

	res, err := EnsureIndex(context.Background(), EnsureRequest{Dir: dir, CorpusPath: demoCorpus})
	require.NoError(t, err)
	assert.False(t, res.Reused, "an incomplete index is rebuilt")
	ix, err := OpenIndex(dir)
	require.NoError(t, err)
	ix.Close()
}

func TestBuildRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("precious"), 0o644))
	_, err := EnsureIndex(context.Background(), EnsureRequest{Dir: dir, CorpusPath: demoCorpus})
	assert.ErrorContains(t, err, "not a claimaudit index")
	b, err := os.ReadFile(filepath.Join(dir, "thesis.tex"))
	require.NoError(t, err)
	assert.Equal(t, "precious", string(b))
}

func TestCancelledBuildLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(context.Background(), demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = BuildIndex(ctx, filepath.Join(dir, "idx"), c, IndexOptions{})
	require.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no index and no temporary folder left behind")
}

func TestBuildPersistsEveryBatch(t *testing.T) {
	c, err := Load(context.Background(), demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	total := 0
	require.NoError(t, c.Passages(DefaultPassageSettings, func(Passage) error { total++; return nil }))
	// 1: many batches; total: one full batch and an empty final one; 7: a
	// partial final batch.
	for _, size := range []int{1, 7, total, total + 1} {
		dir := filepath.Join(t.TempDir(), "idx")
		m, err := BuildIndex(context.Background(), dir, c, IndexOptions{BatchSize: size})
		require.NoError(t, err)
		require.Equal(t, total, m.Counts.Passages)
		ix, err := OpenIndex(dir)
		require.NoError(t, err)
		n, err := ix.idx.DocCount()
		require.NoError(t, err)
		assert.Equal(t, uint64(total), n, "batch size %d: every passage is on disk after the build", size)
		require.NoError(t, ix.Close())
	}
}

func TestDocFreq(t *testing.T) {
	ix := demoIndex(t)
	// "meridian" is in the two Meridian Rail documents' spans and windows.
	assert.Equal(t, 4, ix.DocFreq("meridian"))
	assert.Equal(t, 0, ix.DocFreq("zeppelin"))
	assert.Positive(t, ix.DocFreq("passeng"), "terms are Porter stems")
	assert.Equal(t, 39, ix.N())
}

// Two builds of the same input score every query identically: bleve's BM25
// statistics depend on the segment layout, which the build fixes.
func TestRebuildGivesIdenticalScores(t *testing.T) {
	ctx := context.Background()
	c, err := Load(ctx, demoCorpus, demoSpans, LoadOptions{})
	require.NoError(t, err)
	var results [][]Hit
	for i, bs := range []int{1, 7, 1000} {
		dir := filepath.Join(t.TempDir(), "idx")
		_, err := BuildIndex(ctx, dir, c, IndexOptions{BatchSize: bs, Workers: 1 + i})
		require.NoError(t, err)
		ix, err := OpenIndex(dir)
		require.NoError(t, err)
		var all []Hit
		for _, q := range []string{"Meridian Rail passengers 2023", "Lake Orrin depth", "university enrolled students", "renewable share"} {
			h, err := ix.Search(ctx, q, 5)
			require.NoError(t, err)
			all = append(all, h...)
		}
		require.NoError(t, ix.Close())
		results = append(results, all)
	}
	assert.Equal(t, results[0], results[1], "batch size 1 vs 7")
	assert.Equal(t, results[0], results[2], "batch size 1 vs 1000")
}
