package extract

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// Rules of extraction that read a sentence's shape: acknowledgements,
// imperatives, expletive "it", headings, verb-phrase coordination, label
// numbers, number alternatives, and the subject–predicate–object split.

// ackWhole open a sentence that thanks, apologises or acknowledges: the
// whole sentence asserts nothing when what follows is about the exchange
// ("Thank you for asking about…", "I understand your concern…").
var ackWhole = []string{"thank you", "thanks", "many thanks", "i understand", "i appreciate", "we appreciate", "sorry",
	"i'm sorry", "i am sorry", "apologies", "happy to help", "glad to help", "glad you asked", "you're welcome",
	"you are welcome", "good question", "great question"}

// ackTail are the words after an acknowledgement that keep the sentence
// about the exchange.
var ackTail = map[string]bool{"for": true, "with": true, "about": true, "to": true, "on": true, "your": true, "you": true,
	"again": true, "so": true, "in": true, "that": true, "very": true, "much": true}

// isAcknowledgement: the sentence is an acknowledgement as a whole.
func isAcknowledgement(lower string) bool {
	for _, p := range ackWhole {
		if !hasWordPrefix(lower, p) {
			continue
		}
		rest := strings.Fields(strings.TrimLeft(lower[len(p):], " ,;:!.—–-"))
		if len(rest) == 0 || ackTail[strings.Trim(rest[0], ",.;:!")] {
			return true
		}
	}
	return false
}

// imperativeObjects follow a verb in the imperative: "Close the door",
// "Bring your passport", "Turn left", "Fill in the form".
var imperativeObjects = map[string]bool{"the": true, "a": true, "an": true, "your": true, "my": true, "our": true, "this": true,
	"that": true, "these": true, "those": true, "all": true, "any": true, "every": true, "each": true, "it": true, "them": true,
	"me": true, "us": true, "up": true, "out": true, "in": true, "off": true, "left": true, "right": true, "down": true,
	"back": true, "over": true, "away": true, "yourself": true}

// imperativeAdverbs may open an imperative: "Always check…", "Never share…".
var imperativeAdverbs = map[string]bool{"always": true, "never": true, "just": true, "simply": true, "now": true, "then": true,
	"first": true, "next": true, "kindly": true}

// isImperative: the sentence opens with a bare verb and its object, with
// no subject ("Close the door.", "Never share your password."). The verb is
// recognised by its place: a lower-case-able word that is not a determiner,
// pronoun or known finite verb, not ending in -s, -ed or -ing, followed by
// an object word.
func isImperative(s string) bool {
	words := strings.Fields(s)
	if len(words) > 1 && imperativeAdverbs[strings.ToLower(words[0])] {
		words = words[1:]
	}
	if len(words) < 2 {
		return false
	}
	first := strings.ToLower(strings.Trim(words[0], ",;:"))
	second := strings.ToLower(strings.Trim(words[1], ",;:."))
	if clauseStarters[first] || verbs[first] || sentence.IsCommonOpener(first) || !imperativeObjects[second] {
		return false
	}
	for _, suf := range []string{"s", "ed", "ing"} {
		if strings.HasSuffix(first, suf) && (suf != "ing" || len(first) > 5) {
			return false
		}
	}
	for _, r := range first {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	if imperativeParticles[second] {
		// "Fill in the form", but not "Nitrate in Elquasu Lake averaged…"
		// nor "Revenue in the first quarter rose…": a particle opens an
		// imperative only before an object and with no finite verb after.
		if len(words) > 2 {
			third := strings.ToLower(strings.Trim(words[2], ",;:."))
			if !imperativeObjects[third] && !particleFollowers[third] || imperativeParticles[third] {
				return false
			}
		}
		for _, w := range words[min(3, len(words)):] {
			if lw := strings.ToLower(strings.Trim(w, ",;:.")); verbs[lw] || participle(lw) {
				return false
			}
		}
	}
	return true
}

// particleFollowers may follow a phrasal verb's particle: "Turn left at…".
var particleFollowers = map[string]bool{"at": true, "to": true, "on": true, "into": true, "onto": true, "from": true,
	"toward": true, "towards": true, "after": true, "before": true}

// imperativeParticles follow a phrasal verb ("Fill in", "Turn off") but
// also a noun ("Revenue in 2022").
var imperativeParticles = map[string]bool{"in": true, "up": true, "out": true, "off": true, "down": true, "back": true,
	"over": true, "away": true, "left": true, "right": true}

// reExpletive: "it" that stands for nothing — "It is important that…",
// "It is mandatory to…", "It was reported that…", "It takes 3 hours to…".
var reExpletive = regexp.MustCompile(`(?i)^it\s+(?:(?:is|was|has been|will be|would be|seems|appears|remains)\s+(?:\S+\s+){0,3}?(?:that|to|whether|if|for)\b|(?:takes|took|costs|cost)\s)`)

// isHeading: a Markdown heading ("# ISL Features").
func isHeading(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "#") }

// verbLike: the word can open a verb phrase ("operates", "opened", "is").
func verbLike(w string) bool {
	w = strings.ToLower(strings.Trim(w, ",;:\"'()"))
	if verbs[w] {
		return true
	}
	if w == "" || !unicode.IsLetter([]rune(w)[0]) {
		return false
	}
	return len(w) > 4 && strings.HasSuffix(w, "ed") || len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss")
}

// splitVerbPhrase splits "The company employs 10,000 people and operates in
// 40 countries" into two claims with the subject repeated, when the left
// side is a clause whose verb has something after it and the right side
// is a verb phrase of at least two words. "The firm designs and builds
// bridges" stays whole (nothing follows "designs"), as does "sells shoes
// and bags made in Italy" ("bags" is followed by a verb).
func splitVerbPhrase(left, right []string) (string, bool) {
	if len(right) < 2 || !verbLike(right[0]) || unicode.IsUpper([]rune(right[0])[0]) || strings.HasSuffix(right[0], ",") {
		return "", false // "in blocks and rebounds, and he won…": a list of nouns
	}
	if !verbs[strings.ToLower(right[0])] && verbLike(right[1]) && !strings.HasSuffix(strings.ToLower(right[1]), "ed") {
		return "", false
	}
	if !verbs[strings.ToLower(right[0])] && strings.HasSuffix(strings.ToLower(right[1]), "ed") {
		return "", false
	}
	subj := subjectOf(strings.Join(left, " "))
	if subj == "" {
		return "", false
	}
	n := len(strings.Fields(subj))
	verbAt := -1
	for k := n; k < len(left); k++ {
		if verbLike(left[k]) {
			verbAt = k
			break
		}
	}
	if verbAt < 0 || verbAt >= len(left)-1 {
		return "", false
	}
	return subj, true
}

// labelWords name the thing a number labels rather than counts: "Line 2",
// "Step 3", "Section 5".
var labelWords = map[string]bool{"line": true, "step": true, "section": true, "chapter": true, "item": true, "page": true,
	"figure": true, "fig.": true, "table": true, "part": true, "phase": true, "stage": true, "level": true, "grade": true,
	"no.": true, "number": true, "#": true, "room": true, "row": true, "column": true, "article": true, "clause": true,
	"version": true, "appendix": true, "exhibit": true, "slide": true, "question": true, "q": true, "lines": true}

// pickQuantity is the claim's quantity among the numbers found in text:
// the first that does not label something ("Line 2 with 50% …" states 50%),
// or the first when all do.
func pickQuantity(text string, ms []numeric.Mention) (numeric.Mention, bool) {
	ms = slices.DeleteFunc(slices.Clone(ms), func(m numeric.Mention) bool { return reEra.MatchString(m.Text) })
	if len(ms) == 0 {
		return numeric.Mention{}, false
	}
	for _, m := range ms {
		before := strings.Fields(text[:m.Start])
		if len(before) > 0 && labelWords[strings.ToLower(before[len(before)-1])] {
			continue
		}
		return m, true
	}
	return ms[0], true
}

// reEra is a year of an era ("80 AD"): a date, not a quantity.
var reEra = regexp.MustCompile(`^\d{1,4}\s?(?:AD|BC|BCE|CE)$`)

// reListMarker is a list marker inside the text ("2) Geneva is…").
var reListMarker = regexp.MustCompile(`^(?:\(?\d{1,2}[.)]|[a-z][)]|[-*•])\s+`)

// structure fills the claim's subject (the noun phrase before its first
// verb), predicate (that verb with the auxiliaries, adverbs and particles
// that follow it), object (the rest) and entities (runs of capitalised
// words, a leading "The" left out), where the rules find them.
func structure(c *claims.Claim) {
	text := strings.TrimRight(c.Text, ".!")
	if reExpletive.MatchString(text) {
		c.Normalization.Entities = entities(text)
		return
	}
	subj := subjectOf(text)
	if subj != "" {
		rest := strings.Fields(strings.TrimSpace(text[len(subj):]))
		k := 1
		for k < len(rest) && k < 4 && (verbs[strings.ToLower(rest[k])] || participle(rest[k]) || predicateTail[strings.ToLower(rest[k])]) &&
			!strings.ContainsAny(rest[k-1], ",;") {
			k++
		}
		if len(rest) > 0 {
			c.Subject = subj
			c.Predicate = strings.Join(rest[:k], " ")
			c.Object = strings.Join(rest[k:], " ")
		}
	}
	c.Normalization.Entities = entities(text)
}

// participle: a word in -ed ("was completed").
func participle(w string) bool {
	w = strings.ToLower(w)
	return len(w) > 4 && strings.HasSuffix(w, "ed")
}

// predicateTail are words that belong to the verb: "is not", "was also",
// "has been".
var predicateTail = map[string]bool{"not": true, "also": true, "never": true, "been": true, "be": true, "being": true,
	"now": true, "still": true, "only": true, "always": true, "often": true, "n't": true}

// entities are the runs of capitalised words of text — names — with a
// leading determiner left out; the first word of the text counts only in a
// run of two or more ("The Eiffel Tower", "Acme Corp"), not alone ("Visitors").
func entities(text string) []string {
	words := strings.Fields(text)
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(words); {
		if !capitalised(words[i]) {
			i++
			continue
		}
		j := i
		for j < len(words) && capitalised(words[j]) {
			j++
			if strings.ContainsAny(words[j-1], ",;:") {
				break
			}
		}
		run := words[i:j]
		if len(run) > 0 && clauseStarters[strings.ToLower(run[0])] {
			run = run[1:]
		}
		alone := i == 0 && j-i == 1
		name := strings.Trim(strings.Join(run, " "), ",;:\"'()")
		if strings.Count(name, ".") == 1 && strings.HasSuffix(name, ".") {
			name = strings.TrimSuffix(name, ".") // the full stop, not an abbreviation's
		}
		name = strings.TrimSuffix(name, "'s")
		if name != "" && !alone && !seen[name] && !reMonthName.MatchString(name) {
			seen[name] = true
			out = append(out, name)
		}
		i = j
	}
	return out
}

// reMonthName is a month or weekday alone: a date, not an entity.
var reMonthName = regexp.MustCompile(`^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$`)

func capitalised(w string) bool {
	w = strings.Trim(w, "\"'(")
	r := []rune(w)
	return len(r) > 0 && unicode.IsUpper(r[0])
}

// reCiteSpace is the space before a citation anchor.
var reCiteSpace = regexp.MustCompile(`\s+\[(?:cite:)`)

// citesOf are the ids of the [cite:X] anchors in s ("[cite:a, b]" names two).
func citesOf(s string) []string {
	var cites []string
	for _, m := range reCite.FindAllStringSubmatch(s, -1) {
		for _, c := range strings.Split(m[1], ",") {
			if c = strings.TrimSpace(c); c != "" {
				cites = append(cites, c)
			}
		}
	}
	return cites
}

// withOutputCites adds the output's own evidence ids to a claim's anchors,
// each once.
func withOutputCites(cites, output []string) []string {
	if len(output) == 0 {
		return cites
	}
	out := slices.Clone(cites)
	for _, c := range output {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// FactSource decomposes an output into atomic facts (an LLM extractor,
// package extract/llm).
type FactSource interface {
	Facts(ctx context.Context, text, query string) ([]string, error)
}

// ExtractFacts builds the claims of one output from the facts a FactSource
// gives: each fact is one claim, typed, weighed and structured by the same
// rules as a rule-based claim (hedged and contextual facts are skipped the
// same way; [cite:X] anchors in a fact are its cite, besides the output's
// own). An error is the output's: no claim is made up for it.
func ExtractFacts(ctx context.Context, src FactSource, o Output, opts ExtractOptions, stats *ExtractStats) ([]claims.Claim, error) {
	if stats == nil {
		stats = &ExtractStats{}
	}
	stats.Outputs++
	facts, err := src.Facts(ctx, o.Text, o.Query)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []claims.Claim
	for _, f := range facts {
		stats.Sentences++
		cites := withOutputCites(citesOf(f), o.Cites)
		f = strings.TrimSpace(reCite.ReplaceAllString(f, ""))
		if !strings.HasSuffix(f, ".") && !strings.HasSuffix(f, "!") {
			f += "."
		}
		c, reason := o.claim(sentence.UpperFirst(f), cites, opts)
		if reason == "" && seen[dedupeKey(c.Text)] {
			reason = SkipDuplicate
		}
		if reason != "" {
			stats.skip(reason)
			continue
		}
		seen[dedupeKey(c.Text)] = true
		out = append(out, c)
		stats.Claims++
	}
	return out, nil
}
