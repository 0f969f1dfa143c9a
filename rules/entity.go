package rules

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/memo"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// Entities: which named thing a claim and a passage speak of. Two passages
// that share name words ("Linarlin Medical Centre", "Linlohal Medical
// Centre"; "Mimivor", "Mimivor Falls"; "Kalo Lake", "Kadan Kalo Lake")
// speak of different things, so a rule that compares what passages say
// about the claim's subject (conflict, numeric) first keeps the passages
// that name that subject: the name as whole words, not extended by a
// capitalised word on either side (which would make it part of a longer
// name).

// word is one word of a text: its bytes, lower-cased form, whether it is
// capitalised, and whether a space alone (or a hyphen) separates it from
// the word before (false after punctuation: a comma, a full stop).
type word struct {
	lower    string
	unit     bool // it follows a slash ("mg/L"): part of a unit, never a name
	capital  bool
	joined   bool // only white space separates it from the previous word
	sentence bool // it opens the text or follows a sentence end
}

// wordsOfText splits a text into words: runs of letters, digits,
// apostrophes inside a word and hyphens inside a word.
func wordsOfText(s string) []word {
	var out []word
	i := 0
	prevEnd := -1
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isNameRune(r) {
			i += n
			continue
		}
		start := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if isNameRune(r) {
				i += n
				continue
			}
			// an apostrophe or hyphen inside a word ("O'Neil", "Coster-Waldau")
			if (r == '\'' || r == '-' || r == '’') && i+n < len(s) {
				if r2, _ := utf8.DecodeRuneInString(s[i+n:]); unicode.IsLetter(r2) {
					i += n
					continue
				}
			}
			break
		}
		w := s[start:i]
		first, _ := utf8.DecodeRuneInString(w)
		gap := ""
		if prevEnd >= 0 {
			gap = s[prevEnd:start]
		}
		lower := strings.ToLower(w)
		// "Marsh Hospital's": the possessive names Marsh Hospital.
		for _, suf := range []string{"'s", "’s"} {
			if len(lower) > len(suf) && strings.HasSuffix(lower, suf) {
				lower = lower[:len(lower)-len(suf)]
			}
		}
		wd := word{
			lower:    lower,
			capital:  unicode.IsUpper(first),
			joined:   prevEnd >= 0 && strings.TrimSpace(gap) == "",
			sentence: prevEnd < 0 || endsSentence(gap),
			unit:     strings.HasSuffix(gap, "/"),
		}
		// "St. Maren", "Mt. Olver": an abbreviated title is part of the
		// name that follows, and reads as the word it abbreviates.
		if n := len(out); n > 0 && strings.TrimSpace(gap) == "." && out[n-1].capital {
			if full, ok := nameAbbreviations[out[n-1].lower]; ok {
				out[n-1].lower = full
				wd.joined, wd.sentence = true, false
			}
		}
		out = append(out, wd)
		prevEnd = i
	}
	return out
}

func isNameRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// endsSentence says whether the text between two words ends a sentence.
func endsSentence(gap string) bool {
	return strings.ContainsAny(gap, ".!?:;")
}

// nameConnectors join capitalised words into one name ("Institute of
// Technology", "Leonardo da Vinci").
var nameConnectors = map[string]bool{"of": true, "de": true, "da": true, "del": true, "der": true, "van": true,
	"von": true, "la": true, "le": true, "du": true, "y": true}

// nameWord says whether word i of ws can be part of a name: capitalised,
// and not a common word that is capitalised only because it opens a
// sentence ("The", "In"), nor a month or weekday.
func nameWord(ws []word, i int) bool {
	w := ws[i]
	if !w.capital || w.unit || utf8.RuneCountInString(w.lower) < 2 {
		return false
	}
	if numeric.IsMonth(w.lower) || weekdays[w.lower] {
		return false
	}
	if w.sentence && (sentence.IsStopword(w.lower) || sentence.IsCommonOpener(w.lower) || commonInitials[w.lower]) {
		return false
	}
	return true
}

// commonInitials are common words that open a sentence capitalised:
// determiners, quantifiers and pronouns the shared lists do not hold.
var commonInitials = map[string]bool{"a": true, "an": true, "one": true, "two": true, "three": true, "several": true,
	"few": true, "these": true, "those": true, "recent": true, "new": true, "both": true, "either": true,
	"neither": true, "no": true, "it": true, "there": true, "here": true, "we": true, "they": true, "he": true,
	"she": true, "you": true, "i": true, "while": true, "although": true, "though": true, "because": true,
	"if": true, "however": true, "according": true, "among": true, "between": true, "under": true, "with": true,
	"from": true, "to": true, "of": true, "during": true, "after": true, "following": true}

// nameAbbreviations are titles abbreviated before a name, read as the
// words they abbreviate ("Mt. Olver" names Mount Olver).
var nameAbbreviations = map[string]string{"st": "saint", "mt": "mount", "ft": "fort", "pt": "point", "dr": "doctor",
	"mr": "mister", "mrs": "mrs", "ms": "ms", "prof": "professor", "gen": "general", "lt": "lieutenant",
	"col": "colonel", "capt": "captain", "sgt": "sergeant", "rev": "reverend", "fr": "father", "sen": "senator"}

// transparentHeads are place heads that name their "of" phrase: "the City
// of Marrow" names Marrow. Other heads before "of" make another entity:
// "the province of Leffe", "the University of Oxford".
var transparentHeads = map[string]bool{"city": true, "town": true, "village": true, "municipality": true, "borough": true}

// adminHeads are the lower-case heads that make another entity of their
// "of" phrase ("the province of Leffe" is not the town Leffe).
var adminHeads = map[string]bool{"province": true, "county": true, "state": true, "district": true, "region": true,
	"diocese": true, "department": true, "prefecture": true, "canton": true, "governorate": true, "republic": true,
	"kingdom": true, "duchy": true, "port": true, "isle": true, "university": true, "bank": true, "church": true}

var weekdays = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true}

// names are the proper names a text states: maximal runs of capitalised
// words (joined by white space or a connector such as "of"), lower-cased
// and joined by single spaces. A lone capitalised word that only opens the
// text ("International students ...") is left out when the text names
// something else.
func names(s string) []string {
	ws := wordsOfText(s)
	type span struct {
		from, to int // words [from, to)
	}
	var spans []span
	for i := 0; i < len(ws); {
		if !nameWord(ws, i) {
			i++
			continue
		}
		j := i + 1
		for j < len(ws) {
			if ws[j].joined && nameWord(ws, j) && !ws[j].sentence {
				j++
				continue
			}
			// a connector between two capitalised words
			if nameConnectors[ws[j].lower] && !ws[j].capital && ws[j].joined && j+1 < len(ws) && ws[j+1].joined && nameWord(ws, j+1) {
				j += 2
				continue
			}
			break
		}
		spans = append(spans, span{i, j})
		i = j
	}
	var out []string
	for k, sp := range spans {
		if k == 0 && len(spans) > 1 && sp.to-sp.from == 1 && ws[sp.from].sentence {
			continue // "International students ... at Vesu College": the opener is not the subject
		}
		parts := make([]string, 0, sp.to-sp.from)
		for _, w := range ws[sp.from:sp.to] {
			parts = append(parts, w.lower)
		}
		n := strings.Join(parts, " ")
		if !contains2(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains2(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mentions says whether a text names the entity name (lower-cased words
// joined by single spaces, as names gives them) as a whole name: its words
// in a row, and no capitalised word joined to either end (which would make
// it part of a longer name: "Mimivor" in "Mimivor Falls", "Kalo Lake" in
// "Kadan Kalo Lake").
func mentions(ws []word, name string) bool {
	want := strings.Fields(name)
	if len(want) == 0 {
		return false
	}
	for i := 0; i+len(want) <= len(ws); i++ {
		ok := true
		for k, w := range want {
			if ws[i+k].lower != w || (k > 0 && !ws[i+k].joined) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		end := i + len(want)
		if i > 0 && ws[i].joined && extends(ws, i-1, -1) {
			continue
		}
		if end < len(ws) && ws[end].joined && extends(ws, end, +1) {
			continue
		}
		return true
	}
	return false
}

// extends says whether word i, beside a name (dir −1: before it, +1:
// after it), lengthens the name: a capitalised name word, or a connector
// followed (or preceded) by one ("University of Oxford").
func extends(ws []word, i, dir int) bool {
	if nameWord(ws, i) {
		return true
	}
	if !nameConnectors[ws[i].lower] || ws[i].capital {
		return false
	}
	j := i + dir
	if j < 0 || j >= len(ws) {
		return false
	}
	if dir < 0 && !ws[i].joined || dir > 0 && !ws[j].joined {
		return false
	}
	if dir < 0 && ws[i].lower == "of" {
		// "the City of Marrow" names Marrow; "the province of Leffe",
		// "the University of Oxford" name something else.
		if transparentHeads[ws[j].lower] {
			return false
		}
		if adminHeads[ws[j].lower] {
			return true
		}
	}
	return nameWord(ws, j)
}

// claimEntities are the named things a claim is about: its normalised
// entities, else its subject, else the proper names of its text. Empty
// when the claim names nothing (a claim about "the fee").
func (in Input) claimEntities() []string {
	c := in.claim
	if c != nil && c.entitiesRead {
		return c.entities
	}
	var out []string
	switch {
	case len(in.Claim.Normalization.Entities) > 0:
		for _, e := range in.Claim.Normalization.Entities {
			if n := normName(e); n != "" {
				out = append(out, n)
			}
		}
	case strings.TrimSpace(in.Claim.Subject) != "":
		out = []string{normName(in.Claim.Subject)}
	default:
		// The claim's subject: the first name it states, once an
		// attribution ("…, the Interior Ministry said", "according to
		// Statistics Norway") is set aside; a number is about its subject,
		// not what it is compared with ("more than Kerrow Hospital").
		if ns := names(withoutAttribution(in.Claim.Text)); len(ns) > 0 {
			out = ns[:1]
		}
	}
	if c != nil {
		c.entities, c.entitiesRead = out, true
	}
	return out
}

// attributionCues open the part of a claim that says who stated it.
var attributionCues = []string{"according to ", "as reported by ", " said", " says", " reported", " reports",
	" announced", " stated", " estimated", " estimates"}

// withoutAttribution is a claim's text without its attribution: a
// leading "According to X," clause, or a trailing clause after a comma
// that names the speaker ("…, the ministry said.").
func withoutAttribution(s string) string {
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "according to ") {
		if i := strings.Index(s, ","); i > 0 {
			return s[i+1:]
		}
	}
	for _, cue := range attributionCues {
		i := strings.Index(lower, cue)
		if i <= 0 {
			continue
		}
		// the clause the cue stands in starts at the comma before it
		if c := strings.LastIndex(s[:i], ","); c > 0 {
			return s[:c]
		}
		if strings.HasPrefix(cue, "according") {
			return s[:i]
		}
	}
	return s
}

// normName is a name as names gives it: its words lower-cased, joined by
// single spaces.
func normName(s string) string {
	ws := wordsOfText(s)
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.lower
	}
	return strings.Join(parts, " ")
}

// textWords is wordsOfText(s), read once per Apply, and across Applies
// through keptWords.
func (in Input) textWords(s string) []word {
	t := in.text(s)
	if t == nil {
		return keptWords(s)
	}
	if !t.wordsRead {
		t.words, t.wordsRead = keptWords(s), true
	}
	return t.words
}

// keptWordsSize bounds the texts keptWords holds: the claims of one
// output, or of one cited document, read the same passages one after
// another (RAG outputs with their contexts: each of an output's ~4.5
// claims reads its ~5 contexts' chunks). About 10 KB a passage-sized text.
const keptWordsSize = 2048

var keptWordsMemo = memo.New[string, []word](keptWordsSize)

// keptWords is wordsOfText(s) from a memo shared by every Apply (the words
// are only read).
func keptWords(s string) []word {
	return keptWordsMemo.Get(s, func() []word { return wordsOfText(s) })
}

// aboutEntity says whether a text names one of the claim's entities (true
// when the claim names none: nothing to tell the passages apart by).
func (in Input) aboutEntity(text string) bool {
	es := in.claimEntities()
	if len(es) == 0 {
		return true
	}
	ws := in.textWords(text)
	for _, e := range es {
		if mentions(ws, e) {
			return true
		}
	}
	return false
}

// namesAny says whether a text names anything (a proper name that is not
// only a capitalised opener): a sentence that names nothing ("It has 1,210
// beds.") speaks of what the sentence before it named.
func (in Input) namesAny(text string) bool {
	ws := in.textWords(text)
	for i := range ws {
		if nameWord(ws, i) {
			return true
		}
	}
	return false
}

// factText is the text a passage fact speaks in, for telling what it is
// about: the clause of its sentence that holds the number ("while in
// Bavaria it is 50 km/h", "and North Holby had 31,000"), when that clause
// names anything; else its sentence, when that names anything; else the
// sentence before and its own (the fact's context: "It has 1,210 beds."
// speaks of what the sentence before named).
func (in Input) factText(f *lint.Fact) string {
	if c := clauseOf(f.Description, f.Text); c != f.Description && in.namesAny(c) {
		return c
	}
	if in.namesAny(f.Description) || f.Context == "" {
		return f.Description
	}
	return f.Context
}

// clauseSeparators end one clause of a sentence and start another that
// can speak of something else.
var clauseSeparators = []string{", while ", ", whereas ", "; ", ", and ", ", but ", " while ", " whereas ",
	", compared with ", " compared with ", ", compared to ", " compared to ", ", against ", ", versus ", " vs "}

// clauseOf is the clause of a sentence that holds a number written as
// number (the sentence itself when it has no separator, or the number is
// not found).
func clauseOf(sentence, number string) string {
	at := strings.Index(sentence, number)
	if at < 0 || number == "" {
		return sentence
	}
	lower := strings.ToLower(sentence)
	from, to := 0, len(sentence)
	for _, sep := range clauseSeparators {
		for i := 0; ; {
			j := strings.Index(lower[i:], sep)
			if j < 0 {
				break
			}
			j += i
			if j+len(sep) <= at && j+len(sep) > from {
				from = j + len(sep)
			}
			if j >= at+len(number) && j < to {
				to = j
			}
			i = j + len(sep)
		}
	}
	return sentence[from:to]
}

// factAboutEntity says whether a passage fact speaks of the claim's
// entity (in factText).
func (in Input) factAboutEntity(f *lint.Fact) bool {
	if len(in.claimEntities()) == 0 {
		return true
	}
	return in.aboutEntity(in.factText(f))
}

// relevantFacts are the facts of a passage that speak of the claim's
// entity (factAboutEntity) under the claim's stated qualifiers (its
// location, population and condition words in the fact's context): only
// these can support or contradict the claim's number. The slice is facts
// itself when every fact is relevant.
func (in Input) relevantFacts(facts []lint.Fact) []lint.Fact {
	keep := func(f *lint.Fact) bool {
		return in.factAboutEntity(f) && !in.qualifierAbsent(in.factText(f))
	}
	for i := range facts {
		if keep(&facts[i]) {
			continue
		}
		out := slices.Clone(facts[:i])
		for j := i + 1; j < len(facts); j++ {
			if keep(&facts[j]) {
				out = append(out, facts[j])
			}
		}
		return out
	}
	return facts
}

// qualifierAbsent says whether a text leaves out a word of the claim's
// location, population or condition qualifier.
func (in Input) qualifierAbsent(text string) bool {
	c := in.Claim
	// A place is a name: the whole of it, in a row ("New York" is not
	// "New Jersey … York").
	if loc := strings.TrimSpace(c.Qualifiers.Location); loc != "" && !in.containsPhrase(text, loc) {
		return true
	}
	for _, q := range []string{c.Qualifiers.Population, c.Qualifiers.Condition} {
		for _, w := range contentWords(q) {
			if !in.contains(text, w) {
				return true
			}
		}
	}
	return false
}

// containsPhrase says whether text holds phrase's words in a row, in any
// case.
func (in Input) containsPhrase(text, phrase string) bool {
	return strings.Contains(in.fold(text), fold(phrase))
}
