package lexical

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/go-porterstemmer"
	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/memo"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// FeatureNames lists the model's inputs in order. Changing them changes
// FeatureVersion and needs new weights.
var FeatureNames = []string{
	"has_evidence", "coverage", "idf_coverage", "bigram_coverage", "entity_coverage", "entity_absent",
	"claim_number", "number_verified", "number_mismatch", "number_absent", "fact_verified", "fact_mismatch",
	"year_match", "year_mismatch", "timeframe_missing", "negation_parity", "antonym", "hedge", "qualifier",
	"bm25", "coverage_x_number_verified", "coverage_x_number_mismatch", "coverage_x_negation",
	// alignment with the best sentence of all k passages
	"sent_idf_coverage", "sent_unmatched_number", "sent_unmatched_entity", "sent_unmatched_other", "sent_bigram_coverage",
	"sent_longest_run", "sent_number_conflict", "neg_claim_only", "neg_passage_only",
	// aggregation over the k passages and the claim itself
	"mean_idf_coverage", "coverage_margin", "bm25_margin", "claim_length", "claim_absolute",
}

// FeatureVersion names the feature set; weights record it. 2: entities
// matched on normalised tokens; negation and antonyms judged on the passage
// sentence that best matches the claim.
// 3: alignment with the best sentence over all passages (coverage by word
// kind, longest run, number conflict), one-sided negation, aggregation over
// the k passages, claim length and absolute words.
const FeatureVersion = 3

const nf = 37

// Stats gives idf: the index's document frequencies.
type Stats = adjudicate.CorpusStats

// passage is an analysed passage, read by every claim it is retrieved
// for. Sets are sorted slices of vocabulary ids (membership by binary
// search) and the sentences are views into two shared arrays: a window of
// a generated document costs ~2 KB (~4 KB once its numeric facts are
// made) where its maps of strings cost ~10 KB, so the cache holds more
// passages in less memory.
type passage struct {
	stems    []uint32 // distinct content-word stems
	bigrams  []uint64 // distinct pairs of adjacent content stems (bigramKey)
	years    []int    // distinct years
	negated  bool
	antonyms uint64 // its words of antonym pairs (antonymBit)
	numbers  []numeric.Mention
	norm     string // normalise(text)
	// sentences, so that negation, antonyms and the alignment features
	// are judged where the claim is stated.
	sentences []sentenceView
	// facts are the numbers as the numeric check reads them, their words
	// read once (lint.Prepare): made when a claim with a number first
	// reads the passage, as most passages are read by none (they were a
	// third of the analysis time and half of a passage's memory).
	text      string
	factsOnce sync.Once
	facts     []lint.Fact
}

func (p *passage) factsOf() []lint.Fact {
	p.factsOnce.Do(func() {
		var facts []lint.Fact
		for _, m := range p.numbers {
			facts = append(facts, lint.Fact{ID: "p", Description: p.text, Value: m.Value, Unit: m.Unit, Text: m.Text})
		}
		p.facts = lint.Prepare(facts)
	})
	return p.facts
}

type sentenceView struct {
	stems    []uint32 // distinct content stems, sorted
	seq      []uint32 // content stems in order
	bigrams  []uint64 // distinct, sorted
	antonyms uint64
	negated  bool
	// numbers are read only for the sentence that best covers a claim
	// with a number, one per claim: found then, not for every sentence
	// of every passage (they were a third of the passage analysis).
	text        string
	numbersOnce sync.Once
	numbers     []numeric.Mention
}

func (s *sentenceView) numbersOf() []numeric.Mention {
	s.numbersOnce.Do(func() { s.numbers = numeric.FindNumbers(s.text) })
	return s.numbers
}

func bigramKey(a, b uint32) uint64 { return uint64(a)<<32 | uint64(b) }

// has reports whether sorted set holds x (noID is in no set).
func has[T uint32 | uint64](set []T, x T) bool {
	lo, hi := 0, len(set)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if set[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(set) && set[lo] == x
}

// tokens is the word scan of a text: its content stems in order, its
// bigrams (a stop word breaks the chain) and its antonym words.
type tokens struct {
	seq      []uint32
	bigrams  []uint64
	antonyms uint64
}

func (v *vocabulary) scan(text string, t *tokens) {
	t.seq, t.bigrams, t.antonyms = t.seq[:0], t.bigrams[:0], 0
	prev, hasPrev := uint32(0), false
	for i := 0; ; {
		b, e := nextWord(text, i)
		if b < 0 {
			break
		}
		i = e
		l := v.lexemeOf(text[b:e])
		t.antonyms |= l.antonym
		if l.stop {
			hasPrev = false
			continue
		}
		t.seq = append(t.seq, l.stem)
		if hasPrev {
			t.bigrams = append(t.bigrams, bigramKey(prev, l.stem))
		}
		prev, hasPrev = l.stem, !l.emptyStem
	}
}

// sortedSet appends the distinct values of xs, sorted, to dst.
func sortedSet[T uint32 | uint64](dst, xs []T) []T {
	n := len(dst)
	dst = append(dst, xs...)
	s := dst[n:]
	slices.Sort(s)
	return dst[:n+len(slices.Compact(s))]
}

// analysePassage analyses a passage's text: the whole of it, then each
// sentence as sentence.Split cuts it (each sentence scanned on its own,
// as its words may differ from the whole's at a cut).
func (v *vocabulary) analysePassage(text string) *passage {
	p := &passage{text: text, negated: negationWords.match(text), numbers: numeric.FindNumbers(text), norm: normalise(text)}
	eachYear(text, func(y int) { p.years = append(p.years, y) })
	slices.Sort(p.years)
	p.years = slices.Compact(p.years)
	var t tokens
	v.scan(text, &t)
	p.antonyms = t.antonyms
	type ranges struct{ stems, seq, bigrams [2]int }
	var (
		ids  = sortedSet(nil, t.seq)
		keys = sortedSet(nil, t.bigrams)
		rs   []ranges
	)
	nStems, nBigrams := len(ids), len(keys)
	runes := []rune(text)
	// A sentence is string(runes[a:b]): for valid UTF-8 the same bytes as
	// text's slice at the runes' byte offsets, which costs no copy; invalid
	// UTF-8 becomes U+FFFD in string(runes), as it did.
	var offsets []int
	if utf8.ValidString(text) {
		offsets = make([]int, 0, len(runes)+1)
		for i := range text {
			offsets = append(offsets, i)
		}
		offsets = append(offsets, len(text))
	}
	for _, sp := range sentence.Split(runes) {
		var st string
		if offsets != nil {
			st = text[offsets[sp[0]]:offsets[sp[1]]]
		} else {
			st = string(runes[sp[0]:sp[1]])
		}
		v.scan(st, &t)
		var r ranges
		r.stems[0] = len(ids)
		ids = sortedSet(ids, t.seq)
		r.stems[1] = len(ids)
		r.seq[0] = len(ids)
		ids = append(ids, t.seq...)
		r.seq[1] = len(ids)
		r.bigrams[0] = len(keys)
		keys = sortedSet(keys, t.bigrams)
		r.bigrams[1] = len(keys)
		rs = append(rs, r)
		p.sentences = append(p.sentences, sentenceView{antonyms: t.antonyms, negated: negationWords.match(st), text: st})
	}
	// One exact-size array of each kind, for the views to share.
	ids, keys = slices.Clone(ids), slices.Clone(keys)
	p.stems, p.bigrams = ids[:nStems:nStems], keys[:nBigrams:nBigrams]
	for i, r := range rs {
		s := &p.sentences[i]
		s.stems = ids[r.stems[0]:r.stems[1]:r.stems[1]]
		s.seq = ids[r.seq[0]:r.seq[1]:r.seq[1]]
		s.bigrams = keys[r.bigrams[0]:r.bigrams[1]:r.bigrams[1]]
	}
	return p
}

// bestSentence is the passage sentence sharing most content stems with the
// claim (the first of equals); the whole passage when it has none.
func (p *passage) bestSentence(c *claimInfo) *sentenceView {
	best, bestHits := (*sentenceView)(nil), -1
	for i := range p.sentences {
		s := &p.sentences[i]
		hits := 0
		for _, id := range c.ids {
			if has(s.stems, id) {
				hits++
			}
		}
		if hits > bestHits {
			best, bestHits = s, hits
		}
	}
	if best == nil {
		return &sentenceView{antonyms: p.antonyms, negated: p.negated}
	}
	return best
}

var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of and or to in on at by for with from as is are was were be been being it its this that these those
		has have had do does did will would can could may might must should shall which who whom whose what when where why how
		than then there their they them he she his her we our you your i me my not no also into about over under up down out
		so such only own same too very just more most other some any each all both few s t`) {
		m[w] = true
	}
	return m
}()

// antonyms maps a word to its opposite, both ways.
var antonyms = func() map[string]string {
	m := map[string]string{}
	for _, p := range [][2]string{{"rose", "fell"}, {"rise", "fall"}, {"rises", "falls"}, {"increased", "decreased"}, {"increase", "decrease"},
		{"higher", "lower"}, {"more", "less"}, {"before", "after"}, {"gained", "lost"}, {"won", "lost"}, {"open", "closed"},
		{"opened", "closed"}, {"larger", "smaller"}, {"largest", "smallest"}, {"grew", "shrank"}, {"up", "down"}, {"above", "below"},
		{"public", "private"}, {"freshwater", "saltwater"}, {"included", "excluded"}, {"allowed", "prohibited"}, {"must", "need"},
		{"first", "last"}, {"north", "south"}, {"east", "west"}, {"comedy", "horror"}, {"male", "female"}, {"alive", "dead"}} {
		m[p[0]] = p[1]
		m[p[1]] = p[0]
	}
	return m
}()

func stem(w string) string { return porterstemmer.StemString(strings.ToLower(w)) }

// entities are runs of capitalised words (a run ends at punctuation or a
// bracket), normalised to lower-case alphanumeric tokens so that "Guns N'
// Roses" matches "Guns N ' Roses" in tokenised text.
func entities(text string) []string {
	var out []string
	words := strings.Fields(text)
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], ".,;:!?()\"'")
		if w == "" || strings.HasPrefix(words[i], "(") || !unicode.IsUpper([]rune(w)[0]) || (i == 0 && stop[strings.ToLower(w)]) {
			continue
		}
		run := []string{w}
		j := i + 1
		for j < len(words) && !strings.ContainsAny(words[j-1][len(words[j-1])-1:], ",;:.!?)") {
			x := strings.Trim(words[j], ".,;:!?()\"'")
			if x == "" || strings.HasPrefix(words[j], "(") || !unicode.IsUpper([]rune(x)[0]) {
				break
			}
			run = append(run, x)
			j++
		}
		if e := normalise(strings.Join(run, " ")); e != "" {
			out = append(out, e)
		}
		i = j - 1
	}
	return out
}

// normalise lower-cases text and keeps its letters and digits as
// space-separated tokens, framed by spaces for whole-token matching.
func normalise(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(f) == 0 {
		return ""
	}
	return " " + strings.Join(f, " ") + " "
}

type claimInfo struct {
	stems []string  // content-word stems, in order
	ids   []uint32  // their vocabulary ids (noID: in no analysed passage)
	idf   []float64 // their idf weights
	kinds []int     // their kinds (kindNumber, kindEntity or kindOther)
	// bigrams are the ids of its distinct bigrams whose stems have ids;
	// nBigrams counts them all.
	bigrams   []uint64
	nBigrams  int
	years     []int // distinct years
	negated   bool
	antonyms  uint64
	numbers   []numeric.Mention
	entities  []string
	hedge     bool
	qualifier bool
	absolute  bool
	// numericCheck is the claim's first number read for the numeric
	// check, once for all its passages (nil without a number).
	numericCheck *lint.ClaimCheck
}

const (
	kindNumber = iota
	kindEntity
	kindOther
)

// analyseClaim reads a claim. Its passages are analysed first, so any of
// its stems they hold has an id (the vocabulary only grows); a stem it
// does not find is in none of them.
func analyseClaim(text string, stats Stats, v *vocabulary) claimInfo {
	c := claimInfo{entities: entities(text), hedge: hedgeWords.match(text), qualifier: qualifierWords.match(text), absolute: absoluteWords.match(text),
		negated: negationWords.match(text), numbers: numeric.FindNumbers(text)}
	type pair struct{ a, b int } // stem indexes
	var bigrams []pair
	prev := ""
	for i, n := 0, 0; ; n++ {
		b, e := nextWord(text, i)
		if b < 0 {
			break
		}
		i = e
		w := text[b:e]
		l, st, known := v.lookup(w)
		if !known {
			lw := strings.ToLower(w)
			l = lexeme{stop: stop[lw], antonym: antonymBit[lw]}
			if !l.stop {
				st = stem(lw)
			}
		}
		c.antonyms |= l.antonym
		if l.stop {
			prev = ""
			continue
		}
		k := kindOther
		switch r, _ := utf8.DecodeRuneInString(w); {
		case strings.ContainsAny(w, "0123456789"):
			k = kindNumber
		case n > 0 && unicode.IsUpper(r):
			k = kindEntity
		}
		id := l.stem
		if !known {
			id = v.stemID(st)
		}
		c.stems, c.ids, c.kinds = append(c.stems, st), append(c.ids, id), append(c.kinds, k)
		if prev != "" {
			p := pair{len(c.stems) - 2, len(c.stems) - 1}
			if !slices.ContainsFunc(bigrams, func(q pair) bool { return c.stems[q.a] == c.stems[p.a] && c.stems[q.b] == c.stems[p.b] }) {
				bigrams = append(bigrams, p)
			}
		}
		prev = st
	}
	c.nBigrams = len(bigrams)
	for _, p := range bigrams {
		if a, b := c.ids[p.a], c.ids[p.b]; a != noID && b != noID {
			c.bigrams = append(c.bigrams, bigramKey(a, b))
		}
	}
	eachYear(text, func(y int) {
		if !slices.Contains(c.years, y) {
			c.years = append(c.years, y)
		}
	})
	if len(c.numbers) > 0 {
		c.numericCheck = lint.PrepareMention(text, c.numbers[0], lint.MatchOptions{})
	}
	c.idf = make([]float64, len(c.stems))
	for i, s := range c.stems {
		if j := slices.Index(c.stems[:i], s); j >= 0 {
			c.idf[i] = c.idf[j]
			continue
		}
		w := 1.0
		if stats != nil && stats.N() > 0 {
			w = math.Log(1 + float64(stats.N())/float64(1+stats.DocFreq(s)))
		}
		c.idf[i] = w
	}
	return c
}

// features of a claim against one passage.
func passageFeatures(c *claimInfo, p *passage, bm25 float64) [nf]float64 {
	var f [nf]float64
	f[0] = 1
	if len(c.stems) > 0 {
		hit, idfHit, idfAll := 0, 0.0, 0.0
		for i, id := range c.ids {
			idfAll += c.idf[i]
			if has(p.stems, id) {
				hit++
				idfHit += c.idf[i]
			}
		}
		f[1] = float64(hit) / float64(len(c.stems))
		if idfAll > 0 {
			f[2] = idfHit / idfAll
		}
	}
	if c.nBigrams > 0 {
		hit := 0
		for _, b := range c.bigrams {
			if has(p.bigrams, b) {
				hit++
			}
		}
		f[3] = float64(hit) / float64(c.nBigrams)
	}
	if len(c.entities) > 0 {
		hit := 0
		for _, e := range c.entities {
			if strings.Contains(p.norm, e) {
				hit++
			}
		}
		f[4] = float64(hit) / float64(len(c.entities))
	} else {
		f[4] = 1
	}
	if len(c.numbers) > 0 {
		f[6] = 1
		q := c.numbers[0].Quantity
		switch {
		case len(p.numbers) == 0:
			f[9] = 1
		default:
			verified, comparable := false, false
			for _, m := range p.numbers {
				if q.Unit != "" && m.Unit != "" && q.Unit != m.Unit && !(q.Unit == "%" || m.Unit == "%") {
					continue
				}
				comparable = true
				if numeric.CheckQuantity(numeric.PolicyAuto, numeric.PolicyParams{}, m.Quantity, q).Verified {
					verified = true
					break
				}
			}
			if verified {
				f[7] = 1
			} else if comparable {
				f[8] = 1
			} else {
				f[9] = 1
			}
		}
		switch c.numericCheck.Verify(p.factsOf()).Status {
		case lint.NumericVerified:
			f[10] = 1
		case lint.NumericMismatch:
			f[11] = 1
		}
	}
	if len(c.years) > 0 && len(p.years) > 0 {
		match := false
		for _, y := range c.years {
			if slices.Contains(p.years, y) {
				match = true
			}
		}
		if match {
			f[12] = 1
		} else {
			f[13] = 1
		}
	}
	if len(c.years) == 0 && len(p.years) >= 2 {
		f[14] = 1
	}
	bs := p.bestSentence(c)
	if c.negated != bs.negated {
		f[15] = 1
	}
	if antonymCrosses(c.antonyms, bs.antonyms) {
		f[16] = 1
	}
	if c.hedge {
		f[17] = 1
	}
	if c.qualifier {
		f[18] = 1
	}
	f[19] = math.Log1p(math.Max(0, bm25))
	f[20] = f[2] * f[7]
	f[21] = f[2] * f[8]
	f[22] = f[2] * f[15]
	return f
}

// Features returns the model input for a pair and the index of the
// deciding passage: the one covering most of the claim's idf weight (ties:
// the better-ranked). Entity absence is judged over all passages.
func Features(pair adjudicate.Pair, stats Stats) ([nf]float64, int) {
	return features(pair, stats, nil)
}

func features(pair adjudicate.Pair, stats Stats, cache *passageCache) ([nf]float64, int) {
	if cache == nil {
		cache = &passageCache{vocab: newVocabulary()}
	}
	pds := cache.passages(pair)
	c := analyseClaim(pair.Claim, stats, cache.vocab)
	return featuresOf(pair, pds, &c)
}

// passages are a pair's passages analysed (added to the vocabulary).
func (c *passageCache) passages(pair adjudicate.Pair) []*passage {
	pds := make([]*passage, len(pair.Passages))
	for i, p := range pair.Passages {
		pds[i] = c.get(p.Text)
	}
	return pds
}

// featuresOf is features with the pair's passages and claim analysed: the
// claim after its passages, so any of its stems they hold has an id (a
// claim analysed after more passages than the pair's — another pair's of
// the same claim — has ids for more stems, none of them in the pair's
// passages, and gets the same features).
func featuresOf(pair adjudicate.Pair, pds []*passage, c *claimInfo) ([nf]float64, int) {
	if len(pair.Passages) == 0 {
		var f [nf]float64
		if len(c.entities) > 0 {
			f[5] = 1
		}
		if len(c.numbers) > 0 {
			f[6] = 1
		}
		if c.hedge {
			f[17] = 1
		}
		if c.qualifier {
			f[18] = 1
		}
		claimOnly(&f, c)
		return f, -1
	}
	best, bestF := -1, [nf]float64{}
	anyEntity := len(c.entities) == 0
	covs := make([]float64, 0, len(pds))
	var bestSent *sentenceView
	bestSentCov := -1.0
	for i, pd := range pds {
		f := passageFeatures(c, pd, pair.Passages[i].Score)
		if f[4] > 0 && len(c.entities) > 0 {
			anyEntity = true
		}
		if best < 0 || f[2] > bestF[2] {
			best, bestF = i, f
		}
		covs = append(covs, f[2])
		for j := range pd.sentences {
			if cov := c.idfCoverage(pd.sentences[j].stems); cov > bestSentCov {
				bestSent, bestSentCov = &pd.sentences[j], cov
			}
		}
	}
	if !anyEntity {
		bestF[5] = 1
	}
	sentenceFeatures(&bestF, c, bestSent, bestSentCov)
	sort.Sort(sort.Reverse(sort.Float64Slice(covs)))
	mean := 0.0
	for _, v := range covs {
		mean += v
	}
	bestF[32] = mean / float64(len(covs))
	if len(covs) > 1 {
		bestF[33] = covs[0] - covs[1]
	}
	if s0 := pair.Passages[0].Score; len(pair.Passages) > 1 && s0 > 0 {
		bestF[34] = (s0 - pair.Passages[1].Score) / s0
	}
	return bestF, best
}

// passageCache keeps passages already analysed: one run retrieves the same
// passages for many claims (100k generated claims read 500k passages, of
// 16k distinct). Bounded by entry count (memo's clock eviction), so a run
// whose passages fit analyses each once; its vocabulary gives the ids the
// passages hold. A cache without memo analyses every time.
type passageCache struct {
	m     *memo.Cache[string, *passage]
	vocab *vocabulary
}

func newPassageCache(capacity int) *passageCache {
	return &passageCache{m: memo.New[string, *passage](capacity), vocab: newVocabulary()}
}

func (c *passageCache) get(text string) *passage {
	return c.m.Get(text, func() *passage { return c.vocab.analysePassage(text) })
}

// claimOnly sets the features that need no evidence.
func claimOnly(f *[nf]float64, c *claimInfo) {
	f[35] = math.Log1p(float64(len(c.stems)))
	if c.absolute {
		f[36] = 1
	}
}

// idfCoverage is the share of the claim's idf weight whose stems are in set.
func (c *claimInfo) idfCoverage(set []uint32) float64 {
	hit, all := 0.0, 0.0
	for i, id := range c.ids {
		all += c.idf[i]
		if has(set, id) {
			hit += c.idf[i]
		}
	}
	if all == 0 {
		return 0
	}
	return hit / all
}

// sentenceFeatures align the claim with the passage sentence that covers
// most of it: coverage, the unmatched words by kind, bigrams, the longest
// run of claim words in order, numbers that disagree and one-sided negation.
func sentenceFeatures(f *[nf]float64, c *claimInfo, s *sentenceView, cov float64) {
	claimOnly(f, c)
	if cov < 0 {
		return
	}
	f[23] = cov
	var all, miss [3]int
	for i, k := range c.kinds {
		all[k]++
		if !has(s.stems, c.ids[i]) {
			miss[k]++
		}
	}
	for k, i := range []int{24, 25, 26} {
		if all[k] > 0 {
			f[i] = float64(miss[k]) / float64(all[k])
		}
	}
	if c.nBigrams > 0 {
		hit := 0
		for _, b := range c.bigrams {
			if has(s.bigrams, b) {
				hit++
			}
		}
		f[27] = float64(hit) / float64(c.nBigrams)
	}
	if len(c.stems) > 0 {
		f[28] = float64(longestRun(c.ids, s.seq)) / float64(len(c.stems))
	}
	if len(c.numbers) > 0 && len(s.numbersOf()) > 0 {
		agree := false
		for _, cn := range c.numbers {
			for _, sn := range s.numbersOf() {
				if numeric.CheckQuantity(numeric.PolicyAuto, numeric.PolicyParams{}, sn.Quantity, cn.Quantity).Verified {
					agree = true
				}
			}
		}
		if !agree {
			f[29] = 1
		}
	}
	if c.negated && !s.negated {
		f[30] = 1
	}
	if s.negated && !c.negated {
		f[31] = 1
	}
}

// longestRun is the length of the longest run of a's items found
// contiguously, in order, in b.
func longestRun[T comparable](a, b []T) int {
	best := 0
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
				best = max(best, cur[j+1])
			} else {
				cur[j+1] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}
