package corpus

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Index is an opened passage index. Its methods are safe for concurrent use.
type Index struct {
	idx      bleve.Index
	manifest *IndexManifest
	df       sync.Map // term -> int
}

// OpenIndex opens a complete index folder read-only.
func OpenIndex(dir string) (*Index, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, bleveDir)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w (%v)", dir, ErrNotIndex, err)
	}
	if err := VerifyIndex(dir, m); err != nil {
		return nil, err
	}
	idx, err := openBleve(path)
	if err != nil {
		return nil, fmt.Errorf("open bleve index %s: %w", path, err)
	}
	return &Index{idx: idx, manifest: m}, nil
}

// Manifest describes what the index holds.
func (ix *Index) Manifest() *IndexManifest { return ix.manifest }

// Close releases the index.
func (ix *Index) Close() error { return ix.idx.Close() }

// Hit is one retrieved passage with its rank (1-based) and BM25 score.
type Hit struct {
	Passage
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

var hitFields = []string{"text", "doc_id", "span_id", "start", "end"}

// tieMargin is how many hits beyond k a search fetches to break score ties
// by passage id without asking bleve to sort by id.
const tieMargin = 8

// Search returns the k best passages for a free-text query, best first; ties
// in score are broken by passage id so results are deterministic. A query
// with no content words returns no hits.
func (ix *Index) Search(ctx context.Context, text string, k int) ([]Hit, error) {
	return ix.search(ctx, text, k, "")
}

func (ix *Index) search(ctx context.Context, text string, k int, docID string) ([]Hit, error) {
	terms := QueryTerms(text)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		mq := bleve.NewMatchQuery(t.Text)
		mq.SetField("text")
		mq.SetBoost(t.Boost)
		qs[i] = mq
	}
	var q query.Query = bleve.NewDisjunctionQuery(qs...)
	if docID != "" {
		tq := bleve.NewTermQuery(docID)
		tq.SetField("doc_id")
		q = bleve.NewConjunctionQuery(q, tq)
	}
	// Sorting by score alone is cheap; sorting by (score, id) makes bleve
	// look up every candidate's id. So fetch a margin beyond k, order ties
	// by id here, and only when a tie runs to the end of what was fetched
	// (so an equal-scoring passage may be missing) pay for the exact sort.
	fetch := k + tieMargin
	req := bleve.NewSearchRequestOptions(q, fetch, 0, false)
	req.Fields = hitFields
	res, err := ix.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if n := len(res.Hits); n == fetch && n > k && res.Hits[n-1].Score == res.Hits[k-1].Score {
		req = bleve.NewSearchRequestOptions(q, k, 0, false)
		req.Fields = hitFields
		req.SortBy([]string{"-_score", "_id"})
		if res, err = ix.idx.SearchInContext(ctx, req); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	for _, h := range res.Hits {
		h.Score = stableScore(h.Score)
	}
	sort.SliceStable(res.Hits, func(i, j int) bool {
		a, b := res.Hits[i], res.Hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.ID < b.ID
	})
	if len(res.Hits) > k {
		res.Hits = res.Hits[:k]
	}
	hits := make([]Hit, 0, len(res.Hits))
	for i, h := range res.Hits {
		hits = append(hits, hitOf(h.ID, h.Fields, h.Score, i+1))
	}
	return hits, nil
}

// stableScore rounds a BM25 score to 10 significant digits. bleve adds a
// disjunction's term scores in an order that follows internal document
// numbers, which depend on the index's merge history: two builds of one
// corpus can differ in the last bit. Rounding makes scores (and through the
// id tie-break, rankings) a function of the input alone.
func stableScore(s float64) float64 {
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return s
	}
	p := math.Pow(10, 9-math.Floor(math.Log10(math.Abs(s))))
	return math.Round(s*p) / p
}

func hitOf(id string, fields map[string]any, score float64, rank int) Hit {
	hit := Hit{Rank: rank, Score: score}
	hit.ID = id
	hit.Text, _ = fields["text"].(string)
	hit.DocID, _ = fields["doc_id"].(string)
	hit.SpanID, _ = fields["span_id"].(string)
	if v, ok := fields["start"].(float64); ok {
		hit.Start = int(v)
	}
	if v, ok := fields["end"].(float64); ok {
		hit.End = int(v)
	}
	return hit
}

// Term is one word of a retrieval query with its weight.
type Term struct {
	Text  string
	Boost float64
}

// Boosts for the words that identify a fact: a number or a named entity is
// worth more than a common content word.
const (
	boostWord   = 1.0
	boostEntity = 1.5
	boostNumber = 1.5
)

// QueryTerms turns claim text into query words: stop words out (unless
// written as an all-caps acronym such as "US"), numbers and capitalised
// entities kept and boosted, each word once, in order of first appearance.
func QueryTerms(text string) []Term {
	var terms []Term
	seen := map[string]bool{}
	first := true
	for _, w := range words(text) {
		lower := strings.ToLower(w)
		isFirst := first
		first = false
		number := strings.ContainsFunc(w, unicode.IsDigit)
		acronym := len([]rune(w)) >= 2 && w == strings.ToUpper(w) && strings.ContainsFunc(w, unicode.IsLetter)
		if stopWords[lower] && !acronym {
			continue
		}
		if seen[lower] {
			continue
		}
		seen[lower] = true
		boost := boostWord
		switch {
		case number:
			boost = boostNumber
		case acronym || (!isFirst && unicode.IsUpper([]rune(w)[0])):
			boost = boostEntity
		}
		terms = append(terms, Term{Text: w, Boost: boost})
	}
	return terms
}

// words splits text into words: runs of letters and digits, keeping
// in-word apostrophes, hyphens, dots between letters ("U.S") and the
// separators of numbers ("5,700", "5.7").
func words(text string) []string {
	var out []string
	r := []rune(text)
	for i := 0; i < len(r); {
		if !isWordRune(r[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(r) {
			if isWordRune(r[j]) {
				j++
				continue
			}
			if j+1 < len(r) && isWordRune(r[j+1]) && strings.ContainsRune("'’-", r[j]) {
				j++
				continue
			}
			if j+1 < len(r) && unicode.IsLetter(r[j-1]) && unicode.IsLetter(r[j+1]) && r[j] == '.' {
				j++ // "U.S", as Unicode word segmentation keeps it
				continue
			}
			if j+1 < len(r) && unicode.IsDigit(r[j-1]) && unicode.IsDigit(r[j+1]) && strings.ContainsRune(".,", r[j]) {
				j++
				continue
			}
			break
		}
		out = append(out, string(r[i:j]))
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// stopWords are dropped from queries: they carry no evidence and only add
// postings to scan.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren't as at be
		because been before being below between both but by can can't cannot could couldn't did didn't do
		does doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
		having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've
		if in into is isn't it it's its itself let's me more most mustn't my myself nor of off on once only
		or other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so
		some such than that that's the their theirs them themselves then there there's these they they'd
		they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're
		we've were weren't what what's when when's where where's which while who who's whom why why's with
		won't would wouldn't you you'd you'll you're you've your yours yourself yourselves also just s t`) {
		m[w] = true
	}
	return m
}()

// DocFreq is the number of passages whose text contains the analysed term
// (lower case, Porter stem), for idf weights; 0 on any error. Results are
// cached: the index is read-only.
func (ix *Index) DocFreq(term string) int {
	if v, ok := ix.df.Load(term); ok {
		return v.(int)
	}
	n := 0
	if adv, err := ix.idx.Advanced(); err == nil {
		if r, err := adv.Reader(); err == nil {
			if tfr, err := r.TermFieldReader(context.Background(), []byte(term), "text", false, false, false); err == nil {
				n = int(tfr.Count())
				tfr.Close()
			}
			r.Close()
		}
	}
	ix.df.Store(term, n)
	return n
}

// N is the number of passages.
func (ix *Index) N() int { return ix.manifest.Counts.Passages }

// SearchWithin is Search restricted to the passages of one document.
func (ix *Index) SearchWithin(ctx context.Context, text, docID string, k int) ([]Hit, error) {
	return ix.search(ctx, text, k, docID)
}

// Passage returns the passage with the given id (a span id or a window id),
// or false when there is none.
func (ix *Index) Passage(ctx context.Context, id string) (Hit, bool, error) {
	req := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery([]string{id}), 1, 0, false)
	req.Fields = hitFields
	res, err := ix.idx.SearchInContext(ctx, req)
	if err != nil {
		return Hit{}, false, fmt.Errorf("look up passage %s: %w", id, err)
	}
	if len(res.Hits) == 0 {
		return Hit{}, false, nil
	}
	return hitOf(res.Hits[0].ID, res.Hits[0].Fields, 0, 1), true, nil
}
