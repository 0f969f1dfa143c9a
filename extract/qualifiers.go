package extract

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/sentence"
)

// Rules that read a claim's qualifiers from its text: the timeframe its
// years give, the place ("in Ohio") and the population ("among adults over
// 65") it is restricted to, a quantity given as alternatives ("$150 or
// $200"), and the meta or politeness phrase that can open a claim ("Please
// note that …").

// reMetaOpener opens a sentence whose rest is the claim: "Please note
// that", "Keep in mind that", "It is worth noting that", "It should be
// noted that", "I should mention that", "Please note:", "To be clear,",
// "Just so you know,". The phrase asserts nothing; what follows it does.
// "Please note the address." (no "that", no colon) stays an imperative.
var reMetaOpener = regexp.MustCompile(`(?i)^(?:` +
	`(?:please\s+)?(?:do\s+)?(?:note|be\s+(?:aware|advised)|remember|keep\s+in\s+mind|bear\s+in\s+mind|understand|know|notice)\s+that\s+|` +
	`it(?:'s|’s|\s+is)\s+(?:also\s+)?(?:worth\s+(?:noting|mentioning|knowing|remembering|pointing\s+out)|important\s+to\s+(?:note|remember|know|mention|understand)|good\s+to\s+know|notable)\s+that\s+|` +
	`it\s+(?:should|must)\s+be\s+(?:noted|mentioned|remembered|said|pointed\s+out|stressed|emphasi[sz]ed)\s+that\s+|` +
	`(?:i|we)\s+(?:should|must|want\s+to|would\s+like\s+to|'d\s+like\s+to|need\s+to)\s+(?:note|mention|point\s+out|add|stress|emphasi[sz]e|clarify|remind\s+you)\s+that\s+|` +
	`(?:(?:please\s+)?note|please\s+be\s+aware|just\s+so\s+you\s+know|for\s+your\s+information|fyi|to\s+be\s+clear|for\s+the\s+record|as\s+a\s+reminder|just\s+a\s+reminder|as\s+i\s+(?:said|mentioned)|as\s+(?:noted|mentioned|stated)\s+(?:above|earlier|before|previously))\s*[:,—–-]\s*)`)

// stripMetaOpener returns s without a meta or politeness opener, its rest
// capitalised, and whether there was one; a sentence that is nothing but
// the opener is left as it is.
func stripMetaOpener(s string) (string, bool) {
	m := reMetaOpener.FindStringIndex(s)
	if m == nil {
		return s, false
	}
	rest := strings.TrimSpace(s[m[1]:])
	if strings.TrimRight(rest, ".!") == "" {
		return s, false
	}
	r := []rune(rest)
	r[0] = unicode.ToUpper(r[0])
	return string(r), true
}

// reYearSpan is a span of years: "between 2010 and 2020", "from 2015 to
// 2018", "2019–2021".
var reYearSpan = regexp.MustCompile(`(?i)\b(?:(?:between|from)\s+)?([12][0-9]{3})\s*(?:and|to|until|through|[-–—])\s*([12][0-9]{3})\b`)

// reYear4 is a year of four digits.
var reYear4 = regexp.MustCompile(`\b(1[0-9]{3}|2[0-9]{3})\b`)

// timeframe is the span of years a claim's text names: a span ("between
// 2010 and 2020") from its first year's start to its last's end, else the
// first year, as that year; nil when it names none. A number the numeric
// scanner reads as a quantity (one of ms: "$2000", "1500 to 2000 metres")
// is no year; it leaves years out.
func timeframe(text string, ms []numeric.Mention) *claims.Timeframe {
	quantity := func(s, e int) bool {
		for _, m := range ms {
			if overlaps(s, e, m.Start, m.End) && !yearSpan(m) {
				return true
			}
		}
		return s > 0 && strings.ContainsAny(text[s-1:s], "$€£")
	}
	if m := reYearSpan.FindStringSubmatchIndex(text); m != nil && !quantity(m[2], m[3]) && !quantity(m[4], m[5]) {
		a, b := text[m[2]:m[3]], text[m[4]:m[5]]
		if a <= b {
			return &claims.Timeframe{Start: a + "-01-01", End: b + "-12-31"}
		}
	}
	// A year read as a date ("in 2019", "May 2021", "2019,") before one
	// that may count something ("1500 litres"), then the first.
	first := ""
	for _, m := range reYear4.FindAllStringIndex(text, -1) {
		if quantity(m[0], m[1]) {
			continue
		}
		if y := text[m[0]:m[1]]; datedYear(text, m[0], m[1]) {
			return &claims.Timeframe{Start: y + "-01-01", End: y + "-12-31"}
		} else if first == "" {
			first = y
		}
	}
	if first != "" {
		return &claims.Timeframe{Start: first + "-01-01", End: first + "-12-31"}
	}
	return nil
}

// yearWords before a number make it a year: "in 2019", "since 1990".
var yearWords = map[string]bool{"in": true, "since": true, "by": true, "during": true, "until": true, "till": true,
	"from": true, "before": true, "after": true, "of": true, "for": true, "to": true, "year": true, "fiscal": true,
	"fy": true, "around": true, "circa": true, "early": true, "late": true, "mid": true, "through": true, "and": true}

// datedYear: the number at text[s:e] reads as a year by what surrounds
// it — a year word or a month before it, or a punctuation mark or the end
// after it.
func datedYear(text string, s, e int) bool {
	if e == len(text) || strings.ContainsAny(text[e:e+1], ",.;:)!?") {
		return true
	}
	before := strings.Fields(text[:s])
	if len(before) == 0 {
		return false
	}
	w := bare(before[len(before)-1])
	return yearWords[w] || reMonthName.MatchString(sentenceCase(w))
}

// yearSpan: the numeric scanner's range of years ("2016–2019").
func yearSpan(m numeric.Mention) bool {
	return m.Pattern == numeric.PatternRange && m.Unit == "year" && m.Lo >= 1000 && m.Hi <= 2999 && m.Lo == float64(int(m.Lo))
}

func overlaps(a0, a1, b0, b1 int) bool { return a0 < b1 && b0 < a1 }

// reAlternativeValues: one quantity given as alternatives or a span — "5
// or 6 issues", "$150 or $200", "10% or 20%", "2 to 4 guests", "between $50
// and $100". Group 1 is "between", 2 and 4 the values, 3 the joining word,
// 5 a word after a bare second value (what it counts).
var reAlternativeValues = regexp.MustCompile(`(?i)(?:\b(between)\s+)?([$€£]?\d[\d,]*(?:\.\d+)?%?)\s+(or|to|and)\s+([$€£]?\d[\d,]*(?:\.\d+)?%?)(\s+[A-Za-z][A-Za-z'-]*)?`)

// alternatives widens the quantity m of text to the alternatives it opens
// ("$150" to "$150 or $200"), keeping its unit when the values carry one
// (a currency, a percentage) and taking the word after bare values ("5 or
// 6 issues"). "and" joins alternatives only after "between".
func alternatives(text string, m numeric.Mention) numeric.Quantity {
	q := m.Quantity
	for _, a := range reAlternativeValues.FindAllStringSubmatchIndex(text, -1) {
		if !overlaps(m.Start, m.End, a[0], a[5]) {
			continue // not the claim's quantity
		}
		join := strings.ToLower(text[a[6]:a[7]])
		between := a[2] >= 0
		if join == "and" && !between {
			continue
		}
		end := a[9]
		second := text[a[8]:a[9]]
		bare := !strings.ContainsAny(second, "$€£%")
		if w := ""; bare && a[10] >= 0 {
			w = strings.ToLower(strings.TrimSpace(text[a[10]:a[11]]))
			if verbs[w] || sentence.IsStopword(w) {
				a[10] = -1 // "18 to 24 fell": a verb, not what is counted
			} else if end = a[11]; q.Unit == "" || m.Pattern != numeric.PatternRange {
				q.Unit = w
			}
		}
		start := a[4]
		if between {
			start = a[2]
		}
		if bare && a[10] < 0 {
			q.Unit = ""
		}
		q.Text = strings.TrimSpace(text[start:end])
		return q
	}
	return q
}

// placePrepositions open a place: "in Ohio", "across Europe".
var placePrepositions = map[string]bool{"in": true, "across": true, "throughout": true, "within": true}

// languages follow "in" without being places ("published in English").
var languages = map[string]bool{"english": true, "french": true, "german": true, "spanish": true, "italian": true,
	"portuguese": true, "dutch": true, "russian": true, "chinese": true, "mandarin": true, "cantonese": true,
	"japanese": true, "korean": true, "arabic": true, "hindi": true, "latin": true, "greek": true, "hebrew": true,
	"swedish": true, "polish": true, "turkish": true, "braille": true, "esperanto": true}

// location is the place a claim is restricted to: the name after "in",
// "across", "throughout" or "within" (a determiner left out) — a run of
// capitalised words, with "of" inside ("Republic of Korea") and a
// lower-case compass prefix ("sub-Saharan Africa"). A month, a weekday, a
// language, a name with digits ("Q3") or two places joined by "or"/"and"
// (no single place) are not a location; the first place of the text is.
// It returns the place and its byte span in text.
func location(text string) (string, int, int) {
	words := wordSpans(text)
	for i := 0; i+1 < len(words); i++ {
		if !placePrepositions[strings.ToLower(words[i].w)] || strings.ContainsAny(words[i].w, ",;:") {
			continue
		}
		j := i + 1
		if strings.EqualFold(words[j].w, "the") && j+1 < len(words) {
			j++
		}
		k := j
		for k < len(words) && placeWord(words[k].w, k > j) {
			k++
			if strings.ContainsAny(words[k-1].w, ",;:") {
				break
			}
		}
		for k > j && strings.EqualFold(strings.Trim(words[k-1].w, ",;:.!"), "of") {
			k--
		}
		if k > j && k < len(words) && placeNouns[bare(words[k].w)] && !strings.ContainsAny(words[k-1].w, ",;:") {
			k++ // "the Veld region"
		}
		if k == j {
			continue
		}
		name := strings.TrimRight(text[words[j].s:words[k-1].e], ",;:.!")
		first := strings.ToLower(strings.Trim(words[j].w, ",;:.!"))
		if reMonthName.MatchString(sentenceCase(first)) || languages[first] && k == j+1 || strings.ContainsAny(name, "0123456789") {
			continue
		}
		if k < len(words)-1 && (strings.EqualFold(words[k].w, "or") || strings.EqualFold(words[k].w, "and")) && capitalised(words[k+1].w) {
			return "", 0, 0 // "in Boston or Chicago": no one place
		}
		return name, words[i].s, words[j].s + len(name)
	}
	return "", 0, 0
}

// placeWord: a word of a place's name — capitalised, "of" inside it, or a
// compass prefix before a capitalised part ("sub-Saharan").
func placeWord(w string, inside bool) bool {
	w = strings.Trim(w, ",;:.!\"'()")
	if w == "" {
		return false
	}
	if capitalised(w) {
		return true
	}
	if inside && w == "of" {
		return true
	}
	pre, rest, ok := strings.Cut(w, "-")
	return ok && compassPrefixes[pre] && capitalised(rest)
}

// placeNouns may follow a place's name as part of it: "the Veld region".
var placeNouns = map[string]bool{"region": true, "province": true, "county": true, "state": true, "district": true,
	"area": true, "basin": true, "valley": true, "city": true, "prefecture": true, "municipality": true,
	"peninsula": true, "metro": true, "borough": true}

var compassPrefixes = map[string]bool{"sub": true, "north": true, "south": true, "east": true, "west": true,
	"central": true, "northern": true, "southern": true, "eastern": true, "western": true, "trans": true, "pan": true}

func sentenceCase(w string) string {
	r := []rune(w)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// wordSpan is a word of a text with its byte span.
type wordSpan struct {
	w    string
	s, e int
}

func wordSpans(text string) []wordSpan {
	var out []wordSpan
	start := -1
	for i, r := range text {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			out = append(out, wordSpan{text[start:i], start, i})
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, wordSpan{text[start:], start, len(text)})
	}
	return out
}

// populationPrepositions open a population: "among adults", "for
// children", "in patients".
var populationPrepositions = map[string]bool{"among": true, "for": true, "in": true, "amongst": true}

// groups are the nouns that name a population.
var groups = map[string]bool{"adults": true, "children": true, "kids": true, "women": true, "men": true, "girls": true,
	"boys": true, "patients": true, "people": true, "persons": true, "individuals": true, "students": true,
	"teenagers": true, "teens": true, "adolescents": true, "infants": true, "babies": true, "toddlers": true,
	"newborns": true, "seniors": true, "retirees": true, "pensioners": true, "residents": true, "employees": true,
	"workers": true, "smokers": true, "nonsmokers": true, "veterans": true, "members": true, "users": true,
	"households": true, "families": true, "mothers": true, "fathers": true, "parents": true, "voters": true,
	"citizens": true, "immigrants": true, "refugees": true, "pupils": true, "youth": true, "youths": true,
	"visitors": true, "customers": true, "guests": true, "applicants": true, "participants": true,
	"subscribers": true, "drivers": true, "travellers": true, "travelers": true, "nurses": true, "doctors": true}

// groupAdjectives may stand before a population's noun: "young men",
// "older adults", "low-income families".
var groupAdjectives = map[string]bool{"young": true, "younger": true, "old": true, "older": true, "elderly": true,
	"adult": true, "pregnant": true, "low-income": true, "high-income": true, "school-age": true, "working-age": true,
	"male": true, "female": true, "new": true, "first-time": true, "unemployed": true, "hospitalized": true,
	"hospitalised": true, "vaccinated": true, "unvaccinated": true, "senior": true, "all": true, "most": true}

// groupTails open what narrows a population: "over 65", "aged 18 to 24",
// "with diabetes", "under 5".
var groupTails = map[string]bool{"over": true, "under": true, "aged": true, "ages": true, "age": true, "above": true,
	"below": true, "between": true, "with": true, "without": true, "older": true, "younger": true, "born": true}

// population is the group a claim is restricted to — a group noun after
// "among", "for" or "in", with the adjectives before it and what narrows
// it after ("among adults over 65", "for children under 5", "in patients
// with diabetes") up to a verb, a comma or another preposition — with
// its byte span in text.
func population(text string) (string, int, int) {
	words := wordSpans(text)
	for i := 0; i+1 < len(words); i++ {
		if !populationPrepositions[strings.ToLower(words[i].w)] || strings.ContainsAny(words[i].w, ",;:") {
			continue
		}
		j := i + 1
		if strings.EqualFold(words[j].w, "the") {
			j++
		}
		k := j
		for k < len(words) && k < j+2 && groupAdjectives[bare(words[k].w)] && !strings.ContainsAny(words[k].w, ",;:") {
			k++
		}
		if k >= len(words) || !groups[bare(words[k].w)] {
			continue
		}
		end := k + 1
		if !strings.ContainsAny(words[k].w, ",;:.!") && end < len(words) && groupTails[bare(words[end].w)] {
			end = groupTail(words, end)
		}
		name := strings.TrimRight(text[words[j].s:words[end-1].e], ",;:.!")
		return name, words[i].s, words[j].s + len(name)
	}
	return "", 0, 0
}

// groupTail is the end (a word index) of what narrows a population from
// words[at], its opening word: up to five words, none a verb or a
// preposition that opens another phrase, stopping after a comma.
func groupTail(words []wordSpan, at int) int {
	end := at + 1
	for end < len(words) && end < at+5 {
		w := bare(words[end].w)
		if verbs[w] || w == "in" || w == "on" || w == "at" || w == "for" || w == "from" || w == "by" || w == "was" ||
			w == "who" || w == "which" || w == "that" || participle(w) || w == "" {
			break
		}
		end++
		if strings.ContainsAny(words[end-1].w, ",;:.!") {
			break
		}
	}
	return end
}

func bare(w string) string { return strings.ToLower(strings.Trim(w, ",;:.!\"'()")) }

// qualify fills the claim's location and population qualifiers from its
// text and returns their byte spans in it.
func qualify(c *claims.Claim) [][2]int {
	var spans [][2]int
	if loc, s, e := location(c.Text); loc != "" {
		c.Qualifiers.Location = loc
		spans = append(spans, [2]int{s, e})
	}
	if pop, s, e := population(c.Text); pop != "" {
		c.Qualifiers.Population = pop
		spans = append(spans, [2]int{s, e})
	}
	return spans
}

// outside are the mentions that lie in none of the spans and are no span
// of years: a number that narrows a population ("adults over 65") or a
// timeframe ("2016–2019") is not the claim's quantity.
func outside(ms []numeric.Mention, spans [][2]int) []numeric.Mention {
	out := ms[:0:0]
	for _, m := range ms {
		in := yearSpan(m)
		for _, sp := range spans {
			in = in || overlaps(m.Start, m.End, sp[0], sp[1])
		}
		if !in {
			out = append(out, m)
		}
	}
	return out
}
