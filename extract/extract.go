package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// Output is one model output to extract claims from.
type Output struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Query string `json:"query,omitempty"`
	// QueryID groups regenerations of one query; Attempt numbers them (0
	// the first answer), HasAttempt says the file gave one.
	QueryID    string `json:"query_id,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	HasAttempt bool   `json:"-"`
	// Cites are evidence ids given for the whole output: each of its claims
	// cites them besides its own inline anchors.
	Cites []string `json:"cites,omitempty"`
	// Contexts are the passages the output was written from (a RAG
	// system's retrieved contexts): each becomes a document of its own,
	// ContextID(ID, i), and every claim of the output cites them all.
	Contexts []string `json:"contexts,omitempty"`
	Line     int      `json:"-"` // in the outputs file
}

// ContextID is the document id of an output's i-th context.
func ContextID(outputID string, i int) string { return fmt.Sprintf("%s#ctx%d", outputID, i) }

// ExtractOptions tune Extract. By default hedged ("may", "about 40%") and
// contextual ("for example", "in this sample") claims are skipped.
type ExtractOptions struct {
	IncludeHedged     bool
	IncludeContextual bool
	// Split divides a plain-text input into outputs: SplitNone (the file is
	// one output) or SplitParagraphs (each paragraph, between blank lines).
	Split string
	// Source, when set, decomposes each output into facts (an LLM) in place
	// of the rules' segmentation; Workers outputs are asked at once.
	Source  FactSource
	Workers int
}

// How a plain-text input is divided into outputs.
const (
	SplitNone       = "none"
	SplitParagraphs = "paragraphs"
)

// Skip reasons, counted in ExtractStats.
const (
	SkipQuestion    = "question"
	SkipImperative  = "imperative"
	SkipOpinion     = "opinion"
	SkipAck         = "acknowledgement"
	SkipMeta        = "meta-statement"
	SkipFragment    = "fragment"
	SkipHedged      = "hedged"
	SkipContextual  = "contextual"
	SkipDuplicate   = "duplicate"
	SkipVersionOnly = "version"
	SkipHeading     = "heading"
)

// ExtractStats counts what extraction kept and why it dropped the rest.
type ExtractStats struct {
	Outputs   int            `json:"outputs"`
	Sentences int            `json:"sentences"`
	Claims    int            `json:"claims"`
	Skipped   map[string]int `json:"skipped"`
	// Errors are the outputs whose claims could not be extracted (an LLM's
	// malformed answer, a refusal, a timeout), in input order.
	Errors []OutputError `json:"errors,omitempty"`
}

// OutputError is an output extraction failed on.
type OutputError struct {
	ID    string `json:"id"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func (s *ExtractStats) skip(reason string) {
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	s.Skipped[reason]++
}

var (
	reCite      = regexp.MustCompile(`\s*\[cite:\s*([^\]]+)\]`)
	reVersion   = regexp.MustCompile(`(?i)\bv(?:ersion)?\s?\d+(?:\.\d+)+\b|\bv\d+\b`)
	reApproxNum = regexp.MustCompile(`(?i)\b(approximately|about|around|roughly|nearly|almost|up to|some|circa)\s+[$€£]?\d`)
	// "may" is a hedge in lower case or opening the sentence ("May" inside
	// a sentence is the month).
	reModalHedge = regexp.MustCompile(`(?i:\b(maybe|might|could|possibly|possible|perhaps|probably|likely|unlikely|appears? to|seems? to|suggests?|reportedly|allegedly)\b)|\bmay\b|^May\b`)
	reContextual = regexp.MustCompile(`(?i)\b(in this example|for example|for instance|as an example|in this sample|sample data|a sample|hypothetically|suppose|imagine|let's say|in this scenario|e\.g\.)`)
	reYear       = regexp.MustCompile(`\b(1[0-9]{3}|2[0-9]{3})\b|\b\d{1,4}\s?(?:AD|BC|BCE|CE)\b`)
	reMonth      = regexp.MustCompile(`(?i:\b(january|february|march|april|june|july|august|september|october|november|december)\b)|[^.!?]\s+May\b`)
	reTemporal   = regexp.MustCompile(`(?i)\b(since|until|before|after|ago|during|century|decade|annually|yearly|weekly|daily)\b`)
	rePolicy     = regexp.MustCompile(`(?i)\b(must|shall|required|requires|prohibited|forbidden|not allowed|allowed to|permitted|policy|rule|regulation|law requires|mandatory|entitled to|eligible)\b`)
	reDefinition = regexp.MustCompile(`(?i)\b(is defined as|are defined as|refers to|refer to|means|is called|are called|is known as|is a term for|stands for)\b|^("|')?[\w' -]+("|')? is (a|an) [\w -]+ (that|which|who|used|in which)\b`)
	// Evaluations rather than facts: "It is a must-see.", "The film is amazing."
	reEvaluative = regexp.MustCompile(`(?i)\b(must-(?:see|watch|read|have|try|visit)|masterpiece|worth (?:watching|reading|seeing|a visit|the (?:money|wait|price))|highly recommended|a joy to|(?:is|was|are|were|looks|sounds) (?:so |really |truly |absolutely )?(?:great|amazing|awesome|fantastic|excellent|terrible|awful|boring|overrated|underrated|brilliant|wonderful|gorgeous|stunning|incredible|superb|disappointing|a (?:great|fun|good|bad|must)|an (?:amazing|excellent|awesome|incredible))\b)`)
	reImportance = regexp.MustCompile(`(?i)\b(must|required|always|never|only|important|key|critical|essential|significant|main|primary|mandatory)\b`)
)

var (
	openers = []string{
		"however", "therefore", "moreover", "furthermore", "additionally", "also", "in addition", "thus",
		"hence", "so", "as a result", "consequently", "in summary", "in conclusion", "overall", "to summarize",
		"to sum up", "first", "firstly", "second", "secondly", "third", "finally", "lastly", "in fact",
		"indeed", "notably", "importantly", "as mentioned", "as noted",
	}
	acknowledgements = []string{
		"sure", "certainly", "of course", "absolutely", "great question", "good question", "thanks", "thank you",
		"you're welcome", "happy to help", "i understand", "i see", "okay", "ok", "hello", "hi", "yes", "no",
		"got it", "understood", "no problem",
	}
	opinions = []string{
		"i think", "i believe", "i feel", "i guess", "i suppose", "in my view", "in my opinion", "personally",
		"it seems to me", "my view is", "i would say", "i'd say", "to me", "i reckon", "i recommend",
		"i'd recommend", "i would recommend", "we recommend", "i love", "i like", "i enjoyed", "i hate",
		"i loved", "i liked", "honestly", "frankly",
	}
	// Second-person advice: "You should watch it."
	advice = []string{
		"you should", "you must", "you need to", "you have to", "you ought to", "you'll want", "you will want",
		"you might want", "you may want", "you'll love", "you will love", "you can't go wrong", "you won't regret",
		"you'd better", "you had better", "if you", "we suggest", "i suggest", "i'd suggest",
	}
	metaStarts = []string{
		"here is", "here are", "here's", "below is", "below are", "in this answer", "in this response",
		"this answer", "this response", "as an ai", "i hope this helps", "hope this helps", "let me know",
		"feel free", "i can help", "i'd be happy", "i would be happy", "i will", "i'll", "let me",
		"the following", "as follows", "i don't know", "i do not know", "i'm not sure", "i am not sure",
	}
	imperatives = []string{
		"note", "consider", "remember", "make sure", "try", "use", "please", "let's", "click", "see", "check",
		"ensure", "avoid", "contact", "ask", "read", "visit", "keep", "do", "don't", "be sure", "go", "take",
		"call", "refer", "follow", "install", "run", "open", "add", "remove", "select", "enter", "submit",
		"watch", "buy", "skip", "give", "enjoy", "don't miss", "do not miss", "check out", "grab", "explore",
		"discover", "start", "stop", "learn", "pick", "book", "subscribe", "download", "join", "sign up",
	}
	// Words that make a clause a clause: auxiliaries and common verbs.
	verbs = map[string]bool{
		"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "has": true, "have": true,
		"had": true, "will": true, "would": true, "can": true, "could": true, "may": true, "might": true,
		"must": true, "should": true, "does": true, "did": true, "do": true, "shall": true, "grew": true,
		"rose": true, "fell": true, "made": true, "became": true, "won": true, "lost": true, "ran": true,
		"contains": true, "includes": true, "covers": true, "carries": true, "employs": true, "serves": true,
		"operates": true, "holds": true, "owns": true, "uses": true, "runs": true, "lies": true, "flows": true,
		"borders": true, "produces": true, "costs": true, "weighs": true, "measures": true, "remains": true,
		"stays": true, "takes": true, "gives": true, "leads": true, "means": true, "shows": true, "says": true,
		"reports": true, "stands": true, "spans": true, "lasts": true, "requires": true, "allows": true,
		"began": true, "built": true, "wrote": true, "sold": true, "paid": true, "met": true, "led": true,
		"left": true, "found": true, "got": true, "took": true, "gave": true, "kept": true, "held": true,
		"shrank": true, "sank": true, "drove": true, "flew": true, "saw": true, "came": true, "went": true,
		"knew": true, "thought": true, "told": true, "broke": true, "brought": true, "bought": true,
		"caught": true, "chose": true, "drew": true, "ate": true, "felt": true, "fought": true, "froze": true,
		"hid": true, "hit": true, "lay": true, "meant": true, "put": true, "rode": true, "said": true,
		"sent": true, "set": true, "shook": true, "shut": true, "sat": true, "slept": true, "spoke": true,
		"spent": true, "spread": true, "stood": true, "stole": true, "struck": true, "swam": true,
		"taught": true, "threw": true, "understood": true, "woke": true, "wore": true,
	}
	clauseStarters = map[string]bool{
		"the": true, "a": true, "an": true, "it": true, "he": true, "she": true, "they": true, "we": true,
		"this": true, "that": true, "these": true, "those": true, "its": true, "their": true, "his": true,
		"her": true, "there": true, "our": true, "i": true, "you": true,
	}
)

// IsVerb reports a lower-case auxiliary or common verb ("is", "grew",
// "employs"): a word that makes a clause a clause.
func IsVerb(lower string) bool { return verbs[lower] }

// IsClauseStarter reports a lower-case determiner or pronoun that opens a
// clause ("the", "it", "their").
func IsClauseStarter(lower string) bool { return clauseStarters[lower] }

// Extract returns the atomic claims of one model output, in text order.
func Extract(o Output, opts ExtractOptions, stats *ExtractStats) []claims.Claim {
	if stats == nil {
		stats = &ExtractStats{}
	}
	stats.Outputs++
	runes := []rune(o.Text)
	seen := map[string]bool{}
	var out []claims.Claim
	prevSubject := ""
	for _, sp := range sentence.Split(runes) {
		stats.Sentences++
		text := string(runes[sp[0]:sp[1]])
		sentCites := citesOf(text)
		// Anchors stay in the text, against the word they follow, until the
		// sentence is split: each clause keeps its own.
		text = strings.TrimSpace(reCiteSpace.ReplaceAllString(text, "[cite:"))
		text, reason := factual(text)
		if reason != "" {
			stats.skip(reason)
			if reason != SkipImperative && reason != SkipAck && reason != SkipMeta && reason != SkipHeading {
				prevSubject = ""
			}
			continue
		}
		subj := prevSubject
		for i, part := range splitCompound(text) {
			cites := citesOf(part)
			if len(cites) == 0 {
				cites = sentCites // a clause without an anchor of its own: the sentence's
			}
			cites = withOutputCites(cites, o.Cites)
			part = strings.TrimSpace(reCite.ReplaceAllString(part, ""))
			// "It grossed…" after "The Matrix is a film." is about The
			// Matrix; the second clause of a compound is about the first's
			// subject.
			pronoun := ""
			if !reExpletive.MatchString(part) {
				part, pronoun = resolvePronoun(part, subj)
			}
			if i == 0 {
				subj = subjectOf(part)
				prevSubject = subj
			}
			c, reason := o.claim(part, cites, opts)
			if pronoun != "" && reason == "" {
				// A pronoun nothing before settles: kept, but marked, since
				// nothing can verify the claim on its own.
				c.Notes = joinNote(c.Notes, "contextual: unresolved pronoun \""+pronoun+"\"")
			}
			if reason != "" {
				stats.skip(reason)
				continue
			}
			key := dedupeKey(c.Text)
			if seen[key] {
				stats.skip(SkipDuplicate)
				continue
			}
			seen[key] = true
			out = append(out, c)
			stats.Claims++
		}
	}
	return out
}

// factual strips leading connectors and acknowledgements and returns the
// assertion left, or the reason the sentence is not a factual assertion.
func factual(s string) (string, string) {
	if strings.HasSuffix(s, "?") {
		return "", SkipQuestion
	}
	if isHeading(s) {
		return "", SkipHeading
	}
	s = reListMarker.ReplaceAllString(s, "")
	s, _ = stripMetaOpener(s)
	lower := strings.ToLower(s)
	if isAcknowledgement(lower) {
		return "", SkipAck
	}
	for _, p := range opinions {
		if hasWordPrefix(lower, p) {
			return "", SkipOpinion
		}
	}
	for _, p := range metaStarts {
		if hasWordPrefix(lower, p) {
			return "", SkipMeta
		}
	}
	for changed := true; changed; {
		changed = false
		for _, lists := range [][]string{acknowledgements, openers} {
			for _, p := range lists {
				if hasWordPrefix(lower, p) {
					if (p == "no" || p == "yes") && !strings.ContainsAny(s[len(p):min(len(s), len(p)+1)], ",;:!.—–-") {
						continue // "No refunds are given…" is no answer to a question
					}
					rest := strings.TrimLeft(s[len(p):], " ,;:!.—–-")
					if strings.TrimSpace(rest) == "" || strings.TrimRight(rest, ".!") == "" {
						return "", SkipAck
					}
					s, lower, changed = sentence.UpperFirst(rest), strings.ToLower(rest), true
				}
			}
		}
		if rest, ok := stripMetaOpener(s); ok {
			s, lower, changed = rest, strings.ToLower(rest), true // "Also, please note that …"
		}
	}
	for _, p := range opinions {
		if hasWordPrefix(lower, p) {
			return "", SkipOpinion
		}
	}
	for _, p := range metaStarts {
		if hasWordPrefix(lower, p) {
			return "", SkipMeta
		}
	}
	for _, p := range imperatives {
		if hasWordPrefix(lower, p) {
			return "", SkipImperative
		}
	}
	for _, p := range advice {
		if hasWordPrefix(lower, p) {
			return "", SkipImperative
		}
	}
	if isImperative(s) {
		return "", SkipImperative
	}
	if reEvaluative.MatchString(s) {
		return "", SkipOpinion
	}
	// A fragment of fewer than three words is kept only when it states a
	// number with what it counts ("50% success", "25 rules").
	if n := len(strings.Fields(s)); n < 2 || n < 3 && len(numeric.FindNumbers(s)) == 0 {
		return "", SkipFragment
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s, ""
}

func hasWordPrefix(lower, p string) bool {
	if !strings.HasPrefix(lower, p) {
		return false
	}
	if len(lower) == len(p) {
		return true
	}
	r := []rune(lower[len(p):])[0]
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
}

// splitCompound splits "Paris is in France and Berlin is in Germany" into
// two claims. It splits at ", and", " and", " but", " while", "; " and
// " whereas" only when both sides are clauses (a verb on each side, and the
// right side opening with a subject), so noun-phrase conjunctions such as
// "salt and pepper" or "research and development" stay whole.
func splitCompound(s string) []string {
	body := strings.TrimRight(s, ".!")
	end := s[len(body):]
	words := strings.Fields(body)
	for i := 1; i < len(words)-1; i++ {
		w := strings.ToLower(strings.TrimRight(words[i], ","))
		prevComma := strings.HasSuffix(words[i-1], ",") || strings.HasSuffix(words[i-1], ";")
		isConj := w == "and" || w == "but" || w == "while" || w == "whereas"
		if !isConj && !strings.HasSuffix(words[i-1], ";") {
			continue
		}
		j := i + 1
		if !isConj {
			j = i // "X; Y": the conjunction is the semicolon
		}
		left, right := words[:i], words[j:]
		if !isConj {
			left = append(append([]string(nil), words[:i-1]...), strings.TrimRight(words[i-1], ";"))
		}
		if !hasVerb(left) || !hasVerb(right) && !verbLike(right[0]) {
			continue
		}
		if !opensClause(right) {
			subj, ok := splitVerbPhrase(left, right)
			if !ok || !isConj || w == "while" || w == "whereas" {
				continue
			}
			if prevComma {
				left = append(append([]string(nil), left[:len(left)-1]...), strings.TrimRight(left[len(left)-1], ",;"))
			}
			rest := splitCompound(subj + " " + strings.Join(right, " ") + end)
			return append([]string{strings.Join(left, " ") + "."}, rest...)
		}
		if isConj && prevComma {
			left = append(append([]string(nil), left[:len(left)-1]...), strings.TrimRight(left[len(left)-1], ",;"))
		}
		l := strings.Join(left, " ") + "."
		rest := splitCompound(sentence.UpperFirst(strings.Join(right, " ")) + end)
		return append([]string{l}, rest...)
	}
	return []string{s}
}

func hasVerb(words []string) bool {
	for k, w := range words {
		w = strings.ToLower(strings.Trim(w, ",;:\"'()"))
		if verbs[w] || (len(w) > 4 && strings.HasSuffix(w, "ed")) {
			return true
		}
		// "the office handles sales": after a determiner and a noun, a word
		// ending in -s is the verb.
		if k >= 1 && k <= 3 && clauseStarters[strings.ToLower(words[0])] && len(w) > 3 &&
			strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !capitalised(words[k]) {
			return true
		}
	}
	return false
}

// opensClause: the right side starts with a subject — a determiner or
// pronoun, or a word that is not itself a verb followed within three words
// by a verb ("ticket sales made up 78%"). A right side that starts with a
// verb ("... and spans 503 metres") shares the left side's subject and
// stays joined.
func opensClause(words []string) bool {
	first := strings.ToLower(strings.Trim(words[0], ",;:\"'()"))
	if clauseStarters[first] {
		return true
	}
	if first == "" || verbs[first] || (len(first) > 4 && strings.HasSuffix(first, "ed")) {
		return false
	}
	// "unemployment among young men was 14%": a noun and the phrase that
	// narrows it can hold the verb back to the fifth word.
	reach := 3
	if len(words) > 1 && populationPrepositions[strings.ToLower(words[1])] {
		reach = 5
	}
	for k := 1; k < len(words) && k <= reach; k++ {
		if strings.HasSuffix(words[k-1], ",") || strings.HasSuffix(words[k-1], ";") {
			// "rebounds, and he won": the words before the comma end a
			// noun phrase of the left side, not a subject of their own.
			return false
		}
		w := strings.ToLower(strings.Trim(words[k], ",;:\"'()"))
		if w == "and" || w == "or" || w == "but" || w == "nor" {
			return false
		}
		if verbs[w] || (len(w) > 4 && strings.HasSuffix(w, "ed")) {
			return true
		}
	}
	return false
}

func dedupeKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimRight(s, ".!"))), " ")
}

// claim builds one claim from an atomic sentence, or says why it is skipped.
func (o Output) claim(text string, cites []string, opts ExtractOptions) (claims.Claim, string) {
	c := claims.Claim{SourceID: o.ID, Text: text, Modality: "assertion", Polarity: "positive", Cite: cites}
	c.ID = claimID(o.ID, text)
	if reNegation.MatchString(text) {
		c.Polarity = "negative"
	}
	if m := reContextual.FindString(text); m != "" {
		if !opts.IncludeContextual {
			return c, SkipContextual
		}
		c.Notes = joinNote(c.Notes, "contextual: "+strings.ToLower(m))
	}
	hedge := reModalHedge.FindString(text)
	if hedge == "" {
		if m := reApproxNum.FindStringSubmatch(text); m != nil {
			hedge = m[1]
		}
	}
	if hedge != "" {
		// A hedged claim that carries a citation is kept: its writer points
		// at the evidence, and the number can be checked against it.
		if !opts.IncludeHedged && len(cites) == 0 {
			return c, SkipHedged
		}
		c.Notes = joinNote(c.Notes, "hedged: "+strings.ToLower(hedge))
		c.Modality = "possibility"
	}
	spans := qualify(&c)
	mentions := numeric.FindNumbers(text)
	numM, hasNum := pickQuantity(text, outside(mentions, spans))
	num := alternatives(text, numM)
	switch {
	case hasNum:
		c.Type = "numeric"
		q := num.Text
		if num.Qualifier != "" && strings.Contains(strings.ToLower(text), strings.ToLower(num.Qualifier+" "+num.Text)) {
			q = num.Qualifier + " " + num.Text // "about 330 metres", as written
		}
		c.Qualifiers.Quantity = claims.StrScalar(q)
		c.Qualifiers.Unit = num.Unit
		c.Normalization.Value = claims.NumScalar(num.Value)
		// "5,000 people in 2020": the year the number holds for.
		c.Timeframe = timeframe(text, mentions)
	case reYear.MatchString(text) || reMonth.MatchString(text) || reTemporal.MatchString(text):
		c.Type = "temporal"
		c.Timeframe = timeframe(text, mentions)
	case rePolicy.MatchString(text):
		c.Type = "policy"
	case reDefinition.MatchString(text):
		c.Type = "definitional"
	default:
		c.Type = "fact"
	}
	if !hasNum && reVersion.MatchString(text) && len(strings.Fields(reVersion.ReplaceAllString(text, ""))) < 3 {
		return c, SkipVersionOnly
	}
	c.Importance = importance(c, o.Query)
	structure(&c)
	return c, ""
}

var reNegation = regexp.MustCompile(`(?i)\b(not|no|never|none|neither|nor|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|cannot|can't|won't)\b`)

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// importance follows seed 002 §3.5: a direct answer to the query or a
// numeric claim is critical; a policy or a claim with importance markers is
// material; the rest is minor.
func importance(c claims.Claim, query string) string {
	switch {
	case isDirectAnswer(c.Text, query), c.Type == "numeric":
		return "critical"
	case c.Type == "policy", reImportance.MatchString(c.Text):
		return "material"
	}
	return "minor"
}

// isDirectAnswer: the claim contains at least half of the query's content
// words, and at least two of them unless the query has only one or two
// ("Where is the office?" is answered by a claim about the office). Words
// are compared without a plural or third-person -s ("offices", "opens").
func isDirectAnswer(claim, query string) bool {
	q := contentWords(query)
	if len(q) == 0 {
		return false
	}
	cw := map[string]bool{}
	for _, w := range contentWords(claim) {
		cw[stem(w)] = true
	}
	hit := 0
	for _, w := range q {
		if cw[stem(w)] {
			hit++
		}
	}
	return hit >= min(2, (len(q)+1)/2) && 2*hit >= len(q)
}

// stem folds a plural or third-person -s: "offices" and "office", "opens"
// and "open".
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// ContentWords returns the distinct lower-case words of s of three letters
// or more that are not stopwords, in order: what the Jaccard similarity of
// fact matching and the direct-answer test compare.
func ContentWords(s string) []string { return contentWords(s) }

func contentWords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 || sentence.IsStopword(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// claimID is stable: the output id plus a hash of the normalised claim text,
// so re-running extraction, or adding a claim elsewhere in the output, does
// not renumber the others.
func claimID(source, text string) string {
	h := sha256.Sum256([]byte(source + "\x00" + dedupeKey(text)))
	return source + "#" + hex.EncodeToString(h[:4])
}

var (
	subjectPronouns    = map[string]bool{"it": true, "he": true, "she": true, "they": true}
	possessivePronouns = map[string]bool{"its": true, "his": true, "her": true, "their": true}
	personPronouns     = map[string]bool{"he": true, "she": true, "his": true, "her": true}
)

// resolvePronoun replaces a pronoun that opens s ("It grossed…", "Its
// budget…") by the subject of the sentence before when that is
// unambiguous: a short noun phrase (a name, for he and she, with no other
// name beside it). It returns s unchanged and the pronoun when the pronoun
// stays unresolved, and "" when s opens with no pronoun or it was resolved.
func resolvePronoun(s, prevSubject string) (string, string) {
	words := strings.Fields(s)
	if len(words) < 2 {
		return s, ""
	}
	first := strings.ToLower(strings.Trim(words[0], ",;:"))
	if !subjectPronouns[first] && !possessivePronouns[first] {
		return s, ""
	}
	if first == "her" && !(len(words) > 1 && !verbs[strings.ToLower(words[1])]) {
		return s, first
	}
	subj := prevSubject
	switch {
	case subj == "", first == "they" || first == "their":
		return s, first
	case personPronouns[first] && !isName(subj):
		return s, first
	}
	rest := strings.TrimPrefix(s, words[0])
	if possessivePronouns[first] {
		if strings.HasSuffix(subj, "s") {
			return subj + "'" + rest, ""
		}
		return subj + "'s" + rest, ""
	}
	return subj + rest, ""
}

// subjectOf returns the noun phrase that opens s before its first verb
// ("The Matrix" in "The Matrix is a 1999 film."), or "" when there is none
// that a later pronoun could stand for: a phrase of one to six words, with
// no comma, that does not open with a pronoun or a preposition.
func subjectOf(s string) string {
	words := strings.Fields(s)
	for k, w := range words {
		lw := strings.ToLower(strings.Trim(w, ",;:\"'()"))
		// "The linter ships…": after a determiner and a noun, a word in -s.
		sVerb := (k == 2 || k == 3) && clauseStarters[strings.ToLower(words[0])] && len(lw) > 3 && strings.HasSuffix(lw, "s") &&
			!strings.HasSuffix(lw, "ss") && !capitalised(w)
		if !(verbs[lw] || sVerb || (len(lw) > 4 && strings.HasSuffix(lw, "ed"))) {
			if strings.ContainsAny(w, ",;:()") {
				return ""
			}
			continue
		}
		if k == 0 || k > 6 {
			return ""
		}
		first := strings.ToLower(words[0])
		if subjectPronouns[first] || possessivePronouns[first] || sentence.IsCommonOpener(first) || first == "there" ||
			first == "this" || first == "these" || first == "those" || first == "i" || first == "we" || first == "you" {
			return ""
		}
		return strings.Join(words[:k], " ")
	}
	return ""
}

// isName: every word capitalised and no determiner ("Michael Jordan", not
// "The team").
func isName(phrase string) bool {
	for _, w := range strings.Fields(phrase) {
		r := []rune(w)
		if !unicode.IsUpper(r[0]) || clauseStarters[strings.ToLower(w)] {
			return false
		}
	}
	return phrase != ""
}

// InferType is the type a claim without one declared has, read as the
// rules extractor types what it extracts: numeric when it gives a quantity
// or a numeric value or its text states a number, temporal when it gives a
// timeframe or its text names a year, a month or a time, policy or
// definitional by their wording, fact otherwise.
func InferType(c *claims.Claim) string {
	switch n := c.Normalization.Value; {
	case c.Qualifiers.Quantity != nil, n != nil && n.IsNum:
		return "numeric"
	}
	if _, ok := pickQuantity(c.Text, numeric.FindNumbers(c.Text)); ok {
		return "numeric"
	}
	switch {
	case c.Timeframe != nil, reYear.MatchString(c.Text), reMonth.MatchString(c.Text), reTemporal.MatchString(c.Text):
		return "temporal"
	case rePolicy.MatchString(c.Text):
		return "policy"
	case reDefinition.MatchString(c.Text):
		return "definitional"
	}
	return "fact"
}
