package lint

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// Fact is a known numeric fact: a value with its unit, as written in a
// passage or a facts file, a description to match claims by (seed 001's
// Jaccard similarity), and what a claim must agree with beyond the value:
// the years or dates it is about and the words around it that name its
// entity.
type Fact struct {
	ID          string  `json:"id"` // the passage, span or fact it came from
	Description string  `json:"description"`
	Value       float64 `json:"value"`
	Unit        string  `json:"unit,omitempty"`
	Text        string  `json:"text"`            // the number as written
	Years       []int   `json:"years,omitempty"` // years or dates the fact is about
	// Context is the text that names what the number is about: the
	// sentence and the one before it for a passage. Empty means Description.
	Context  string           `json:"context,omitempty"`
	quantity numeric.Quantity // parsed, for policies
	words    *factWords       // read once by Prepare
}

// FactsFromText turns every numeric mention in a passage into a fact
// described by the sentence it stands in, dated by the years that sentence
// names, with the sentence before it as context for the entity.
func FactsFromText(id, text string) []Fact {
	var facts []Fact
	runes := []rune(text)
	prev := ""
	for _, sp := range sentence.Split(runes) {
		s := string(runes[sp[0]:sp[1]])
		ms := numeric.FindNumbers(s)
		if len(ms) > 0 {
			years := numeric.YearsIn(s) // only a sentence with a number has facts to date
			ctx, desc := strings.TrimSpace(prev+" "+s), s
			if strings.HasSuffix(ctx, s) {
				desc = ctx[len(ctx)-len(s):] // the same text, held once by the cache that keeps the facts
			}
			for _, m := range ms {
				facts = append(facts, Fact{ID: id, Description: desc, Value: m.Value, Unit: m.Unit, Text: m.Text,
					Years: years, Context: ctx, quantity: m.Quantity})
			}
		}
		prev = s
	}
	return facts
}

// MatchOptions tune fact matching. Zero values take seed 001's defaults.
type MatchOptions struct {
	MinSimilarity float64 // default 0.3
	RelTol        float64 // default 0.05: |claimed − actual| / |actual| <= RelTol
	// Policy decides whether a fact's value agrees with the claimed one.
	// "" is seed 001's relative tolerance (RelTol). "auto" reads the
	// claim as written: a bound by its bound, "about N" within RelTol, a
	// bare number at the precision it is written in ("48 million" agrees
	// with 48.2 million, "91%" with 91.4%). Any other name is that policy
	// of seed 000 (numeric.Check), with the fact as the claimed value and the
	// claim's number as the token.
	Policy string
	Params numeric.PolicyParams
	// SentenceEntity reads the claim's entity from its own sentence only,
	// and applies the entity guard only to a fact that names an entity
	// (one that names none needs a content word in common with the claim's
	// sentence). Lint sets it: seed 001's facts are descriptions ("Number
	// of built-in rules") and a line may hold several sentences. Left
	// unset (audit run), the claim is one sentence and every passage fact
	// must name the claim's entity.
	SentenceEntity bool
}

func (o *MatchOptions) defaults() {
	if o.MinSimilarity == 0 {
		o.MinSimilarity = 0.3
	}
	if o.RelTol == 0 {
		o.RelTol = numeric.DefaultRelTol
	}
}

// Numeric-check statuses (seed 001).
const (
	NumericVerified     = "verified"
	NumericMismatch     = "mismatch"
	NumericUnverifiable = "unverifiable"
	// NumericOutdated: the claim names its own source, so it is taken as
	// verified against that source but may be stale (seed 001's first
	// verdict rule).
	NumericOutdated = "outdated"
	// NumericConsistent: the matched fact states only a bound or an
	// interval ("more than 1,000") that the claim's number lies within
	// without being entailed by it ("5,000"): neither verified nor
	// contradicted.
	NumericConsistent = "consistent"
)

// What kept a fact from matching a claim. (A fact whose unit differs is
// skipped, as seed 001 says, not named as a disagreement.)
const (
	DisagreeYear   = "year"
	DisagreeEntity = "entity"
)

// NumericCheck is seed 001's verdict on a numeric claim.
type NumericCheck struct {
	Status     string             `json:"status"`
	Policy     string             `json:"policy"`
	Score      float64            `json:"score"` // the matched fact's similarity; the confidence of the verdict
	Fact       *Fact              `json:"fact,omitempty"`
	Claim      string             `json:"claim_value,omitempty"` // the claimed number as written
	Comparator numeric.Comparator `json:"comparator,omitempty"`
	Negated    bool               `json:"negated,omitempty"`
	// Disagreement names what kept the nearest fact from matching (year
	// or entity) when no fact matched; Nearest is that fact. Facts whose
	// unit differs are skipped and never named here.
	Disagreement string `json:"disagreement,omitempty"`
	Nearest      *Fact  `json:"nearest,omitempty"`
	Reason       string `json:"reason"`
}

// Similarity is seed 001's score of a fact for a claim:
// Jaccard(claim context, fact description) × 0.5 + 0.3 when the units are
// equal + 0.2 when the values match within tolerance. ok is false when both
// have units and they differ (the fact is skipped).
func Similarity(context string, value float64, unit string, f Fact, relTol float64) (score float64, ok bool) {
	q := numeric.Quantity{Kind: numeric.KindNumber, Value: value, Unit: unit}
	return similarity(context, q, f, relTol)
}

// similarity is Similarity for a claimed quantity: its value bonus goes to a
// fact that satisfies the claim as written ("more than 100" by 120).
func similarity(context string, q numeric.Quantity, f Fact, relTol float64) (float64, bool) {
	return similarityUnder(wordSet(context), q, f, MatchOptions{RelTol: relTol})
}

// ContextWords are a claim context's content words, read once for a
// context compared with many facts: Similarity reads them again on every
// call.
type ContextWords struct{ set map[string]bool }

// WordsOf reads a context's words for Similarity.
func WordsOf(context string) ContextWords { return ContextWords{wordSet(context)} }

// Similarity is Similarity of the context the words were read from.
func (w ContextWords) Similarity(value float64, unit string, f Fact, relTol float64) (float64, bool) {
	q := numeric.Quantity{Kind: numeric.KindNumber, Value: value, Unit: unit}
	return similarityUnder(w.set, q, f, MatchOptions{RelTol: relTol})
}

func similarityUnder(context map[string]bool, q numeric.Quantity, f Fact, opts MatchOptions) (float64, bool) {
	score := jaccardWords(context, f.contentWords()) * 0.5
	var ok bool
	if opts.Policy == "" {
		ok = q.HoldsFor(f.Value, opts.RelTol)
	} else {
		ok = agreesOK(q, f, opts)
	}
	if ok {
		score += 0.2
	}
	if q.Unit != "" && f.Unit != "" && q.Unit != f.Unit {
		return score, false
	}
	if q.Unit != "" && q.Unit == f.Unit {
		score += 0.3
	}
	return score, true
}

// Jaccard is the word-set similarity of two texts over their content words.
func Jaccard(a, b string) float64 {
	return jaccardSet(wordSet(a), b)
}

func wordSet(a string) map[string]bool {
	set := map[string]bool{}
	for _, w := range extract.ContentWords(a) {
		set[w] = true
	}
	return set
}

// jaccardSet is Jaccard with the first text's words counted once.
func jaccardSet(set map[string]bool, b string) float64 {
	return jaccardWords(set, extract.ContentWords(b))
}

// jaccardWords is jaccardSet of the second text's content words.
func jaccardWords(set map[string]bool, wb []string) float64 {
	if len(set) == 0 && len(wb) == 0 {
		return 0
	}
	inter := 0
	union := len(set)
	for _, w := range wb {
		if set[w] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

// FindMatchingFact returns the best fact scoring at least the threshold;
// value agreement is a bonus, not a requirement, so a fact about the same
// thing with another value is found (and reported as a mismatch). Ties go to
// the earlier fact. This is seed 001's algorithm alone; VerifyNumeric also
// requires the fact to agree with the claim on year and entity.
func FindMatchingFact(context string, value float64, unit string, facts []Fact, opts MatchOptions) (Fact, float64, bool) {
	opts.defaults()
	best, bestScore, found := Fact{}, 0.0, false
	for _, f := range facts {
		s, ok := Similarity(context, value, unit, f, opts.RelTol)
		if !ok || s < opts.MinSimilarity {
			continue
		}
		if !found || s > bestScore {
			best, bestScore, found = f, s, true
		}
	}
	return best, bestScore, found
}

// VerifyNumeric checks a claim's main number against facts: unverifiable
// when the claim has no number or no fact matches, verified when the best
// fact satisfies the claim (its value within tolerance, or inside the bound
// the claim states), mismatch otherwise.
func VerifyNumeric(claimText string, facts []Fact, opts MatchOptions) NumericCheck {
	return PrepareClaim(claimText, opts).Verify(facts)
}

func policyName(o MatchOptions) string {
	if o.Policy != "" {
		return o.Policy
	}
	return fmt.Sprintf("rel_tol=%g", o.RelTol)
}

// agrees decides whether fact value f satisfies the claimed quantity q
// under opts.Policy, and names the policy that decided.
func agrees(q numeric.Quantity, f Fact, opts MatchOptions) (ok bool, why, policy string) {
	switch opts.Policy {
	case "":
		ok, why = q.Holds(f.Value, opts.RelTol)
		return ok, why, policyName(opts)
	case numeric.PolicyAuto:
		switch {
		case q.Cmp.IsBound() || q.Negated || q.Kind == numeric.KindRange:
			ok, why = q.Holds(f.Value, opts.RelTol)
			return ok, why, numeric.PolicyAuto + ":" + numeric.PolicyRange
		case q.Cmp == numeric.CmpApprox:
			ok, why = q.Holds(f.Value, opts.RelTol)
			return ok, why, numeric.PolicyAuto + ":" + numeric.PolicyTolerance
		}
		scale := q.Scale
		if scale == 0 {
			scale = 1
		}
		got, want := numeric.RoundTo(f.Value/scale, q.Decimals), numeric.RoundTo(q.Value/scale, q.Decimals)
		if numeric.Equal(got, want) {
			return true, fmt.Sprintf("%s rounds to %s as written", numeric.FormatNumber(f.Value), strings.TrimSpace(q.Text)), numeric.PolicyAuto + ":" + numeric.PolicyRounded
		}
		return false, fmt.Sprintf("%s does not round to %s as written", numeric.FormatNumber(f.Value), strings.TrimSpace(q.Text)), numeric.PolicyAuto + ":" + numeric.PolicyRounded
	}
	fq := f.quantity
	if fq.Kind == "" {
		fq = numeric.Quantity{Kind: numeric.KindNumber, Value: f.Value, Payload: f.Value, Scale: 1, Unit: f.Unit}
	}
	d := numeric.CheckQuantity(opts.Policy, opts.Params, fq, q)
	return d.Verified, d.Reason, d.Policy
}

// agreesOK is agrees' verdict alone: the similarity of every fact reads
// it, and a rounded comparison under auto (a bare number, the usual claim)
// then writes no reason.
func agreesOK(q numeric.Quantity, f Fact, opts MatchOptions) bool {
	if opts.Policy == numeric.PolicyAuto && !q.Cmp.IsBound() && !q.Negated && q.Kind != numeric.KindRange && q.Cmp != numeric.CmpApprox {
		scale := q.Scale
		if scale == 0 {
			scale = 1
		}
		return numeric.Equal(numeric.RoundTo(f.Value/scale, q.Decimals), numeric.RoundTo(q.Value/scale, q.Decimals))
	}
	ok, _, _ := agrees(q, f, opts)
	return ok
}

// VerifyMention checks one numeric mention of context against facts. A
// fact whose unit differs from the claim's is skipped (seed 001 rule 1). A
// fact matches (seed 001: similarity >= MinSimilarity) only if it also
// agrees with the claim beyond the value:
// their years intersect when both name years, and the fact's context names
// the claim's entity. When the best-scoring fact fails one of those, the
// check is unverifiable and says which.
func VerifyMention(context string, m numeric.Mention, facts []Fact, opts MatchOptions) NumericCheck {
	return PrepareMention(context, m, opts).Verify(facts)
}

// ClaimCheck is a claimed number with what matching reads of its claim
// (years, entity, words), read once for a claim checked against several
// passages' facts.
type ClaimCheck struct {
	m          numeric.Mention
	opts       MatchOptions
	noNumber   bool
	claimYears []int
	entity     entity
	words      map[string]bool
}

// PrepareClaim is VerifyNumeric's reading of a claim, for Verify.
func PrepareClaim(claimText string, opts MatchOptions) *ClaimCheck {
	m, ok := numeric.FirstMention(claimText)
	if !ok {
		opts.defaults()
		return &ClaimCheck{opts: opts, noNumber: true}
	}
	return PrepareMention(claimText, m, opts)
}

// PrepareMention is VerifyMention's reading of a mention and its context.
func PrepareMention(context string, m numeric.Mention, opts MatchOptions) *ClaimCheck {
	opts.defaults()
	c := &ClaimCheck{m: m, opts: opts, claimYears: numeric.YearsIn(context), entity: entityWords(context, m)}
	if opts.SentenceEntity {
		own, om := sentenceOf(context, m)
		c.entity = entityWords(own, om)
		c.entity.factNamesOnly = true
		for _, w := range extract.ContentWords(own) {
			c.entity.content = append(c.entity.content, stem(w))
		}
	}
	c.words = wordSet(context)
	return c
}

// WithPolicy is the claim prepared under another numeric policy: what
// PrepareClaim (or PrepareMention) would give with opts.Policy = policy and
// the other options unchanged, without reading the claim again (what a
// claim's reading holds does not depend on the policy).
func (c *ClaimCheck) WithPolicy(policy string) *ClaimCheck {
	if c.opts.Policy == policy {
		return c
	}
	d := *c
	d.opts.Policy = policy
	return &d
}

// WithoutEntityGuard is the claim prepared with no entity guard: facts are
// matched on similarity, years and units alone. For a caller that has
// already kept only the facts about the claim's entity (the labelling
// rules, whose reading of names knows attributions, possessives and
// abbreviated titles).
func (c *ClaimCheck) WithoutEntityGuard() *ClaimCheck {
	d := *c
	d.entity = entity{}
	return &d
}

// Verify is VerifyNumeric (or VerifyMention) of the prepared claim
// against facts.
func (c *ClaimCheck) Verify(facts []Fact) NumericCheck {
	if c.noNumber {
		return NumericCheck{Status: NumericUnverifiable, Policy: policyName(c.opts), Reason: "the claim states no number"}
	}
	m, opts, claimYears, entity, words := c.m, c.opts, c.claimYears, c.entity, c.words
	q := m.Quantity
	check := NumericCheck{Policy: policyName(opts), Claim: m.Text, Comparator: q.Cmp, Negated: q.Negated}
	var best, nearest *Fact
	bestScore, nearestScore, why := 0.0, 0.0, ""
	for i := range facts {
		f := &facts[i]
		// Seed 001 rule 1: a fact whose unit differs from the claim's is
		// skipped, so it is never the nearest fact either.
		s, unitsAgree := similarityUnder(words, q, *f, opts)
		if !unitsAgree || s < opts.MinSimilarity {
			continue
		}
		reason := ""
		if r := yearsDisagree(claimYears, f.Years); r != "" {
			reason = DisagreeYear + ": " + r
		} else if r := entityDisagrees(entity, f); r != "" {
			reason = DisagreeEntity + ": " + r
		}
		if reason != "" {
			if nearest == nil || s > nearestScore {
				nearest, nearestScore, why = f, s, reason
			}
			continue
		}
		if best == nil || s > bestScore {
			best, bestScore = f, s
		}
	}
	if best == nil {
		check.Status = NumericUnverifiable
		if nearest != nil {
			nf := *nearest
			check.Nearest = &nf
			check.Disagreement = why[:strings.IndexByte(why, ':')]
			check.Reason = fmt.Sprintf("the nearest fact, %s in %s, does not match: %s", nf.Text, nf.ID, why)
		} else {
			check.Reason = fmt.Sprintf("no fact about %q scores %.2f or more", m.Text, opts.MinSimilarity)
		}
		return check
	}
	f := *best
	check.Fact, check.Score = &f, bestScore
	if f.quantity.IsInterval() {
		// The evidence states a bound, not a value: one comparator reads
		// both sides (numeric.Relate).
		holds := func(v float64) bool { return agreesOK(q, Fact{Value: v, Unit: f.Unit}, opts) }
		rel := numeric.Relate(holds, q, f.quantity, opts.RelTol)
		_, _, check.Policy = agrees(q, f, opts)
		switch rel {
		case numeric.Entailed:
			check.Status = NumericVerified
			check.Reason = fmt.Sprintf("%s holds for every value %q in %s allows", claimPhrase(m), f.quantity.Qualifier+" "+f.Text, f.ID)
		case numeric.Contradicted:
			check.Status = NumericMismatch
			check.Reason = fmt.Sprintf("%s holds for no value %q in %s allows", claimPhrase(m), f.quantity.Qualifier+" "+f.Text, f.ID)
		default:
			check.Status = NumericConsistent
			check.Reason = fmt.Sprintf("%s is consistent with %q in %s but not entailed by it", claimPhrase(m), f.quantity.Qualifier+" "+f.Text, f.ID)
		}
		return check
	}
	ok, why, used := agrees(q, f, opts)
	check.Policy = used
	if ok {
		check.Status = NumericVerified
		check.Reason = fmt.Sprintf("%s matches %s in %s: %s", claimPhrase(m), f.Text, f.ID, why)
	} else {
		check.Status = NumericMismatch
		check.Reason = fmt.Sprintf("%s differs from %s in %s: %s", claimPhrase(m), f.Text, f.ID, why)
	}
	return check
}

// claimPhrase is the claimed number with its comparator, as written.
func claimPhrase(m numeric.Mention) string {
	if m.Qualifier != "" && !strings.HasPrefix(strings.ToLower(m.Text), strings.ToLower(m.Qualifier)) {
		if m.Negated {
			return "not " + m.Qualifier + " " + m.Text
		}
		return m.Qualifier + " " + m.Text
	}
	return m.Text
}

func yearsDisagree(claim, fact []int) string {
	if len(claim) == 0 || len(fact) == 0 {
		return ""
	}
	for _, a := range claim {
		for _, b := range fact {
			if a == b {
				return ""
			}
		}
	}
	return fmt.Sprintf("the claim is about %s, the fact about %s", joinInts(claim), joinInts(fact))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// entity is what a numeric claim is about: its proper names when it has
// any ("Meridian Rail"), else its other content words ("city").
type entity struct {
	names bool
	words []string
	// content are the stemmed content words of the claim's sentence, its
	// unit included: what a fact that names no entity must share with it.
	content []string
	// factNamesOnly: the guard applies only to a fact that names an
	// entity (MatchOptions.SentenceEntity).
	factNamesOnly bool
}

// entityWords takes the claim's words outside the number, its unit, its
// comparator, its years and its verbs.
func entityWords(context string, m numeric.Mention) entity {
	var names, others []string
	seen := map[string]bool{}
	skip := map[string]bool{}
	for _, w := range wordsOf(m.Text + " " + m.Qualifier + " " + m.Unit) {
		skip[w] = true
	}
	first := true
	pos := 0
	for _, tok := range strings.Fields(context) {
		start := strings.Index(context[pos:], tok) + pos
		pos = start + len(tok)
		inMention := m.End > m.Start && start >= m.Start && start < m.End
		isFirst := first
		first = false
		if inMention {
			continue
		}
		for _, w := range splitWord(tok) {
			lw := strings.ToLower(w)
			if seen[lw] || skip[lw] || len([]rune(lw)) < 2 || sentence.IsStopword(lw) || extract.IsVerb(lw) || extract.IsClauseStarter(lw) ||
				numeric.IsMonth(lw) || numeric.IsNumberWord(lw) || (len(lw) > 4 && strings.HasSuffix(lw, "ed")) || comparatorWord[lw] {
				continue
			}
			seen[lw] = true
			r := []rune(w)
			if unicode.IsUpper(r[0]) && !(isFirst && sentence.IsCommonOpener(lw)) {
				names = append(names, stem(lw))
			} else if len(r) >= 3 {
				others = append(others, stem(lw))
			}
		}
	}
	if len(names) > 0 {
		return entity{names: true, words: names}
	}
	return entity{words: others}
}

// sentenceOf returns the sentence of context that holds the mention, with
// the mention's offsets moved into it: a claim is about what its own
// sentence names, not what a sentence before it on the same line named.
func sentenceOf(context string, m numeric.Mention) (string, numeric.Mention) {
	if m.Start < 0 || m.Start > len(context) {
		return context, m
	}
	runes := []rune(context)
	at := utf8.RuneCountInString(context[:m.Start])
	for _, sp := range sentence.Split(runes) {
		if at < sp[0] || at >= sp[1] {
			continue
		}
		from := len(string(runes[:sp[0]]))
		s := string(runes[sp[0]:sp[1]])
		m.Start, m.End = m.Start-from, min(m.End-from, len(s))
		return s, m
	}
	return context, m
}

// entityDisagrees: without factNamesOnly, and when the fact names an entity (a proper name in its
// context: "Northwind Rail"), a claim with proper names needs more than half
// of them in the fact's context, and one without needs at least one of its
// content words. A fact that names none ("Number of built-in rules") cannot
// disagree on an entity: it only needs one content word in common with the
// claim's sentence ("ISL includes 25 built-in rules"), so that a unit alone
// ("%") does not tie a claim to a fact about something else.
func entityDisagrees(e entity, f *Fact) string {
	have := f.contextStems()
	if e.factNamesOnly && !f.contextNamesEntity() {
		for _, w := range e.content {
			if have.has(w) {
				return ""
			}
		}
		return "the fact shares no word with the claim's sentence"
	}
	if len(e.words) == 0 {
		return ""
	}
	hit := 0
	for _, w := range e.words {
		if have.has(w) {
			hit++
		}
	}
	if e.names && 2*hit > len(e.words) || !e.names && hit > 0 {
		return ""
	}
	return fmt.Sprintf("the claim is about %q, which the fact's context does not name", strings.Join(e.words, " "))
}

func wordsOf(s string) []string {
	var out []string
	for _, w := range splitWord(s) {
		out = append(out, strings.ToLower(w))
	}
	return out
}

func splitWord(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

var comparatorWord = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range numeric.ComparatorPhrases() {
		for _, w := range strings.Fields(p) {
			m[w] = true
		}
	}
	for _, w := range []string{"not", "never", "total", "totals", "number", "reached", "nearly"} {
		m[w] = true
	}
	return m
}()

// String names a fact for rationales.
func (f Fact) String() string {
	return fmt.Sprintf("%s (%s: %q)", f.Text, f.ID, strings.TrimSpace(f.Description))
}
