package numeric

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groups is FindStringSubmatch's groups after the whole match, or nil.
func groups(re *regexp.Regexp, s string) []string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1:]
	}
	return nil
}

func pairOf(a, b string, ok bool) []string {
	if !ok {
		return nil
	}
	return []string{a, b}
}

// matchersEqualRegexp fails t where a hand-written matcher of
// numberscan.go and the regular expression it replaced differ on s.
func matchersEqualRegexp(t testing.TB, s string) {
	sign, whole, frac, exp, end := matchNumber(s)
	require.Equal(t, reNumberRegexp.FindStringSubmatch(s), []string{s[:end], sign, whole, frac, exp}, "reNumber on %q", s)
	require.Equal(t, groups(reBetweenRegexp, s), pairOf(matchBetween(s)), "reBetween on %q", s)
	require.Equal(t, groups(reRangeRegexp, s), pairOf(matchRange(s)), "reRange on %q", s)
	require.Equal(t, groups(reMonthYearRegexp, s), pairOf(matchMonthYear(s)), "reMonthYear on %q", s)
	require.Equal(t, groups(reFracRegexp, s), pairOf(matchFraction(s)), "reFrac on %q", s)
	require.Equal(t, groups(reColonRatioRegexp, s), pairOf(matchColonRatio(s)), "reColonRatio on %q", s)
	require.Equal(t, groups(reWordRatioRegexp, s), pairOf(matchWordRatio(s)), "reWordRatio on %q", s)
	require.Equal(t, reDateRegexp.MatchString(s), isISODate(s), "reDate on %q", s)
	require.Equal(t, reISOMonthRegexp.MatchString(s), isISOMonth(s), "reISOMonth on %q", s)
	require.Equal(t, reRatioDigitsRegexp.MatchString(s), isDecimal(s), "reRatioDigits on %q", s)
	require.Equal(t, len(reLeadingNotRegexp.FindString(s)), leadingNotEnd(s), "reLeadingNot on %q", s)
	var years [][2]int
	for b, e := nextYear(s, 0); b >= 0; b, e = nextYear(s, e) {
		years = append(years, [2]int{b, e})
	}
	require.Equal(t, spansOf(reYearOrDateRegexp.FindAllStringIndex(s, -1)), years, "reYearOrDate on %q", s)
}

// parseEqualsRegexp fails t where ParseQuantity or YearsIn differ from
// their first form on s: every field of the quantity (NaN and -0 as
// written by %#v) and the error's text.
func parseEqualsRegexp(t testing.TB, s string) (Quantity, error) {
	want, wantErr := parseQuantityRegexp(s)
	got, err := ParseQuantity(s)
	require.Equal(t, fmt.Sprintf("%#v", want), fmt.Sprintf("%#v", got), "ParseQuantity(%q)", s)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "ParseQuantity(%q)'s error", s)
	if wantErr != nil {
		require.ErrorIs(t, err, ErrNotNumeric)
	}
	require.Equal(t, yearsInRegexp(s), YearsIn(s), "YearsIn(%q)", s)
	return got, err
}

// quantityTexts builds texts of every shape ParseQuantity reads: a
// negation and a comparator phrase, then one value (currency, number with
// sign, separators, fraction and exponent, scale, kind, unit words), a
// range or "between" of two, a date, a month or a ratio; parts are
// respaced with every kind of spacing (\v is no \s), their case changed,
// and some replaced by noise: letters that lower-case to ASCII from
// outside it (Kelvin sign, dotted capital I), the long s, invalid UTF-8,
// connectives, newlines.
func quantityTexts(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 29))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	clean := false // half the texts: single spaces, no noise
	space := func() string {
		if clean {
			return " "
		}
		return pick("", " ", " ", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\u00a0")
	}
	sp := func(xs ...string) string {
		if clean {
			return " "
		}
		return pick(xs...)
	}
	noise := []string{
		"-", "–", "—", "to", "TO", "toe", "and", "AND", "or", "in", "out of", "of", "\u212a", "İ", "ſ", "é", "\xff", "\xe2", "\xe2\x80",
		"\n", "\v", ".", ",", "/", ":", "%", "x", "e", "a", "abc", "5", "2021", "July", "not", "never", "between", "about", "~",
	}
	number := func() string {
		var b strings.Builder
		b.WriteString(pick("", "", "", "", "-", "+"))
		switch r.IntN(6) {
		case 0:
			b.WriteString(pick("1", "12", "123", "1234", "2021", "1999", "1500", "2999", "3000", "0", "007", "98765432"))
		case 1:
			b.WriteString(pick("1", "12", "123", "1234") + pick(",000", ",000,000", ",0000", ",00", ",5"))
		case 2:
			b.WriteString(pick("", "0", "3", "12") + "." + pick("5", "25", "", "x"))
		case 3:
			b.WriteString(pick("1", "4.5", ".5", "0") + pick("e", "E") + pick("", "+", "-") + pick("3", "9", "", "400", "99999999999999999999"))
		case 4:
			b.WriteString(pick("one", "Two", "twelve", "a", "an", "zero", "fİve", "TEN"))
		default:
			b.WriteString(pick("5", "48.2", "1,250,000", "0.07", "100"))
		}
		return b.String()
	}
	single := func() string {
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteString(pick("$", "€", "£", "USD ", "usd ", "$ "))
		}
		b.WriteString(number())
		if r.IntN(3) == 0 {
			b.WriteString(pick("", " ", sp("  ")) + pick("K", "k", "\u212a", "M", "m", "mn", "B", "bn", "T", "tn", "thousand", "Million", "billion", "trillion", "thousandth", "kİ"))
		}
		if r.IntN(3) == 0 {
			b.WriteString(pick("", " ") + pick("%", "percent", "Per Cent", "percentage points", "x", "×", "X", "times", "x faster", "times more"))
		}
		for range max(0, r.IntN(7)-3) {
			b.WriteString(sp(" ", "", "  ") + pick("km", "Kilometres", "ms", "seconds", "usd", "dollars", "passengers", "built-in", "rules",
				"per seat", "/user", "/", "A'", "abc", "or", "point", "people.", "pct", "p.p.", "metric ton"))
		}
		return b.String()
	}
	value := func() string {
		switch r.IntN(8) {
		case 0, 1:
			if r.IntN(2) == 0 {
				return number() + pick("-", " - ", "–", " – ", "—", " to ", "to", " TO ", "-\n", " -") + number() + pick("", "%", " km", "M")
			}
			return single() + pick("-", " - ", "–", " – ", "—", " to ", "to", " TO ", "-\n", " -") + single()
		case 2:
			return pick("between ", "Between ", "BETWEEN\t") + number() + pick("", "%", " million") + pick(" and ", " AND ", "\tand  ", " and", "and ") + number() + pick("", "%", " million", " people")
		case 3:
			return pick("2021", "1850", "2021-07") + pick("-07-01", "-13-01", "-7-01", "", "-12", "-00", "-07-0") + pick("", "", "x", " ")
		case 4:
			return pick("July", "jul", "Sept", "SEPT", "May", "Foo", "J") + pick("", ".", ",", ".,") + space() + pick("2021", "20211", "21", "1999")
		case 5:
			return pick("1", "12", "1.5", "one", "Two", "a", "3.") + space() + pick("/", ":", "in", "IN", "out of", "out  OF", "into", "out") +
				space() + pick("3", "4", "0", "four", "2.5", "a", "4 x")
		case 6:
			return pick("half", "Half", "one third", "three-quarters", "a quarter", "two fifths", "fİve tenths", "one", "third")
		}
		return single()
	}
	var quals []string
	for _, p := range ComparatorPhrases() {
		quals = append(quals, p, strings.ToUpper(p))
	}
	out := make([]string, n)
	for i := range out {
		clean = i%2 == 0
		var parts []string
		if r.IntN(6) == 0 {
			parts = append(parts, pick("not", "Never", "NOT", "not\t", "nOt"))
		}
		if r.IntN(2) == 0 {
			parts = append(parts, pick(quals...))
		}
		parts = append(parts, value())
		var b strings.Builder
		for j, p := range parts {
			if !clean && r.IntN(8) == 0 {
				p = pick(noise...)
			}
			if j > 0 {
				b.WriteString(sp(" ", " ", " ", "", "  ", "\t", "\n", "\v"))
			}
			b.WriteString(p)
		}
		if !clean && r.IntN(4) == 0 {
			// noise inside the value
			s := b.String()
			k := r.IntN(len(s) + 1)
			b.Reset()
			b.WriteString(s[:k] + pick(noise...) + s[k:])
		}
		out[i] = b.String()
		if !clean && r.IntN(6) == 0 {
			out[i] = pick(" ", "\t", "\n") + out[i] + pick(" ", ".", "\n", ". ")
		}
	}
	return out
}

// ParseQuantity, YearsIn and each matcher equal their regular-expression
// forms on 40,000 generated texts (the matchers on every suffix of each);
// every kind, failure and comparator is exercised.
func TestParseQuantityEqualsRegexp(t *testing.T) {
	kinds, errs, negated, cmps, years := map[Kind]int{}, 0, 0, map[Comparator]int{}, 0
	for _, text := range quantityTexts(40000, 3) {
		for i := 0; i < len(text); i++ {
			matchersEqualRegexp(t, text[i:])
		}
		q, err := parseEqualsRegexp(t, text)
		if err != nil {
			errs++
			continue
		}
		kinds[q.Kind]++
		cmps[q.Cmp]++
		if q.Negated {
			negated++
		}
		years += len(YearsIn(text))
	}
	for _, k := range []Kind{KindNumber, KindPercent, KindMoney, KindMultiplier, KindYear, KindDate, KindRatio, KindRange} {
		assert.Greater(t, kinds[k], 20, "kind %s is exercised", k)
	}
	for _, c := range []Comparator{CmpValue, CmpApprox, CmpAbove, CmpAtLeast, CmpAtMost, CmpBetween} {
		assert.Greater(t, cmps[c], 20, "comparator %q is exercised", c)
	}
	t.Logf("kinds %v, comparators %v, %d failures, %d negated, %d years", kinds, cmps, errs, negated, years)
	assert.Greater(t, errs, 1000)
	assert.Greater(t, negated, 20)
	assert.Greater(t, years, 1000)
}

// Texts where a hand-written matcher is easily wrong: a lazy .+? with a
// later separator, \n where . stops, \s that is not \v, folds.
var quantitySeeds = []string{
	"5-10", "-5-10", "5 - 10%", "5–10", "5—10 km", "5 to 10", "5to10", "5 toe 10", "a-b-c", "5 -\n10", "5\n-10", "5 - ", "5 -  ", "5 -\t",
	"5 - \n", "x - y\nz", "–5", "5 –", "between 5 and 10", "between 5\tand\t10 %", "between 5 and", "between 5 and ", "between 5 and\n",
	"between 5 AND 6", "between 5 and 6 and 7", "between x and\n and 6", "between 5 andy 6 and 7", "between\n5 and 6", "Between five and six",
	"1,000", "1,0000", "12,345.67e-2", "-.5", "+.5e3", "5e", "5e+", "5E-x", ".", "-", "1,000,00", "1234,567", "0e-99999999999999999999",
	"2021-07-01", "2021-07-1", "2021-7-01", "2021-13", "2021-00", "2021-10", "July 2021", "Jul. 2021", "Jul., 2021", "Sept,\t2021", "July 20211",
	"1/3", "1 / 3", "1/ 0", "1:4", "1.5 : 2", "1.: 2", "1 in 4", "one in four", "two OUT\tOF three", "1 in  4 ", "1 into 4", "1\vin 4", "3 out of4",
	"half", "one-third", "three quarters", "a quarter", "fİve fifths", "not about 5", "never more than 5%", "NOT\t~5", "not5", "not  more than 5",
	"~5", "≈ 5", "≈5", "about5", "no fewer than 12 passengers", "İn excess of 5", "in excess of 5", "\u212a5", "5 \u212a", "5\u212am", "5 mİllion",
	"1.5K", "2M", "5 m", "5m", "5 Million people", "3 times", "3 times faster", "3x", "3 × 4", "$29/user", "$29 per seat", "$5 usd", "USD 5",
	"12 PERCENT", "12 per cent", "5 percentage points", "5.7abc", "5.7 or 9", "48 million passengers", "one A'", "5\u00a0km", "5\xff", "\xe2\x80\x935",
	"in 2021 and 1999", "FY2022", "2,023", "2023%", "2023,5", "$2023", "1499 1500 2099 2100", "2021-07-01x", "2021-07-01-02", "2021-07-0", "_2021",
}

func TestQuantitySeedsEqualRegexp(t *testing.T) {
	for _, s := range quantitySeeds {
		for i := 0; i < len(s); i++ {
			matchersEqualRegexp(t, s[i:])
		}
		parseEqualsRegexp(t, s)
	}
}

// FuzzParseQuantityEqualsRegexp holds ParseQuantity, YearsIn and the
// matchers equal to their regular-expression forms on any text (a claim
// given to numcheck is user text).
func FuzzParseQuantityEqualsRegexp(f *testing.F) {
	for _, s := range quantitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		matchersEqualRegexp(t, text)
		parseEqualsRegexp(t, text)
	})
}

// ParseQuantity and YearsIn on real prose: every claim and corpus
// document of the real sets, each line and sentence of them, and each run
// of one to four words that starts with a digit (what a mention or a fact
// holds). DATA names the folder of the sets; without it the test is
// skipped.
func TestParseQuantityEqualsRegexpOnRealSets(t *testing.T) {
	dir := os.Getenv("DATA")
	if dir == "" {
		t.Skip("DATA unset: no real sets to compare on (make test DATA=folder)")
	}
	for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
		texts, parsed := 0, 0
		for _, file := range []string{"claims.jsonl", "corpus.jsonl"} {
			for _, text := range jsonlTexts(t, filepath.Join(dir, set, file)) {
				for _, s := range withParts(text) {
					for _, w := range digitWindows(s) {
						if _, err := parseEqualsRegexp(t, w); err == nil {
							parsed++
						}
						matchersEqualRegexp(t, w)
						texts++
					}
					parseEqualsRegexp(t, s)
					texts++
				}
			}
		}
		t.Logf("%s: %d texts equal, %d parsed as a quantity", set, texts, parsed)
		assert.Greater(t, parsed, 100, set)
	}
}

// digitWindows returns the runs of one to four fields of s that start at
// a field with a digit, as substrings of s (the spacing kept).
func digitWindows(s string) []string {
	var starts, ends []int
	for i := 0; i < len(s); {
		f, tail := nextField(s[i:])
		if f == "" {
			break
		}
		b := len(s) - len(tail) - len(f)
		starts, ends = append(starts, b), append(ends, b+len(f))
		i = b + len(f)
	}
	var out []string
	for i, b := range starts {
		if !strings.ContainsAny(s[b:ends[i]], "0123456789") {
			continue
		}
		for j := i; j < min(i+4, len(ends)); j++ {
			out = append(out, s[b:ends[j]])
		}
	}
	return out
}
