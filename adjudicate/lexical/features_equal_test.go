package lexical

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/claimaudit/claimaudit/sentence"
)

// Features with interned passages and scanners equal the code they
// replaced (features_oracle_test.go), bit for bit, whatever the cache:
// shared by all pairs (the vocabulary then holds every passage's words),
// small enough to turn over, or none.

func bitsOf(f [nf]float64) [nf]uint64 {
	var b [nf]uint64
	for i, v := range f {
		b[i] = math.Float64bits(v)
	}
	return b
}

// featuresEqualOracle fails t where features(pair) with cache and the old
// code differ.
func featuresEqualOracle(t testing.TB, pair adjudicate.Pair, stats Stats, cache *passageCache, oldCache map[string]*oldDoc) {
	want, wantBest := oldFeatures(pair, stats, oldCache)
	got, gotBest := features(pair, stats, cache)
	if bitsOf(want) != bitsOf(got) || wantBest != gotBest {
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
				t.Errorf("feature %d %s: want %v, got %v", i, FeatureNames[i], want[i], got[i])
			}
		}
		t.Fatalf("claim %q with %d passages (first %q): best %d, want %d", pair.Claim, len(pair.Passages), firstText(pair), gotBest, wantBest)
	}
}

func firstText(p adjudicate.Pair) string {
	if len(p.Passages) == 0 {
		return ""
	}
	return p.Passages[0].Text
}

// fakeStats gives document frequencies from a hash of the stem, so idf
// varies by stem as an index's does.
type fakeStats struct{}

func (fakeStats) N() int { return 10000 }
func (fakeStats) DocFreq(s string) int {
	h := 0
	for _, c := range []byte(s) {
		h = h*31 + int(c)
	}
	return (h & 0x7fffffff) % 3000
}

var _ Stats = fakeStats{}

// The vocabulary of generated pairs: words of every list the features read
// (stop words, antonyms, cue words), names, numbers with units, years,
// sentence ends, apostrophes and the odd runes of scanPieces.
var pairPieces = func() []string {
	p := []string{"Meridian", "Rail", "Karo", "Ridge", "Olga", "Briel", "Guns", "N'", "Roses", "staff", "residents", "employed", "covers",
		"square", "kilometres", "mayor", "chartered", "river", "population", "revenue", "grew", "growth", "growing", "running", "runs",
		"5,700", "870,000", "12%", "3.5", "$4 million", "40 km", "1,200 people", "twice", "half", "2023", "1999", "2010", "1850", "in 2022",
		"January", "May", "2", "300", "12.5", "million", ".", ".", ".", ",", ";", ":", "!", "?", "(", ")", "'", "’", "-", "\n", "Dr.", "U.S.",
		"don't", "isn't", "won't", "can't", "need not", "it is possible", "\u212Anown", "ſome", "İstanbul", "é", "日本", "\xff", "x"}
	for w := range stop {
		p = append(p, w)
	}
	for w := range antonyms {
		p = append(p, w, strings.ToUpper(w[:1])+w[1:])
	}
	for _, c := range []*cueWords{hedgeWords, qualifierWords, absoluteWords, negationWords} {
		for _, ws := range c.byFirst {
			p = append(p, ws...)
		}
	}
	sort.Strings(p) // map order must not decide the texts
	return p
}()

func pairText(r *rand.Rand, words []string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 && r.IntN(5) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// generatedPairs are claims with up to 5 passages, the passages drawn from
// a pool so that they recur (as retrieval makes them), often sharing the
// claim's words.
func generatedPairs(seed uint64, n int) []adjudicate.Pair {
	r := rand.New(rand.NewPCG(seed, 7))
	var pool []string
	for range n / 4 {
		pool = append(pool, pairText(r, pairPieces, 5+r.IntN(60)))
	}
	var pairs []adjudicate.Pair
	for i := range n {
		claim := pairText(r, pairPieces, 1+r.IntN(20))
		var ps []adjudicate.Passage
		k := r.IntN(6)
		for j := range k {
			text := pool[r.IntN(len(pool))]
			if r.IntN(3) == 0 { // the claim's words in a passage
				text = text + " " + claim + " " + pairText(r, pairPieces, r.IntN(10))
			}
			ps = append(ps, adjudicate.Passage{ID: fmt.Sprint("p", j), DocID: "d", Text: text, Score: float64(r.IntN(40)) - 2})
		}
		pairs = append(pairs, adjudicate.Pair{ClaimID: fmt.Sprint("c", i), Claim: claim, Passages: ps})
	}
	return pairs
}

func TestFeaturesEqualOracleOnGeneratedPairs(t *testing.T) {
	pairs := generatedPairs(1, 6000)
	shared, small := newPassageCache(100000), newPassageCache(50)
	oldCache := map[string]*oldDoc{}
	for i, p := range pairs {
		stats := Stats(fakeStats{})
		if i%3 == 0 {
			stats = nil
		}
		featuresEqualOracle(t, p, stats, shared, oldCache)
		featuresEqualOracle(t, p, stats, small, oldCache)
		if i%10 == 0 {
			featuresEqualOracle(t, p, stats, nil, nil)
		}
	}
}

// The conformance suite's pairs, through the verifier's own cache.
func TestFeaturesEqualOracleOnConformancePairs(t *testing.T) {
	cache := newPassageCache(passageCacheSize)
	for range 2 {
		for _, p := range adjudicatetest.Pairs() {
			featuresEqualOracle(t, p, fakeStats{}, cache, nil)
		}
	}
}

// Real prose: the demo and, with DATA, the four real sets. Each claim is
// paired with the five passages (spans, document lines, whole documents)
// that share most of its words, one cache shared by the set.
func TestFeaturesEqualOracleOnRealSets(t *testing.T) {
	n := 0
	for _, dir := range dataDirs(t) {
		pairs := realPairs(t, dir)
		cache, oldCache := newPassageCache(passageCacheSize), map[string]*oldDoc{}
		for _, p := range pairs {
			featuresEqualOracle(t, p, fakeStats{}, cache, oldCache)
			n++
		}
	}
	require.Greater(t, n, 500)
}

// dataDirs are the demo and the real sets under DATA (when it is set).
func dataDirs(t testing.TB) []string {
	dirs := []string{filepath.Join("..", "..", "benchdata", "demo")}
	if d := os.Getenv("DATA"); d != "" {
		for _, s := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
			dirs = append(dirs, filepath.Join(d, s))
		}
	} else {
		t.Log("DATA unset: the demo only (make test DATA=folder adds the real sets)")
	}
	return dirs
}

func readJSONL(t testing.TB, path string, each func(m map[string]any)) {
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), path)
		each(m)
	}
	require.NoError(t, sc.Err())
}

type setTexts struct {
	claims   []string
	passages []string // spans, document lines, documents
}

func readSet(t testing.TB, dir string) setTexts {
	var s setTexts
	docs := map[string]string{}
	readJSONL(t, filepath.Join(dir, "corpus.jsonl"), func(m map[string]any) {
		text, _ := m["text"].(string)
		id, _ := m["doc_id"].(string)
		docs[id] = text
		s.passages = append(s.passages, text)
		if strings.Contains(text, "\n") {
			s.passages = append(s.passages, strings.Split(text, "\n")...)
		}
	})
	readJSONL(t, filepath.Join(dir, "spans.jsonl"), func(m map[string]any) {
		doc := docs[fmt.Sprint(m["doc_id"])]
		b, okb := m["start"].(float64)
		e, oke := m["end"].(float64)
		if okb && oke && 0 <= b && b <= e && int(e) <= len(doc) {
			s.passages = append(s.passages, doc[int(b):int(e)])
		}
	})
	readJSONL(t, filepath.Join(dir, "claims.jsonl"), func(m map[string]any) {
		if text, ok := m["text"].(string); ok {
			s.claims = append(s.claims, text)
		}
	})
	return s
}

// realTexts are the texts of dataDirs and their sentences.
func realTexts(t testing.TB) []string {
	var out []string
	for _, dir := range dataDirs(t) {
		s := readSet(t, dir)
		for _, text := range append(s.claims, s.passages...) {
			out = append(out, text)
			runes := []rune(text)
			for _, sp := range sentence.Split(runes) {
				out = append(out, string(runes[sp[0]:sp[1]]))
			}
		}
	}
	return out
}

func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isLetterOrNumber(r) })
}

func realPairs(t testing.TB, dir string) []adjudicate.Pair {
	s := readSet(t, dir)
	index := map[string][]int{}
	for i, p := range s.passages {
		seen := map[string]bool{}
		for _, w := range lowerWords(p) {
			if !seen[w] && !stop[w] {
				seen[w] = true
				index[w] = append(index[w], i)
			}
		}
	}
	var pairs []adjudicate.Pair
	for ci, claim := range s.claims {
		score := map[int]int{}
		for _, w := range lowerWords(claim) {
			if stop[w] {
				continue
			}
			for _, i := range index[w] {
				score[i]++
			}
		}
		var top []int
		for i := range score {
			top = append(top, i)
		}
		slices.SortFunc(top, func(a, b int) int {
			if score[a] != score[b] {
				return score[b] - score[a]
			}
			return a - b
		})
		var ps []adjudicate.Passage
		for _, i := range top[:min(5, len(top))] {
			ps = append(ps, adjudicate.Passage{ID: fmt.Sprint(i), DocID: "d", Text: s.passages[i], Score: float64(score[i]) * 3.5})
		}
		pairs = append(pairs, adjudicate.Pair{ClaimID: fmt.Sprint(ci), Claim: claim, Passages: ps})
	}
	return pairs
}

// FuzzFeatures compares the features of a claim and two passages with the
// old code's; the cache and its vocabulary live across the inputs, as in
// a run.
func FuzzFeatures(f *testing.F) {
	for _, p := range generatedPairs(2, 40) {
		if len(p.Passages) >= 2 {
			f.Add(p.Claim, p.Passages[0].Text, p.Passages[1].Text)
		}
	}
	f.Add("Meridian Rail employed 5,700 staff in 2023.", "Meridian Rail employed 5,700 staff at the end of 2023.", "It isn't \u212Anown. ſome rose; others fell in 1999.")
	cache := newPassageCache(1000)
	f.Fuzz(func(t *testing.T, claim, p1, p2 string) {
		pair := adjudicate.Pair{Claim: claim, Passages: []adjudicate.Passage{{Text: p1, Score: 20}, {Text: p2, Score: 10}}}
		featuresEqualOracle(t, pair, fakeStats{}, cache, nil)
		pair.Passages = pair.Passages[:1]
		featuresEqualOracle(t, pair, nil, nil, nil)
	})
}
