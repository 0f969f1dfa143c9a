package lexical

// The feature code as it was before the passages were interned and the
// regular expressions replaced by scanners (features.go at d6b33e4): the
// oracle the new code must equal, bit for bit (features_equal_test.go).

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

type oldDoc struct {
	text    string
	stems   []string // content-word stems, in order
	stemSet map[string]bool
	bigrams map[[2]string]bool
	years   map[string]bool
	negated bool
	words   map[string]bool // lower-case words
	numbers []numeric.Mention
	norm    string // normalise(text)
	// sentences of a passage with their negation flags and words, so
	// negation and antonyms are judged where the claim is stated.
	sentences []oldSentenceInfo
	// facts are a passage's numbers as the numeric check reads them,
	// their words read once (lint.Prepare).
	facts []lint.Fact
}

type oldSentenceInfo struct {
	stems   map[string]bool
	seq     []string // content stems in order
	bigrams map[[2]string]bool
	words   map[string]bool
	negated bool
	numbers []numeric.Mention
}

var (
	reYear  = regexp.MustCompile(`\b(1[0-9]{3}|20[0-9]{2})\b`)
	reWord  = regexp.MustCompile(`[\p{L}\p{N}]+(?:['’][\p{L}]+)?`)
	reHedge = regexp.MustCompile(`(?i)\b(may|might|could|possibly|perhaps|probably|likely|reportedly|allegedly|it is possible)\b`)
	reQual  = regexp.MustCompile(`(?i)\b(about|around|approximately|roughly|nearly|almost|between|some)\b`)
	reAbs   = regexp.MustCompile(`(?i)\b(only|never|always|all|every|entirely|solely|exclusively|first|last|sole|none|nobody|nothing|completely|totally)\b`)
	reNeg   = regexp.MustCompile(`(?i)\b(not|no|never|none|neither|nor|cannot|without|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|can't|won't|need not)\b`)
)

func oldAnalyse(text string) oldDoc {
	d := oldDoc{text: text, stemSet: map[string]bool{}, bigrams: map[[2]string]bool{}, years: map[string]bool{}, words: map[string]bool{}}
	var prev string
	for _, w := range reWord.FindAllString(text, -1) {
		lw := strings.ToLower(w)
		d.words[lw] = true
		if stop[lw] {
			prev = ""
			continue
		}
		s := stem(lw)
		d.stems = append(d.stems, s)
		d.stemSet[s] = true
		if prev != "" {
			d.bigrams[[2]string{prev, s}] = true
		}
		prev = s
	}
	for _, y := range reYear.FindAllString(text, -1) {
		d.years[y] = true
	}
	d.negated = reNeg.MatchString(text)
	d.numbers = numeric.FindNumbers(text)
	d.norm = normalise(text)
	return d
}

// oldWithSentences adds the per-sentence view a passage needs.
func oldWithSentences(d oldDoc) oldDoc {
	runes := []rune(d.text)
	for _, sp := range sentence.Split(runes) {
		t := string(runes[sp[0]:sp[1]])
		si := oldSentenceInfo{stems: map[string]bool{}, words: map[string]bool{}, bigrams: map[[2]string]bool{}, negated: reNeg.MatchString(t), numbers: numeric.FindNumbers(t)}
		prev := ""
		for _, w := range reWord.FindAllString(t, -1) {
			lw := strings.ToLower(w)
			si.words[lw] = true
			if stop[lw] {
				prev = ""
				continue
			}
			st := stem(lw)
			si.stems[st] = true
			si.seq = append(si.seq, st)
			if prev != "" {
				si.bigrams[[2]string{prev, st}] = true
			}
			prev = st
		}
		d.sentences = append(d.sentences, si)
	}
	for _, m := range d.numbers {
		d.facts = append(d.facts, lint.Fact{ID: "p", Description: d.text, Value: m.Value, Unit: m.Unit, Text: m.Text})
	}
	d.facts = lint.Prepare(d.facts)
	return d
}

// oldBestSentence is the passage sentence sharing most content stems with the claim.
func (p oldDoc) oldBestSentence(c oldClaimInfo) oldSentenceInfo {
	best, bestHits := oldSentenceInfo{words: p.words, negated: p.negated}, -1
	for _, s := range p.sentences {
		hits := 0
		for _, st := range c.stems {
			if s.stems[st] {
				hits++
			}
		}
		if hits > bestHits {
			best, bestHits = s, hits
		}
	}
	return best
}

// oldToken is one content word of a claim: its stem and its kind.
type oldToken struct {
	stem string
	kind int // kindNumber, kindEntity or kindOther
}

type oldClaimInfo struct {
	oldDoc
	entities  []string
	hedge     bool
	qualifier bool
	absolute  bool
	idf       map[string]float64
	tokens    []oldToken // content words in order, with their kinds
	// numericCheck is the claim's first number read for the numeric
	// check, once for all its passages (nil without a number).
	numericCheck *lint.ClaimCheck
}

func oldAnalyseClaim(text string, stats Stats) oldClaimInfo {
	c := oldClaimInfo{oldDoc: oldAnalyse(text), entities: entities(text), hedge: reHedge.MatchString(text), qualifier: reQual.MatchString(text), absolute: reAbs.MatchString(text)}
	for i, w := range reWord.FindAllString(text, -1) {
		lw := strings.ToLower(w)
		if stop[lw] {
			continue
		}
		k := kindOther
		switch r := []rune(w); {
		case strings.ContainsAny(w, "0123456789"):
			k = kindNumber
		case i > 0 && unicode.IsUpper(r[0]):
			k = kindEntity
		}
		c.tokens = append(c.tokens, oldToken{stem(lw), k})
	}
	if len(c.numbers) > 0 {
		c.numericCheck = lint.PrepareMention(text, c.numbers[0], lint.MatchOptions{})
	}
	c.idf = map[string]float64{}
	for _, s := range c.stems {
		w := 1.0
		if stats != nil && stats.N() > 0 {
			w = math.Log(1 + float64(stats.N())/float64(1+stats.DocFreq(s)))
		}
		c.idf[s] = w
	}
	return c
}

// oldFeatures of a claim against one passage.
func oldPassageFeatures(c oldClaimInfo, p oldDoc, bm25 float64) [nf]float64 {
	var f [nf]float64
	f[0] = 1
	if len(c.stems) > 0 {
		hit, idfHit, idfAll := 0, 0.0, 0.0
		for _, s := range c.stems {
			idfAll += c.idf[s]
			if p.stemSet[s] {
				hit++
				idfHit += c.idf[s]
			}
		}
		f[1] = float64(hit) / float64(len(c.stems))
		if idfAll > 0 {
			f[2] = idfHit / idfAll
		}
	}
	if len(c.bigrams) > 0 {
		hit := 0
		for b := range c.bigrams {
			if p.bigrams[b] {
				hit++
			}
		}
		f[3] = float64(hit) / float64(len(c.bigrams))
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
		switch c.numericCheck.Verify(p.facts).Status {
		case lint.NumericVerified:
			f[10] = 1
		case lint.NumericMismatch:
			f[11] = 1
		}
	}
	if len(c.years) > 0 && len(p.years) > 0 {
		match := false
		for y := range c.years {
			if p.years[y] {
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
	bs := p.oldBestSentence(c)
	if c.negated != bs.negated {
		f[15] = 1
	}
	for w := range c.words {
		if a, ok := antonyms[w]; ok && bs.words[a] && !bs.words[w] {
			f[16] = 1
			break
		}
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

// oldFeatures is features as it was; passages are analysed through
// oldCache (nil: every time), the map standing in for the memo cache.
func oldFeatures(pair adjudicate.Pair, stats Stats, oldCache map[string]*oldDoc) ([nf]float64, int) {
	c := oldAnalyseClaim(pair.Claim, stats)
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
		oldClaimOnly(&f, c)
		return f, -1
	}
	best, bestF := -1, [nf]float64{}
	anyEntity := len(c.entities) == 0
	var covs []float64
	bestSent, bestSentCov := oldSentenceInfo{}, -1.0
	for i, p := range pair.Passages {
		pd, ok := oldCache[p.Text]
		if !ok {
			d := oldWithSentences(oldAnalyse(p.Text))
			pd = &d
			if oldCache != nil {
				oldCache[p.Text] = pd
			}
		}
		f := oldPassageFeatures(c, *pd, p.Score)
		if f[4] > 0 && len(c.entities) > 0 {
			anyEntity = true
		}
		if best < 0 || f[2] > bestF[2] {
			best, bestF = i, f
		}
		covs = append(covs, f[2])
		for _, s := range pd.sentences {
			if cov := c.oldIdfCoverage(s.stems); cov > bestSentCov {
				bestSent, bestSentCov = s, cov
			}
		}
	}
	if !anyEntity {
		bestF[5] = 1
	}
	oldSentenceFeatures(&bestF, c, bestSent, bestSentCov)
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

// oldClaimOnly sets the oldFeatures that need no evidence.
func oldClaimOnly(f *[nf]float64, c oldClaimInfo) {
	f[35] = math.Log1p(float64(len(c.tokens)))
	if c.absolute {
		f[36] = 1
	}
}

// oldIdfCoverage is the share of the claim's idf weight whose stems are in set.
func (c oldClaimInfo) oldIdfCoverage(set map[string]bool) float64 {
	hit, all := 0.0, 0.0
	for _, s := range c.stems {
		all += c.idf[s]
		if set[s] {
			hit += c.idf[s]
		}
	}
	if all == 0 {
		return 0
	}
	return hit / all
}

// oldSentenceFeatures align the claim with the passage sentence that covers
// most of it: coverage, the unmatched words by kind, bigrams, the longest
// run of claim words in order, numbers that disagree and one-sided negation.
func oldSentenceFeatures(f *[nf]float64, c oldClaimInfo, s oldSentenceInfo, cov float64) {
	oldClaimOnly(f, c)
	if cov < 0 {
		return
	}
	f[23] = cov
	var all, miss [3]int
	for _, t := range c.tokens {
		all[t.kind]++
		if !s.stems[t.stem] {
			miss[t.kind]++
		}
	}
	for k, i := range []int{24, 25, 26} {
		if all[k] > 0 {
			f[i] = float64(miss[k]) / float64(all[k])
		}
	}
	if len(c.bigrams) > 0 {
		hit := 0
		for b := range c.bigrams {
			if s.bigrams[b] {
				hit++
			}
		}
		f[27] = float64(hit) / float64(len(c.bigrams))
	}
	if len(c.stems) > 0 {
		f[28] = float64(longestRun(c.stems, s.seq)) / float64(len(c.stems))
	}
	if len(c.numbers) > 0 && len(s.numbers) > 0 {
		agree := false
		for _, cn := range c.numbers {
			for _, sn := range s.numbers {
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
