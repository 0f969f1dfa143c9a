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
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/numeric"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/claimaudit/claimaudit/memo"
)

// Index is an opened passage index. Its methods are safe for concurrent use.
type Index struct {
	idx      bleve.Index
	reader   index.IndexReader // one snapshot for every query: the index is read-only
	analyzer analysis.Analyzer
	manifest *IndexManifest

	once   sync.Once
	scorer *scorer
	err    error
	// texts holds the texts TextScorer analysed lately (made on first use).
	textsOnce sync.Once
	texts     *memo.Cache[string, textTerms]
	// segs and offsets locate an internal document number in the
	// snapshot's segments (number = offsets[i] + number in segs[i]), for
	// reading stored fields without bleve's id lookup; nil when the reader
	// is not a scorch snapshot.
	segs    []*scorch.SegmentSnapshot
	offsets []uint64
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
	ix := &Index{idx: idx, manifest: m}
	if ix.analyzer = idx.Mapping().AnalyzerNamed(analyzerName); ix.analyzer == nil {
		idx.Close()
		return nil, fmt.Errorf("%s: %w (no analyzer %s)", dir, ErrNotIndex, analyzerName)
	}
	adv, err := idx.Advanced()
	if err == nil {
		ix.reader, err = adv.Reader()
	}
	if err != nil {
		idx.Close()
		return nil, fmt.Errorf("open bleve index %s: %w", path, err)
	}
	return ix, nil
}

// Manifest describes what the index holds.
func (ix *Index) Manifest() *IndexManifest { return ix.manifest }

// Close releases the index.
func (ix *Index) Close() error {
	rerr := ix.reader.Close()
	if err := ix.idx.Close(); err != nil {
		return err
	}
	return rerr
}

// load reads the postings into memory on first use, so that opening an
// index for a lookup or a manifest costs nothing.
func (ix *Index) load() (*scorer, error) {
	ix.once.Do(func() {
		ix.scorer, ix.err = loadScorer(context.Background(), ix.reader)
		if snap, ok := ix.reader.(*scorch.IndexSnapshot); ok {
			// scorch numbers documents segment after segment, each
			// segment's count of documents (deleted ones included) after
			// the previous (IndexSnapshot.offsets).
			var running uint64
			for _, seg := range snap.Segments() {
				ix.segs = append(ix.segs, seg)
				ix.offsets = append(ix.offsets, running)
				running += seg.Segment().Count()
			}
		}
	})
	return ix.scorer, ix.err
}

// Hit is one retrieved passage with its rank (1-based) and BM25 score.
type Hit struct {
	Passage
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Search returns the k best passages for a free-text query by standard BM25
// (see docs/format/index.md), best first. Scores are rounded to 1e-9 and ties
// in the rounded score are broken by passage id, so results depend on the
// input alone, not on how the index was built. A query with no content
// words returns no hits.
func (ix *Index) Search(ctx context.Context, text string, k int) ([]Hit, error) {
	return ix.search(ctx, Query{Text: text}, k, "")
}

// SearchQuery is Search for a query with fields (Query): a query without
// fields is Search's.
func (ix *Index) SearchQuery(ctx context.Context, q Query, k int) ([]Hit, error) {
	return ix.search(ctx, q, k, "")
}

func (ix *Index) search(ctx context.Context, q Query, k int, docID string) ([]Hit, error) {
	if len(QueryTerms(q.Text)) == 0 || k <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := ix.load()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	within := int32(-1)
	if docID != "" {
		n, ok := s.docs[docID]
		if !ok {
			return nil, nil
		}
		within = n
	}
	top := s.topK(ix.analyse(q), k, within)
	hits := make([]Hit, 0, len(top))
	for i, c := range top {
		h, err := ix.storedAt(s, c.ord)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		h.Rank, h.Score = i+1, c.score
		hits = append(hits, h)
	}
	return hits, nil
}

// storedAt reads the stored fields of the passage with ordinal o straight
// from its segment. bleve's Document (the path of stored) first looks the
// id up in the _id dictionary and then copies every field into a new
// document, which cost retrieval as much as its fields. The number's _id is
// checked against the passage's; where it differs, or the reader is not a
// scorch snapshot, stored reads the passage by id.
func (ix *Index) storedAt(s *scorer, o int32) (Hit, error) {
	id := s.ids[o]
	num := s.num[o]
	i := sort.Search(len(ix.offsets), func(i int) bool { return ix.offsets[i] > num }) - 1
	if i < 0 {
		return ix.stored(id)
	}
	var hit Hit
	idOK := false
	err := ix.segs[i].VisitDocument(num-ix.offsets[i], func(name string, typ byte, val []byte, _ []uint64) bool {
		switch name {
		case "_id":
			idOK = string(val) == id
			return idOK
		case "text":
			hit.Text = string(val)
		case "doc_id":
			hit.DocID = string(val)
		case "span_id":
			hit.SpanID = string(val)
		case "start", "end":
			if typ != 'n' {
				return true
			}
			i64, err := numeric.PrefixCoded(val).Int64()
			if err != nil {
				return true
			}
			v := int(numeric.Int64ToFloat64(i64))
			if name == "start" {
				hit.Start = v
			} else {
				hit.End = v
			}
		}
		return true
	})
	if err != nil || !idOK {
		return ix.stored(id)
	}
	hit.ID = id
	return hit, nil
}

// stored reads a passage's stored fields.
func (ix *Index) stored(id string) (Hit, error) {
	d, err := ix.reader.Document(id)
	if err != nil {
		return Hit{}, fmt.Errorf("read passage %s: %w", id, err)
	}
	hit := Hit{}
	hit.ID = id
	if d == nil {
		return hit, fmt.Errorf("read passage %s: not stored", id)
	}
	d.VisitFields(func(f index.Field) {
		switch f.Name() {
		case "text":
			hit.Text = string(f.Value())
		case "doc_id":
			hit.DocID = string(f.Value())
		case "span_id":
			hit.SpanID = string(f.Value())
		case "start", "end":
			nf, ok := f.(index.NumericField)
			if !ok {
				return
			}
			v, err := nf.Number()
			if err != nil {
				return
			}
			if f.Name() == "start" {
				hit.Start = int(v)
			} else {
				hit.End = int(v)
			}
		}
	})
	return hit, nil
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
	for i, w := range words(text) {
		lower := strings.ToLower(w)
		boost, ok := wordBoost(w, i == 0)
		if !ok || seen[lower] {
			continue
		}
		seen[lower] = true
		terms = append(terms, Term{Text: w, Boost: boost})
	}
	return terms
}

// wordBoost is a query word's boost, false for a stop word (an all-caps
// acronym such as "US" is none). A capitalised word is an entity unless it
// opens the text (first).
func wordBoost(w string, first bool) (float64, bool) {
	number := strings.ContainsFunc(w, unicode.IsDigit)
	acronym := len([]rune(w)) >= 2 && w == strings.ToUpper(w) && strings.ContainsFunc(w, unicode.IsLetter)
	if stopWords[strings.ToLower(w)] && !acronym {
		return 0, false
	}
	switch {
	case number:
		return boostNumber, true
	case acronym || (!first && unicode.IsUpper([]rune(w)[0])):
		return boostEntity, true
	}
	return boostWord, true
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
// (lower case, Porter stem), for idf weights; 0 when the postings cannot be
// read.
func (ix *Index) DocFreq(term string) int {
	s, err := ix.load()
	if err != nil {
		return 0
	}
	return s.docFreq(term)
}

// N is the number of passages.
func (ix *Index) N() int { return ix.manifest.Counts.Passages }

// SearchWithin is Search restricted to the passages of one document; the
// scores are the same as Search gives those passages.
func (ix *Index) SearchWithin(ctx context.Context, text, docID string, k int) ([]Hit, error) {
	return ix.search(ctx, Query{Text: text}, k, docID)
}

// SearchWithinQuery is SearchWithin for a query with fields.
func (ix *Index) SearchWithinQuery(ctx context.Context, q Query, docID string, k int) ([]Hit, error) {
	return ix.search(ctx, q, k, docID)
}

// Passage returns the passage with the given id (a span id or a window id),
// or false when there is none.
func (ix *Index) Passage(ctx context.Context, id string) (Hit, bool, error) {
	if err := ctx.Err(); err != nil {
		return Hit{}, false, err
	}
	s, err := ix.load()
	if err != nil {
		return Hit{}, false, fmt.Errorf("look up passage %s: %w", id, err)
	}
	o, ok := s.ord(id)
	if !ok {
		return Hit{}, false, nil
	}
	h, err := ix.storedAt(s, o)
	if err != nil {
		return Hit{}, false, fmt.Errorf("look up passage %s: %w", id, err)
	}
	h.Rank = 1
	return h, true, nil
}

// WeightedTerm is one analysed query term and its weight in the BM25 sum.
type WeightedTerm struct {
	Term   string  `json:"term"`
	Weight float64 `json:"weight"`
}

// QueryWeights is the analysed form of a query as Search scores it: each
// term of the index's analyzer once, with the summed boosts of the query
// words it came from. Benchmarks feed it to other engines so that they see
// the same terms.
func (ix *Index) QueryWeights(text string) []WeightedTerm {
	q := analyseQuery(ix.analyzer, QueryTerms(text))
	out := make([]WeightedTerm, len(q))
	for i, t := range q {
		out[i] = WeightedTerm{t.term, t.weight}
	}
	return out
}

// Tokens is text as the index's analyzer indexes it, one term per token
// in order; its length is the passage length BM25 uses.
func (ix *Index) Tokens(text string) []string {
	ts := ix.analyzer.Analyze([]byte(text))
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	return out
}

// ScoreText is the BM25 score a passage of the given text would get for
// the query, with the index's idf and mean passage length (rounded as
// Search rounds): the score of a chunk of a cited document that is not
// itself a passage of the index. Terms the index has never seen add
// nothing, as in Search.
func (ix *Index) ScoreText(query, text string) (float64, error) {
	return ix.ScoreQuery(Query{Text: query}, text)
}

// ScoreQuery is ScoreText for a query with fields.
func (ix *Index) ScoreQuery(q Query, text string) (float64, error) {
	ts, err := ix.TextScorer(q)
	if err != nil {
		return 0, err
	}
	return ts.Score(text), nil
}

// TextScorer scores texts for one query as ScoreQuery does, the query
// analysed once: a claim's every chunk is scored by one.
type TextScorer struct {
	ix    *Index
	s     *scorer
	query []weightedTerm // the query's terms the index holds
}

// TextScorer analyses q (its text and fields) for scoring texts against it.
func (ix *Index) TextScorer(q Query) (*TextScorer, error) {
	if len(QueryTerms(q.Text)) == 0 {
		return &TextScorer{ix: ix}, nil
	}
	s, err := ix.load()
	if err != nil {
		return nil, fmt.Errorf("score text: %w", err)
	}
	ts := &TextScorer{ix: ix, s: s}
	for _, wt := range ix.analyse(q) {
		if _, ok := s.terms[wt.term]; ok {
			ts.query = append(ts.query, wt)
		}
	}
	return ts, nil
}

// Score is text's BM25 score for the scorer's query.
func (ts *TextScorer) Score(text string) float64 {
	if len(ts.query) == 0 {
		return 0
	}
	tt := ts.ix.textTermsOf(text)
	norm := BM25K1 * (1 - BM25B + BM25B*float64(tt.n)/max(ts.s.avgLen, 1e-9))
	score := 0.0
	for _, wt := range ts.query {
		n := tt.tf[wt.term]
		if n == 0 {
			continue
		}
		f := float64(n)
		score += wt.weight * ts.s.terms[wt.term].idf * (BM25K1 + 1) * f / (f + norm)
	}
	return math.Round(score*scoreScale) / scoreScale
}

// textTerms is a text as the analyzer reads it: each term's count, and
// the token count (BM25's passage length).
type textTerms struct {
	tf map[string]int
	n  int
}

// textTermsCacheSize bounds the analysed texts an index keeps for
// TextScorer: the claims of one output, or of one cited document, score
// the same chunks one after another (RAG outputs with their contexts: each
// of an output's ~4.5 claims reads its ~5 contexts' chunks).
const textTermsCacheSize = 4096

func (ix *Index) textTermsOf(text string) textTerms {
	ix.textsOnce.Do(func() { ix.texts = memo.New[string, textTerms](textTermsCacheSize) })
	return ix.texts.Get(text, func() textTerms {
		toks := ix.analyzer.Analyze([]byte(text))
		tf := make(map[string]int, len(toks))
		for _, t := range toks {
			tf[string(t.Term)]++
		}
		return textTerms{tf: tf, n: len(toks)}
	})
}
