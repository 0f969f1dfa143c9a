package corpus

import (
	"cmp"
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
// passage id, from which queries are scored with standard BM25 (exactly:
// the pruning of topK only skips passages that cannot be among the hits).
// It is read from bleve's postings and stored lengths once per opened
// index; bleve stays the store of record (and of stored fields).
type scorer struct {
	n      int
	avgLen float64
	ids    []string  // ordinal → passage id, ascending: ordinal order is id order
	num    []uint64  // ordinal → bleve's internal document number
	norm   []float64 // ordinal → k1·(1 − b + b·len/avgLen)
	docOf  []int32   // ordinal → document number (index in docs)
	docs   map[string]int32
	terms  map[string]termPostings
	ords   []int32  // postings of all terms, each term's slice ascending
	tfs    []uint32 // term frequency, parallel to ords
	// docOrds lists each document's passage ordinals, ascending, from
	// docOrds[docStart[d]] to docOrds[docStart[d+1]]: a search within one
	// document scores those passages only.
	docStart []int32
	docOrds  []int32
	pool     sync.Pool // *queryScratch
}

type termPostings struct {
	start, end int // in ords/tfs
	idf        float64
	// maxSat is the largest tf/(tf+norm) over the term's postings: the
	// term's contribution to any passage is at most weight·idf·(k1+1)·maxSat,
	// the bound that lets topK skip passages that cannot make the top k.
	maxSat float64
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
	s := &scorer{n: n, ids: make([]string, n), num: make([]uint64, n), norm: make([]float64, n), docOf: make([]int32, n),
		docs: map[string]int32{}, terms: map[string]termPostings{}}
	for i, e := range entries {
		s.ids[i] = e.id
		s.num[i] = e.internal
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
	for term, tp := range s.terms {
		for i := tp.start; i < tp.end; i++ {
			tf := float64(s.tfs[i])
			tp.maxSat = max(tp.maxSat, tf/(tf+s.norm[s.ords[i]]))
		}
		s.terms[term] = tp
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
	s.docStart = make([]int32, len(s.docs)+1)
	for _, d := range s.docOf {
		if d >= 0 {
			s.docStart[d+1]++
		}
	}
	for d := range len(s.docs) {
		s.docStart[d+1] += s.docStart[d]
	}
	s.docOrds = make([]int32, s.docStart[len(s.docs)])
	fill := slices.Clone(s.docStart[:len(s.docs)])
	for o, d := range s.docOf { // ascending ordinals: each document's list is sorted
		if d >= 0 {
			s.docOrds[fill[d]] = int32(o)
			fill[d]++
		}
	}
	s.pool.New = func() any { return new(queryScratch) }
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
//
// The passages are visited document at a time in ordinal order with the
// MaxScore pruning of Turtle and Flood: once k passages are held, a passage
// whose score bound (its terms' exact contributions so far plus the
// maximum contributions of the terms not yet looked at) cannot beat the
// k-th is skipped, and a term whose postings together with the weaker
// terms' cannot reach the k-th no longer proposes passages. Every passage
// that is kept is scored exactly as the term-at-a-time sum did it, so the
// hits, their order and their scores are those of scoring every passage
// (TestTopKEqualsExhaustive holds it to the exhaustive scorer).
func (s *scorer) topK(q []weightedTerm, k int, within int32) []scored {
	if k <= 0 || len(q) == 0 || s.n == 0 {
		return nil
	}
	sc := s.pool.Get().(*queryScratch)
	defer s.pool.Put(sc)
	terms := s.cursors(q, sc.terms[:0])
	sc.terms = terms
	heap := make([]scored, 0, k)
	if within >= 0 {
		heap = s.scoreWithin(terms, heap, within)
	} else {
		heap = s.maxScore(sc, terms, heap)
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

// cursors appends a cursor on the postings of each query term the index
// has, in query order.
func (s *scorer) cursors(q []weightedTerm, terms []cursor) []cursor {
	const k1p1 = BM25K1 + 1
	for _, wt := range q {
		tp, ok := s.terms[wt.term]
		if !ok {
			continue
		}
		w := wt.weight * tp.idf * k1p1
		terms = append(terms, cursor{ords: s.ords[tp.start:tp.end], tfs: s.tfs[tp.start:tp.end], w: w, ub: w * tp.maxSat})
	}
	return terms
}

// queryScratch is one query's reusable state.
type queryScratch struct {
	terms  []cursor // in query order
	byUB   []int    // indices into terms, by ascending bound
	prefix []float64
}

// cursor walks one query term's postings.
type cursor struct {
	ords []int32
	tfs  []uint32
	pos  int
	w    float64 // weight·idf·(k1+1)
	ub   float64 // the most the term adds to a passage's raw score
}

// contribution is the term's part of passage o's score when o is the
// cursor's current posting, computed exactly as the score sum needs it.
func (c *cursor) contribution(norm []float64) float64 {
	tf := float64(c.tfs[c.pos])
	return c.w * tf / (tf + norm[c.ords[c.pos]])
}

const exhausted = math.MaxInt32

func (c *cursor) cur() int32 {
	if c.pos < len(c.ords) {
		return c.ords[c.pos]
	}
	return exhausted
}

// seek moves the cursor to its first posting at or after o: a galloping
// search, as the passages a query visits are sparse in a long list.
func (c *cursor) seek(o int32) {
	ords := c.ords
	lo := c.pos
	if lo >= len(ords) || ords[lo] >= o {
		return
	}
	// ords[lo] < o: find hi with ords[hi] >= o (or the end).
	step := 1
	hi := lo + 1
	for hi < len(ords) && ords[hi] < o {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	hi = min(hi, len(ords))
	for lo+1 < hi { // ords[lo] < o, ords[hi] >= o or hi is the end
		m := int(uint(lo+hi) >> 1)
		if ords[m] < o {
			lo = m
		} else {
			hi = m
		}
	}
	c.pos = hi
}

// pruneScale turns a raw score bound into a bound in units of
// 1/scoreScale, widened by far more than the rounding error of any sum of
// contributions (relative 1e-15 per term): a passage is only skipped when
// its rounded score is certainly at most the k-th's.
const pruneScale = scoreScale * (1 + 1e-9)

// exactScore is the raw score of passage o summed in query-term order, as
// the term-at-a-time scorer summed it; every cursor must stand at or after
// o.
func (s *scorer) exactScore(terms []cursor, o int32) float64 {
	score := 0.0
	for i := range terms {
		if terms[i].cur() == o {
			score += terms[i].contribution(s.norm)
		}
	}
	return score
}

// maxScore fills heap (empty, capacity k) with the k best passages of the
// collection, in heap order.
func (s *scorer) maxScore(sc *queryScratch, terms []cursor, heap []scored) []scored {
	k := cap(heap)
	m := len(terms)
	if m == 0 {
		return heap
	}
	byUB := sc.byUB[:0]
	for i := range terms {
		byUB = append(byUB, i)
	}
	slices.SortStableFunc(byUB, func(a, b int) int { return cmp.Compare(terms[a].ub, terms[b].ub) })
	sc.byUB = byUB
	// prefix[j] bounds the score of a passage found only in the terms
	// byUB[0..j].
	prefix := sc.prefix[:0]
	sum := 0.0
	for _, i := range byUB {
		sum += terms[i].ub
		prefix = append(prefix, sum)
	}
	sc.prefix = prefix
	// The passages of the term with the highest bound (mostly the rarest
	// term) are scored first: they are few and hold most of the best
	// passages, so the k-th score starts high and the walk below skips
	// the most. The walk then leaves them out.
	seed := &terms[byUB[m-1]]
	for p, o := range seed.ords {
		for i := range terms {
			terms[i].seek(o)
		}
		seed.pos = p
		heap = offer(heap, k, scored{o, math.Round(s.exactScore(terms, o) * scoreScale)})
	}
	for i := range terms {
		terms[i].pos = 0
	}
	// The terms byUB[:ess] are non-essential: together they cannot lift a
	// passage past the k-th, so only the others propose passages.
	ess := 0
	theta := math.Inf(-1) // the k-th rounded score once k are held
	raise := func() {
		if len(heap) == k {
			theta = heap[0].score
			for ess < m && prefix[ess]*pruneScale < theta {
				ess++
			}
		}
	}
	raise()
	for {
		o := int32(exhausted)
		for _, i := range byUB[ess:] {
			o = min(o, terms[i].cur())
		}
		if o == exhausted {
			break
		}
		if seed.seek(o); seed.cur() == o { // scored above
			for _, i := range byUB[ess:] {
				if terms[i].cur() == o {
					terms[i].pos++
				}
			}
			continue
		}
		bound := 0.0
		for _, i := range byUB[ess:] {
			if terms[i].cur() == o {
				bound += terms[i].contribution(s.norm)
			}
		}
		keep := true
		for j := ess - 1; j >= 0; j-- {
			if (bound+prefix[j])*pruneScale < theta {
				keep = false
				break
			}
			t := &terms[byUB[j]]
			t.seek(o)
			if t.cur() == o {
				bound += t.contribution(s.norm)
			}
		}
		if keep {
			heap = offer(heap, k, scored{o, math.Round(s.exactScore(terms, o) * scoreScale)})
			raise()
		}
		for _, i := range byUB[ess:] {
			if terms[i].cur() == o {
				terms[i].pos++
			}
		}
	}
	return heap
}

// offer adds c to heap, a min-heap of at most k passages (the worst at the
// root), when there is room or c is better than the worst.
func offer(heap []scored, k int, c scored) []scored {
	switch {
	case len(heap) < k:
		heap = append(heap, c)
		up(heap, len(heap)-1)
	case better(c, heap[0]):
		heap[0] = c
		down(heap, 0)
	}
	return heap
}

// scoreWithin fills heap (empty, capacity k) with the k best passages of
// one document, scoring only that document's passages.
func (s *scorer) scoreWithin(terms []cursor, heap []scored, within int32) []scored {
	k := cap(heap)
	if int(within) >= len(s.docs) {
		return heap
	}
	for _, o := range s.docOrds[s.docStart[within]:s.docStart[within+1]] {
		found := false
		for i := range terms {
			terms[i].seek(o)
			found = found || terms[i].cur() == o
		}
		if !found {
			continue
		}
		heap = offer(heap, k, scored{o, math.Round(s.exactScore(terms, o) * scoreScale)})
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
