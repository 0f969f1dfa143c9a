package corpus

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"
)

// exhaustiveTopK is the term-at-a-time scorer topK replaced, kept as the
// oracle of its pruned successor: every posting of every query term is
// added to a per-passage accumulator in query-term order, then the touched
// passages go through a heap of the k best.
func exhaustiveTopK(s *scorer, q []weightedTerm, k int, within int32) []scored {
	if k <= 0 || len(q) == 0 || s.n == 0 {
		return nil
	}
	score := make([]float64, s.n)
	var touched []int32
	const k1p1 = BM25K1 + 1
	for _, wt := range q {
		tp, ok := s.terms[wt.term]
		if !ok {
			continue
		}
		w := wt.weight * tp.idf * k1p1
		ords, tfs := s.ords[tp.start:tp.end], s.tfs[tp.start:tp.end]
		for i, o := range ords {
			tf := float64(tfs[i])
			if score[o] == 0 {
				touched = append(touched, o)
			}
			score[o] += w * tf / (tf + s.norm[o])
		}
	}
	// A min-heap of the k best so far, worst at the root.
	heap := make([]scored, 0, k)
	for _, o := range touched {
		raw := score[o]
		score[o] = 0
		if within >= 0 && s.docOf[o] != within {
			continue
		}
		c := scored{o, math.Round(raw * scoreScale)}
		if len(heap) < k {
			heap = append(heap, c)
			up(heap, len(heap)-1)
			continue
		}
		if better(c, heap[0]) {
			heap[0] = c
			down(heap, 0)
		}
	}
	slices.SortFunc(heap, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	for i := range heap {
		heap[i].score /= scoreScale
	}
	return heap
}

// exhaustiveSearch is Search (docID "") or SearchWithin as they were: the
// exhaustive scorer, and stored fields read through bleve's Document.
func exhaustiveSearch(tb testing.TB, ix *Index, text string, k int, docID string) []Hit {
	tb.Helper()
	terms := QueryTerms(text)
	if len(terms) == 0 || k <= 0 {
		return nil
	}
	s, err := ix.load()
	require.NoError(tb, err)
	within := int32(-1)
	if docID != "" {
		n, ok := s.docs[docID]
		if !ok {
			return nil
		}
		within = n
	}
	top := exhaustiveTopK(s, analyseQuery(ix.analyzer, terms), k, within)
	hits := make([]Hit, 0, len(top))
	for i, c := range top {
		h, err := ix.stored(s.ids[c.ord])
		require.NoError(tb, err)
		h.Rank, h.Score = i+1, c.score
		hits = append(hits, h)
	}
	return hits
}

// requireSameSearch compares Search or SearchWithin with the exhaustive
// path on one query; it returns the number of hits.
func requireSameSearch(tb testing.TB, ix *Index, text string, k int, docID string) int {
	tb.Helper()
	want := exhaustiveSearch(tb, ix, text, k, docID)
	var got []Hit
	var err error
	if docID == "" {
		got, err = ix.Search(context.Background(), text, k)
	} else {
		got, err = ix.SearchWithin(context.Background(), text, docID, k)
	}
	require.NoError(tb, err)
	require.Equal(tb, want, got, "query %q k=%d within %q", text, k, docID)
	for i := range want { // to the bit, not only as Equal's ObjectsAreEqual sees floats
		require.Equal(tb, math.Float64bits(want[i].Score), math.Float64bits(got[i].Score))
	}
	return len(got)
}

func openIndexOf(tb testing.TB, corpusPath, spansPath string) *Index {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "idx")
	_, err := EnsureIndex(context.Background(), EnsureRequest{Dir: dir, CorpusPath: corpusPath, SpansPath: spansPath})
	require.NoError(tb, err)
	ix, err := OpenIndex(dir)
	require.NoError(tb, err)
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// randomQueries checks topK against the exhaustive scorer on random
// analysed queries over the index's own terms: common and rare terms,
// repeated terms, terms the index lacks, boosts as query words sum them,
// k from 1 to 50, over the whole collection and within one document.
func randomQueries(t *testing.T, ix *Index, n int, seed uint64) (hits, withinHits int) {
	s, err := ix.load()
	require.NoError(t, err)
	var vocab []string
	for term := range s.terms {
		vocab = append(vocab, term)
	}
	slices.Sort(vocab)
	// Terms drawn in proportion to their postings (the common ones) half
	// the time, uniformly (mostly rare ones) otherwise.
	var byPosting []string
	for _, term := range vocab {
		for range min(s.docFreq(term), 200) {
			byPosting = append(byPosting, term)
		}
	}
	docs := make([]int32, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	slices.Sort(docs)
	rng := rand.New(rand.NewPCG(seed, 25))
	boosts := []float64{boostWord, boostNumber, boostWord + boostEntity, 2 * boostNumber, 0.25}
	for range n {
		var q []weightedTerm
		for range 1 + rng.IntN(12) {
			var term string
			switch r := rng.IntN(20); {
			case r == 0:
				term = "zzznotaterm"
			case r == 1 && len(q) > 0:
				term = q[rng.IntN(len(q))].term // a repeated term
			case r < 11:
				term = byPosting[rng.IntN(len(byPosting))]
			default:
				term = vocab[rng.IntN(len(vocab))]
			}
			q = append(q, weightedTerm{term, boosts[rng.IntN(len(boosts))]})
		}
		k := 1 + rng.IntN(50)
		within := int32(-1)
		switch rng.IntN(6) {
		case 0: // any document, mostly one without the terms
			within = docs[rng.IntN(len(docs))]
		case 1, 2: // a document with a passage holding one of the terms
			if tp, ok := s.terms[q[rng.IntN(len(q))].term]; ok {
				within = s.docOf[s.ords[tp.start+rng.IntN(tp.end-tp.start)]]
			}
		}
		want := exhaustiveTopK(s, q, k, within)
		got := s.topK(q, k, within)
		require.Equal(t, want, got, "query %v k=%d within %d", q, k, within)
		if within >= 0 {
			withinHits += len(got)
		} else {
			hits += len(got)
		}
	}
	return hits, withinHits
}

// exhaustiveRaw is the unrounded score the exhaustive scorer sums for each
// passage the query touches.
func exhaustiveRaw(s *scorer, q []weightedTerm) map[int32]float64 {
	raw := map[int32]float64{}
	const k1p1 = BM25K1 + 1
	for _, wt := range q {
		tp, ok := s.terms[wt.term]
		if !ok {
			continue
		}
		w := wt.weight * tp.idf * k1p1
		for i := tp.start; i < tp.end; i++ {
			o, tf := s.ords[i], float64(s.tfs[i])
			raw[o] += w * tf / (tf + s.norm[o])
		}
	}
	return raw
}

// A passage's score before rounding is, to the bit, the sum the exhaustive
// scorer made in query-term order: rounding to 1e-9 would hide most
// changes of the summation order, not all of them.
func TestExactScoreIsTheTermAtATimeSum(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	cp, sp, _ := writeBenchCorpus(t, t.TempDir(), 1000)
	ix := openIndexOf(t, cp, sp)
	s, err := ix.load()
	require.NoError(t, err)
	var vocab []string
	for term := range s.terms {
		vocab = append(vocab, term)
	}
	slices.Sort(vocab)
	rng := rand.New(rand.NewPCG(3, 25))
	checked := 0
	for range n {
		var q []weightedTerm
		for range 2 + rng.IntN(30) {
			q = append(q, weightedTerm{vocab[rng.IntN(len(vocab))], []float64{1, 1.5, 2.5}[rng.IntN(3)]})
		}
		want := exhaustiveRaw(s, q)
		ords := slices.Sorted(maps.Keys(want))
		terms := s.cursors(q, nil)
		for _, o := range ords {
			for i := range terms {
				terms[i].seek(o)
			}
			got := s.exactScore(terms, o)
			require.Equal(t, math.Float64bits(want[o]), math.Float64bits(got), "passage %d of query %v", o, q)
			checked++
		}
	}
	require.Greater(t, checked, 10*n)
}

// The pruned topK returns exactly what scoring every passage returned, on
// 6,000 random queries over a 2,000-document index of Zipf-distributed
// words and 4,000 over an index of repeated sentences where most queries
// tie at the cut-off.
func TestTopKEqualsExhaustive(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	dir := t.TempDir()
	cp, sp, _ := writeBenchCorpus(t, dir, 2000)
	ix := openIndexOf(t, cp, sp)
	hits, within := randomQueries(t, ix, 2*n, 1)
	t.Logf("zipf index: %d hits, %d within one document", hits, within)
	require.Greater(t, hits, n)
	require.Greater(t, within, n)

	tcp, tsp, _ := writeTieCorpus(t, t.TempDir(), 1500, 0)
	tix := openIndexOf(t, tcp, tsp)
	hits, within = randomQueries(t, tix, n+n/3, 2)
	t.Logf("tie index: %d hits, %d within one document", hits, within)
	require.Greater(t, hits, n)
}

// Search and SearchWithin, text to hits (stored fields included), equal the
// exhaustive path for every k from 1 to 50 on the bench and tie corpora's
// queries, with duplicated words and no content words among them.
func TestSearchEqualsExhaustiveEveryK(t *testing.T) {
	dir := t.TempDir()
	cp, sp, queries := writeBenchCorpus(t, dir, 2000)
	ix := openIndexOf(t, cp, sp)
	tcp, tsp, tqs := writeTieCorpus(t, t.TempDir(), 1500, 40)
	tix := openIndexOf(t, tcp, tsp)
	extra := []string{"Meridian Meridian meridian MERIDIAN 1950 1950", "the of and", "", "Orrin Orrin Orrin", "zzz unknown words"}
	for _, c := range []struct {
		ix      *Index
		queries []string
	}{{ix, append(queries[:40], extra...)}, {tix, append(tqs, extra...)}} {
		for _, q := range c.queries {
			all, err := c.ix.Search(context.Background(), q, 50)
			require.NoError(t, err)
			docs := []string{"no-such-doc"}
			if len(all) > 0 {
				docs = append(docs, all[0].DocID, all[len(all)-1].DocID)
			}
			for k := 1; k <= 50; k++ {
				requireSameSearch(t, c.ix, q, k, "")
				for _, d := range docs {
					requireSameSearch(t, c.ix, q, k, d)
				}
			}
		}
	}
}

// claimTexts reads the text and cites of every claim of a claims file.
func claimTexts(tb testing.TB, path string) (texts []string, cites [][]string) {
	tb.Helper()
	f, err := os.Open(path)
	require.NoError(tb, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var c struct {
			Text string   `json:"text"`
			Cite []string `json:"cite"`
		}
		require.NoError(tb, json.Unmarshal(sc.Bytes(), &c))
		texts = append(texts, c.Text)
		cites = append(cites, c.Cite)
	}
	require.NoError(tb, sc.Err())
	return texts, cites
}

// sameOnSet compares every claim's retrieval (k = 5 as audit run asks, and
// 1 and 20) with the exhaustive path, within each cited document and within
// the document of the claim's best hit as well.
func sameOnSet(t *testing.T, dir string) {
	ix := openIndexOf(t, filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "spans.jsonl"))
	texts, cites := claimTexts(t, filepath.Join(dir, "claims.jsonl"))
	hits := 0
	for i, text := range texts {
		for _, k := range []int{5, 1, 20} {
			hits += requireSameSearch(t, ix, text, k, "")
		}
		docs := cites[i]
		if all, err := ix.Search(context.Background(), text, 1); err == nil && len(all) > 0 {
			docs = append(docs, all[0].DocID)
		}
		for _, d := range docs {
			hits += requireSameSearch(t, ix, text, 5, d)
		}
	}
	t.Logf("%s: %d claims, %d hits equal", filepath.Base(dir), len(texts), hits)
	require.Greater(t, hits, len(texts))
}

// The demo set's claims, and those of the corpus package's small test set.
func TestSearchEqualsExhaustiveOnDemo(t *testing.T) {
	sameOnSet(t, filepath.Join("..", "benchdata", "demo"))
}

// Every claim of the real sets (DATA names their folder; the Makefile
// passes it), retrieved as audit run retrieves it, equals the exhaustive
// path.
func TestSearchEqualsExhaustiveOnRealSets(t *testing.T) {
	dir := os.Getenv("DATA")
	if dir == "" {
		t.Skip("DATA unset: no real sets to compare on (make test DATA=folder)")
	}
	for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
		t.Run(set, func(t *testing.T) { sameOnSet(t, filepath.Join(dir, set)) })
	}
}

// Reading stored fields by segment and number gives what bleve's Document
// gives, for every passage.
func TestStoredAtEqualsDocument(t *testing.T) {
	for _, c := range [][2]string{{demoCorpus, demoSpans}, {"", ""}} {
		if c[0] == "" {
			dir := t.TempDir()
			c[0], c[1], _ = writeTieCorpus(t, dir, 1500, 0)
		}
		ix := openIndexOf(t, c[0], c[1])
		s, err := ix.load()
		require.NoError(t, err)
		require.NotEmpty(t, ix.segs, "the index is read from a scorch snapshot")
		for o, id := range s.ids {
			want, err := ix.stored(id)
			require.NoError(t, err)
			got, err := ix.storedAt(s, int32(o))
			require.NoError(t, err)
			require.Equal(t, want, got, "passage %s", id)
		}
		require.NotEmpty(t, s.ids)
	}
}

// Any claim text retrieves what the exhaustive path retrieves, over the
// whole demo collection and within a document.
func FuzzSearchEqualsExhaustive(f *testing.F) {
	for _, s := range []string{"Meridian Rail carried 48 million passengers in 2023", "How deep is Lake Orrin?",
		"Café Lumière opened in Saint-Étienne", "the the the", "U.S. 5,700 5.7 Orrin-Orrin"} {
		f.Add(s, uint8(5))
	}
	ix := openIndexOf(f, demoCorpus, demoSpans)
	f.Fuzz(func(t *testing.T, text string, k uint8) {
		kk := int(k%60) + 1
		requireSameSearch(t, ix, text, kk, "")
		for _, d := range []string{"doc_001", "doc_003", fmt.Sprint("doc_0", k%20)} {
			requireSameSearch(t, ix, text, kk, d)
		}
	})
}

// Searches from several goroutines at once (audit run retrieves with one
// per core, sharing the query scratch pool) give each what one goroutine
// gets alone.
func TestConcurrentSearchesAgree(t *testing.T) {
	ix := openIndexOf(t, demoCorpus, demoSpans)
	texts, _ := claimTexts(t, filepath.Join("..", "benchdata", "demo", "claims.jsonl"))
	want := make([][]Hit, len(texts))
	for i, q := range texts {
		var err error
		want[i], err = ix.Search(context.Background(), q, 1+i%20)
		require.NoError(t, err)
	}
	var g errgroup.Group
	for w := range 4 {
		g.Go(func() error {
			for i := w; i < len(texts); i += 2 {
				got, err := ix.Search(context.Background(), texts[i], 1+i%20)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(want[i], got) {
					return fmt.Errorf("query %q: %v, alone %v", texts[i], got, want[i])
				}
			}
			return nil
		})
	}
	require.NoError(t, g.Wait())
}
