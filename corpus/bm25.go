package corpus

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// Standard BM25 parameters, as Anserini and Pyserini default them for
// passage retrieval. The formula is written up in docs/format/index.md.
const (
	BM25K1 = 0.9
	BM25B  = 0.4
)

// scoreScale is the grid scores are rounded to (1e-9): every comparison of
// scores, and every reported score, uses the rounded value, so that ties are
// broken by passage id alone in every path.
const scoreScale = 1e9

// scorer is an in-memory copy of the index's text postings, ordered by
// passage id, from which queries are scored with standard BM25 term at a
// time. It is read from bleve's postings and stored lengths once per opened
// index; bleve stays the store of record (and of stored fields).
type scorer struct {
	n      int
	avgLen float64
	ids    []string  // ordinal → passage id, ascending: ordinal order is id order
	norm   []float64 // ordinal → k1·(1 − b + b·len/avgLen)
	docOf  []int32   // ordinal → document number (index in docs)
	docs   map[string]int32
	terms  map[string]termPostings
	ords   []int32  // postings of all terms, each term's slice ascending
	tfs    []uint32 // term frequency, parallel to ords
	pool   sync.Pool
}

type termPostings struct {
	start, end int // in ords/tfs
	idf        float64
}

// accumulator is one query's scratch space: a score per passage and the
// passages touched, so that resetting costs what the query touched.
type accumulator struct {
	score   []float64
	touched []int32
}

// loadScorer reads the postings of the "text" field and the "doc_id" terms
// of an index reader.
func loadScorer(ctx context.Context, r index.IndexReader) (*scorer, error) {
	all, err := r.DocIDReaderAll()
	if err != nil {
		return nil, fmt.Errorf("read passage ids: %w", err)
	}
	type entry struct {
		internal uint64
		id       string
	}
	var entries []entry
	var maxInternal uint64
	for {
		iid, err := all.Next()
		if err != nil {
			all.Close()
			return nil, fmt.Errorf("read passage ids: %w", err)
		}
		if iid == nil {
			break
		}
		id, err := r.ExternalID(iid)
		if err != nil {
			all.Close()
			return nil, fmt.Errorf("read passage ids: %w", err)
		}
		v := iid.Value()
		entries = append(entries, entry{v, id})
		maxInternal = max(maxInternal, v)
	}
	all.Close()
	sort.Slice(entries, func(i, j int) bool { return entries[i].id < entries[j].id })
	n := len(entries)
	ordOf := make([]int32, maxInternal+1)
	for i := range ordOf {
		ordOf[i] = -1
	}
	s := &scorer{n: n, ids: make([]string, n), norm: make([]float64, n), docOf: make([]int32, n),
		docs: map[string]int32{}, terms: map[string]termPostings{}}
	for i, e := range entries {
		s.ids[i] = e.id
		ordOf[e.internal] = int32(i)
	}
	ord := func(iid index.IndexInternalID) (int32, error) {
		v := iid.Value()
		if v > maxInternal || ordOf[v] < 0 {
			return 0, fmt.Errorf("posting for unknown passage number %d", v)
		}
		return ordOf[v], nil
	}

	lengths := make([]int, n)
	var total int64
	type posting struct {
		ord int32
		tf  uint32
	}
	var buf []posting
	err = eachTerm(r, "text", func(term string) error {
		tfr, err := r.TermFieldReader(ctx, []byte(term), "text", true, true, false)
		if err != nil {
			return err
		}
		defer tfr.Close()
		buf = buf[:0]
		var tfd index.TermFieldDoc
		for {
			d, err := tfr.Next(tfd.Reset())
			if err != nil {
				return err
			}
			if d == nil {
				break
			}
			o, err := ord(d.ID)
			if err != nil {
				return err
			}
			if lengths[o] == 0 && d.Norm > 0 {
				// bleve stores the field length and reports 1/√length
				// as a float32; rounding recovers the length exactly
				// for any passage under a few million tokens.
				lengths[o] = int(math.Round(1 / (d.Norm * d.Norm)))
				total += int64(lengths[o])
			}
			buf = append(buf, posting{o, uint32(d.Freq)})
		}
		slices.SortFunc(buf, func(a, b posting) int { return int(a.ord) - int(b.ord) })
		start := len(s.ords)
		for _, p := range buf {
			s.ords = append(s.ords, p.ord)
			s.tfs = append(s.tfs, p.tf)
		}
		df := float64(len(buf))
		s.terms[term] = termPostings{start: start, end: len(s.ords),
			idf: math.Log(1 + (float64(n)-df+0.5)/(df+0.5))}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read text postings: %w", err)
	}
	if n > 0 {
		s.avgLen = float64(total) / float64(n)
	}
	for i, l := range lengths {
		s.norm[i] = BM25K1 * (1 - BM25B + BM25B*float64(l)/max(s.avgLen, 1e-9))
	}

	for i := range s.docOf {
		s.docOf[i] = -1
	}
	err = eachTerm(r, "doc_id", func(term string) error {
		num := int32(len(s.docs))
		s.docs[term] = num
		tfr, err := r.TermFieldReader(ctx, []byte(term), "doc_id", false, false, false)
		if err != nil {
			return err
		}
		defer tfr.Close()
		var tfd index.TermFieldDoc
		for {
			d, err := tfr.Next(tfd.Reset())
			if err != nil {
				return err
			}
			if d == nil {
				return nil
			}
			o, err := ord(d.ID)
			if err != nil {
				return err
			}
			s.docOf[o] = num
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read document ids: %w", err)
	}
	s.pool.New = func() any { return &accumulator{score: make([]float64, n)} }
	return s, nil
}

func eachTerm(r index.IndexReader, field string, f func(term string) error) error {
	dict, err := r.FieldDict(field)
	if err != nil {
		return err
	}
	defer dict.Close()
	for {
		e, err := dict.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if err := f(e.Term); err != nil {
			return err
		}
	}
}

// weightedTerm is one analysed query term with its query weight.
type weightedTerm struct {
	term   string
	weight float64
}

// analyseQuery turns query words into analysed terms with the analyzer the
// index used. A word that analyses to several terms contributes each with
// its boost; a term from several words gets the sum of their boosts, as a
// disjunction of one clause per word would score it.
func analyseQuery(a analysis.Analyzer, terms []Term) []weightedTerm {
	var out []weightedTerm
	at := map[string]int{}
	for _, t := range terms {
		for _, tok := range a.Analyze([]byte(t.Text)) {
			term := string(tok.Term)
			if i, ok := at[term]; ok {
				out[i].weight += t.Boost
				continue
			}
			at[term] = len(out)
			out = append(out, weightedTerm{term, t.Boost})
		}
	}
	return out
}

// scored is a passage ordinal with its rounded score (in units of
// 1/scoreScale).
type scored struct {
	ord   int32
	score float64
}

// better orders hits: higher rounded score first, then lower ordinal (that
// is, lower passage id).
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.ord < b.ord
}

// topK returns the k best passages for the query, best first; only
// passages of document number within when within >= 0. Scores are summed
// in query-term order, which depends on the query alone, so a passage's
// score is the same whatever the index's internal layout.
func (s *scorer) topK(q []weightedTerm, k int, within int32) []scored {
	if k <= 0 || len(q) == 0 || s.n == 0 {
		return nil
	}
	acc := s.pool.Get().(*accumulator)
	defer s.pool.Put(acc)
	score := acc.score
	touched := acc.touched[:0]
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
	acc.touched = touched[:0]
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

func up(h []scored, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func down(h []scored, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			w = r
		}
		if !better(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// ord returns the ordinal of a passage id.
func (s *scorer) ord(id string) (int32, bool) {
	i, ok := slices.BinarySearch(s.ids, id)
	return int32(i), ok
}

// docFreq is the number of passages containing the analysed term.
func (s *scorer) docFreq(term string) int {
	tp := s.terms[term]
	return tp.end - tp.start
}
